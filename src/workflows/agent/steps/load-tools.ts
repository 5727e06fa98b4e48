import type { CatalogWorkerSettings, DescribeToolsResult } from '../../../shared/activity-types';
import { approvalPolicyRegistry, validateApprovalPolicy } from '../../rules/approval-policies';
import { stopConditionRegistry } from '../../rules/custom-stop-conditions';
import { expandToolNames, wildcardServer } from '../../../shared/mcp-tool-names';
import { selectRunTools, type RunTools } from '../../rules/run-setup';
import { validateStopCondition } from '../../rules/stop-conditions';
import { localCatalogActivities } from '../activities';
import { invalidAgentInput, unknownTools } from '../failures';
import type { RunContext } from '../run-context';
import { describeActivity } from '../run-record';
import type { StepOutcome } from '../step-outcome';

/** The worker's tool catalog, once, before the first iteration; not `async`, so what follows runs in the result's turn. */
export function loadToolCatalog(context: RunContext): Promise<DescribeToolsResult> {
  describeActivity(context.run, 'loading the tool catalog');
  // A local activity: the worker that runs the workflow knows its own tools, without a round trip through the task queue.
  // The run's tools go along so the worker lists only the MCP servers they name.
  return localCatalogActivities.describeTools.executeWithOptions({ summary: 'tool catalog' }, [
    { tools: context.input.tools },
  ]);
}

/**
 * The run's tools from the catalog. A tool the input names that the worker
 * lacks, or a `stopWhen` or `approval.policy` that names what does not exist,
 * fails the run.
 */
export function chooseRunTools(
  context: RunContext,
  catalog: DescribeToolsResult,
): { kind: 'loaded'; tools: RunTools } | Extract<StepOutcome, { kind: 'fail' }> {
  const expanded = expandRunTools(context, catalog);
  if (expanded !== undefined) return expanded;
  const { input } = context;
  const selected = selectRunTools(catalog.tools, input);
  if (!selected.ok) {
    return { kind: 'fail', failure: unknownTools(selected.unknown, selected.registered, catalog.unavailable) };
  }
  if (input.stopWhen !== undefined) {
    const problems = validateStopCondition(input.stopWhen, stopConditionRegistry, { tools: input.tools });
    if (problems.length > 0) return { kind: 'fail', failure: invalidAgentInput(problems) };
  }
  const policyProblem = validateApprovalPolicy(input.approval?.policy, approvalPolicyRegistry);
  if (policyProblem !== undefined) return { kind: 'fail', failure: invalidAgentInput([policyProblem]) };
  return { kind: 'loaded', tools: selected.tools };
}

/**
 * A run that names `<server>__*` gets every tool of that server the catalog lists: the input's
 * `tools` are replaced by the names they stand for, once, before anything reads them. A wildcard
 * that matches nothing fails the run. Runs without a wildcard are left as they were.
 */
function expandRunTools(
  context: RunContext,
  catalog: DescribeToolsResult,
): Extract<StepOutcome, { kind: 'fail' }> | undefined {
  const { input } = context;
  if (!input.tools.some((name) => wildcardServer(name) !== undefined)) return undefined;
  const expanded = expandToolNames(
    input.tools,
    catalog.tools.map((tool) => tool.name),
  );
  if (expanded.unmatched.length > 0) {
    return {
      kind: 'fail',
      failure: unknownTools(
        expanded.unmatched,
        catalog.tools.map((tool) => tool.name),
        catalog.unavailable,
      ),
    };
  }
  context.input = { ...input, tools: expanded.names };
  return undefined;
}

/**
 * The worker settings a catalog carries, when they read as such: a catalog from an older worker, or a malformed
 * one, has none, and the calls keep the stubs' settings (their heartbeat timeout, streams announced).
 */
export function catalogWorkerSettings(catalog: DescribeToolsResult): CatalogWorkerSettings | undefined {
  const worker: unknown = catalog.worker;
  if (typeof worker !== 'object' || worker === null) return undefined;
  const { heartbeatTimeoutMs, streamKey } = worker as Record<string, unknown>;
  if (typeof heartbeatTimeoutMs !== 'number' || typeof streamKey !== 'string' || streamKey.length < 16)
    return undefined;
  return { heartbeatTimeoutMs, streamKey };
}
