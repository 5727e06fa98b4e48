import { randomBytes } from 'node:crypto';
import type {
  CatalogWorkerSettings,
  DescribeToolsInput,
  DescribeToolsResult,
  ToolDescription,
} from '../shared/activity-types';
import { ACTIVITY_DEFAULTS } from '../shared/defaults/activities';
import { msToNumber } from '../shared/duration';
import { createRedactor, type Redactor } from '../redaction';
import type { ToolRegistry } from '../tools/tool-registry';
import { toolMatches } from '../shared/mcp-tool-names';

/**
 * The `describeTools` activity: the worker's tools and the named MCP servers' tools, redacted (they go into the
 * history), with the worker's call settings and a fresh stream key. A server that cannot be listed is named in
 * `unavailable`, so only runs that need it fail; operator-listed `approvalRequired` tools always need approval.
 */
export async function describeTools(
  registry: ToolRegistry,
  input?: DescribeToolsInput,
  redact: Redactor = createRedactor([]),
  heartbeatTimeoutMs: number = msToNumber(ACTIVITY_DEFAULTS.heartbeatTimeout),
  approvalRequired: readonly string[] = [],
): Promise<DescribeToolsResult> {
  const defined = withRequiredApproval(registry.describe(), approvalRequired);
  const worker: CatalogWorkerSettings = { heartbeatTimeoutMs, streamKey: randomBytes(32).toString('base64url') };
  if (input === undefined) return { tools: defined, worker };
  const described = redact.value(await registry.describeExternal(input.tools));
  const external = { ...described, tools: withRequiredApproval(described.tools, approvalRequired) };
  if (external.tools.length === 0 && external.problems.length === 0) return { tools: defined, worker };
  return {
    tools: [...defined, ...external.tools].sort((left, right) => left.name.localeCompare(right.name)),
    ...(external.problems.length === 0 ? {} : { unavailable: external.problems }),
    worker,
  };
}

/** The tools, those `approvalRequired` names marked as always needing approval. */
function withRequiredApproval(tools: ToolDescription[], approvalRequired: readonly string[]): ToolDescription[] {
  if (approvalRequired.length === 0) return tools;
  return tools.map((tool) =>
    approvalRequired.some((pattern) => toolMatches(pattern, tool.name)) ? { ...tool, needsApproval: 'always' } : tool,
  );
}
