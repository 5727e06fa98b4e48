import { randomBytes } from 'node:crypto';
import type { CatalogWorkerSettings, DescribeToolsInput, DescribeToolsResult } from '../shared/activity-types';
import { ACTIVITY_DEFAULTS } from '../shared/defaults/activities';
import { msToNumber } from '../shared/duration';
import { createRedactor, type Redactor } from '../redaction';
import type { ToolRegistry } from '../tools/tool-registry';

/**
 * The `describeTools` activity: the worker's defined tools, and the MCP
 * servers' tools the run names (listed from the servers on first use). A
 * server that cannot be listed does not fail the catalog: it is named in
 * `unavailable`, and a run that needs its tools fails at start saying why. What the servers said (their
 * descriptions, a failing server's last output) has the configured secrets (`redact`) removed: it goes into
 * the history. With it go the worker's settings the run's calls are scheduled with, and a fresh stream key.
 */
export async function describeTools(
  registry: ToolRegistry,
  input?: DescribeToolsInput,
  redact: Redactor = createRedactor([]),
  heartbeatTimeoutMs: number = msToNumber(ACTIVITY_DEFAULTS.heartbeatTimeout),
): Promise<DescribeToolsResult> {
  const defined = registry.describe();
  const worker: CatalogWorkerSettings = { heartbeatTimeoutMs, streamKey: randomBytes(32).toString('base64url') };
  if (input === undefined) return { tools: defined, worker };
  const external = redact.value(await registry.describeExternal(input.tools));
  if (external.tools.length === 0 && external.problems.length === 0) return { tools: defined, worker };
  return {
    tools: [...defined, ...external.tools].sort((left, right) => left.name.localeCompare(right.name)),
    ...(external.problems.length === 0 ? {} : { unavailable: external.problems }),
    worker,
  };
}
