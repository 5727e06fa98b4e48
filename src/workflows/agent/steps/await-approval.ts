import type { Duration } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { ApprovalDecision, ToolCall } from '../../../shared';
import { checkDecision } from '../../rules/approval-rules';
import { approvalTimedOut } from '../failures';
import type { RunContext } from '../run-context';
import { describeActivity, refreshStatus, type RunRecord } from '../run-record';
import { previewJson } from '../event-log';
import { parseArgumentsLeniently } from '../../rules/tool-arguments';

/**
 * Human approval of tool calls, as the workflow runs it: waiting for a
 * decision, and recording the decisions that arrive by signal, update or
 * timeout. Which calls need approval and whether a decision is valid are the
 * pure rules of `approval-rules.ts`.
 */

/** A tool's JSON Schema of arguments by name; `undefined` until the catalog is loaded or for unknown tools. */
export type ToolSchemaLookup = (toolName: string) => Record<string, unknown> | undefined;

/** A decision that passed `checkDecision`, or one the run makes itself (a timeout's denial). */
export interface DecisionToRecord {
  callId: string;
  decision: 'approve' | 'deny';
  arguments?: Record<string, unknown>;
  reason?: string;
}

/** Waits, on a durable timer when the run sets a timeout, for a decision on `call`. */
export async function awaitApproval(context: RunContext, call: ToolCall): Promise<ApprovalDecision> {
  const { run, input, publish, fail, partial } = context;
  const requested = parseArgumentsLeniently(call.function.arguments);
  run.pendingApprovals.push({
    callId: call.id,
    toolName: call.function.name,
    arguments: requested,
    requestedAt: new Date().toISOString(),
  });
  run.events.append('approval-request', { callId: call.id, toolName: call.function.name, arguments: requested });
  refreshStatus(run);
  describeActivity(run, `iteration ${run.iteration}: waiting for approval of ${call.function.name} (${call.id})`);
  publish(run);

  const timeout = input.approval?.timeout;
  const decidedInTime =
    timeout === undefined
      ? (await wf.condition(() => run.decisions.has(call.id)), true)
      : // durationSchema has checked that the text parses as a Temporal duration.
        await wf.condition(() => run.decisions.has(call.id), timeout as Duration);

  run.pendingApprovals = run.pendingApprovals.filter((approval) => approval.callId !== call.id);
  refreshStatus(run);
  publish(run);
  if (!decidedInTime) {
    // Fails the run at once, whatever the other calls of a parallel batch are doing (see `RunContext.fail`).
    if (input.approval?.onTimeout === 'fail') return fail(approvalTimedOut(call, timeout ?? 0, partial()));
    return recordDecision(run, { callId: call.id, decision: 'deny', reason: `no decision within ${String(timeout)}` }, 'timeout');
  }
  return run.decisions.get(call.id) as ApprovalDecision;
}

/** A decision that arrived as a signal: recorded when valid, otherwise logged as rejected. */
export function decideFromSignal(run: RunRecord, toolSchemaFor: ToolSchemaLookup, input: unknown): void {
  const checked = checkDecision(input, run.pendingApprovals, run.decisions, toolSchemaFor);
  if (!checked.ok) {
    // What was sent, as a preview: a rejected signal can be up to a payload's size.
    run.events.append('decision-rejection', { via: 'signal', problem: checked.problem, input: previewJson(input) });
    return;
  }
  recordDecision(run, checked.input, 'signal');
}

/** Records a checked decision in the run and its event log; returns it. */
export function recordDecision(run: RunRecord, decision: DecisionToRecord, via: ApprovalDecision['via']): ApprovalDecision {
  const pending = run.pendingApprovals.find((approval) => approval.callId === decision.callId);
  const recorded: ApprovalDecision = {
    callId: decision.callId,
    toolName: pending?.toolName ?? '',
    decision: decision.decision,
    arguments: decision.arguments ?? pending?.arguments,
    ...(decision.arguments === undefined ? {} : { originalArguments: pending?.arguments }),
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    decidedAt: new Date().toISOString(),
    via,
  };
  run.decisions.set(decision.callId, recorded);
  run.events.append('approval-decision', { ...recorded });
  return recorded;
}
