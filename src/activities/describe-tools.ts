import type { DescribeToolsInput, DescribeToolsResult } from '../shared/activity-types';
import { createRedactor, type Redactor } from '../redaction';
import type { ToolRegistry } from '../tools/tool-registry';

/**
 * The `describeTools` activity: the worker's defined tools, and the MCP
 * servers' tools the run names (listed from the servers on first use). A
 * server that cannot be listed does not fail the catalog: it is named in
 * `unavailable`, and a run that needs its tools fails at start saying why. What the servers said (their
 * descriptions, a failing server's last output) has the configured secrets (`redact`) removed: it goes into
 * the history.
 */
export async function describeTools(
  registry: ToolRegistry,
  input?: DescribeToolsInput,
  redact: Redactor = createRedactor([]),
): Promise<DescribeToolsResult> {
  const defined = registry.describe();
  if (input === undefined) return { tools: defined };
  const external = redact.value(await registry.describeExternal(input.tools));
  if (external.tools.length === 0 && external.problems.length === 0) return { tools: defined };
  return {
    tools: [...defined, ...external.tools].sort((left, right) => left.name.localeCompare(right.name)),
    ...(external.problems.length === 0 ? {} : { unavailable: external.problems }),
  };
}
