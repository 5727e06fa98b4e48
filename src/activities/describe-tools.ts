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
 * The `describeTools` activity: the worker's defined tools, and the MCP
 * servers' tools the run names (listed from the servers on first use). A
 * server that cannot be listed does not fail the catalog: it is named in
 * `unavailable`, and a run that needs its tools fails at start saying why. What the servers said (their
 * descriptions, a failing server's last output) has the configured secrets (`redact`) removed: it goes into
 * the history. With it go the worker's settings the run's calls are scheduled with, and a fresh stream key.
 * Tools the operator listed in `approvalRequired` are described as always needing approval, whatever their
 * definition or server says: the run's input can add approvals, never remove these.
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
