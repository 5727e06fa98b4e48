import type { DescribeToolsInput, DescribeToolsResult } from '../shared/activity-types';
import type { ToolRegistry } from '../tools/tool-registry';

/**
 * The `describeTools` activity: the worker's defined tools, and the MCP
 * servers' tools the run names (listed from the servers on first use). A
 * server that cannot be listed does not fail the catalog: it is named in
 * `unavailable`, and a run that needs its tools fails at start saying why.
 */
export async function describeTools(registry: ToolRegistry, input?: DescribeToolsInput): Promise<DescribeToolsResult> {
  const defined = registry.describe();
  if (input === undefined) return { tools: defined };
  const external = await registry.describeExternal(input.tools);
  if (external.tools.length === 0 && external.problems.length === 0) return { tools: defined };
  return {
    tools: [...defined, ...external.tools].sort((left, right) => left.name.localeCompare(right.name)),
    ...(external.problems.length === 0 ? {} : { unavailable: external.problems }),
  };
}
