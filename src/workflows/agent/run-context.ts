import type { ApplicationFailure } from '@temporalio/workflow';
import type { ParsedAgentInput } from '../../shared/agent-input';
import type { PartialRun } from '../../shared/failure-catalogue';
import type { RunRecord } from './run-record';
import type { CatalogWorkerSettings } from '../../shared/activity-types';

/**
 * What the pieces of one run share: its record, its validated input, and how
 * it publishes. `agentWorkflow` builds one per run and passes it
 * down explicitly; nothing of a run lives at module scope, because the
 * workflow modules are shared by every run in the worker's isolate.
 */
export interface RunContext {
  /** The run's record: state, conversation, event log. The pieces change it in place. */
  readonly run: RunRecord;
  /** The run's input; its `tools` are expanded once the catalog is loaded when they name `<server>__*`. */
  input: ParsedAgentInput;
  /** Upserts the search attributes that changed since the last call. */
  readonly publish: (run: RunRecord) => void;
  /**
   * Settles a failure at once, through the same `settle` as every ending, and
   * throws it: for the one step that cannot return its outcome, an approval
   * that timed out inside a parallel batch, which fails the run without
   * waiting for the batch's other calls.
   */
  readonly fail: (failure: ApplicationFailure) => never;
  /** What the run has produced so far, attached to a failure's details. */
  readonly partial: () => PartialRun;
  /** When the run's `timeout` passes (an ISO time), if it has one: nested agents get what is left of it. */
  readonly deadline?: string;
  /** What the catalog's worker said the run's calls take (heartbeat timeout, stream key); absent before it loads. */
  worker?: CatalogWorkerSettings;
}

/**
 * The heartbeat timeout the catalog's worker asked for, as activity options; none when its catalog did not say,
 * so the stubs' default holds.
 */
export function heartbeatOptions(context: RunContext): { heartbeatTimeout?: number } {
  const timeoutMs = context.worker?.heartbeatTimeoutMs;
  return typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs >= 1_000
    ? { heartbeatTimeout: timeoutMs }
    : {};
}
