import type { Duration } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { ApprovalDecision, DecidedBy, Decider } from '../../../shared/control';
import type { ToolCall } from '../../../shared/messages';
import type { ToolDescription } from '../../../shared/activity-types';
import { approvalPolicyRegistry, applyApprovalPolicy } from '../../rules/approval-policies';
import { checkDecision, decidedBy } from '../../rules/approval-rules';
import { approvalTimedOut } from '../failures';
import type { RunContext } from '../run-context';
import { describeActivity, type RunRecord } from '../run-record';
import { previewJson } from '../event-log';
import { parseArgumentsLeniently } from '../../rules/tool-arguments';
import { markApprovalSettled, markWaitingForApproval } from '../run-transitions';

/**
 * Approval of tool calls as the workflow runs it: the policy, the wait for a person, the decisions recorded; what
 * they mean is the pure rules' (`approval-rules.ts`, `approval-policies.ts`).
 */

/** A tool's JSON Schema of arguments by name; `undefined` until the catalog is loaded or for unknown tools. */
export type ToolSchemaLookup = (toolName: string) => Record<string, unknown> | undefined;

/** A decision that passed `checkDecision`, or one the run makes itself (a timeout's denial, a policy's decision). */
export interface DecisionToRecord {
  callId: string;
  decision: 'approve' | 'deny';
  arguments?: Record<string, unknown>;
  reason?: string;
  /** The approval policy that decided (`via: 'policy'`). */
  policy?: string;
  /** Who decides, as the sender said (a signal or update's `by`). */
  by?: Decider;
}

/**
 * Decides a call that needs approval: the run's policy first, then a person when there is none or it answers `ask`; a
 * policy's decision is recorded as `via: 'policy'`. Not `async`: without a policy the caller awaits `awaitApproval`'s
 * own promise, which keeps the recorded order of commands.
 */
export function decideCall(
  context: RunContext,
  call: ToolCall,
  description: ToolDescription,
  toolAsksForApproval: boolean,
): Promise<ApprovalDecision> {
  const { run, input } = context;
  const requested = parseArgumentsLeniently(call.function.arguments);
  const policy = input.approval?.policy;
  if (policy === undefined) return awaitApproval(context, call, requested);
  const outcome = applyApprovalPolicy(
    policy,
    approvalPolicyRegistry,
    {
      toolName: call.function.name,
      arguments: requested,
      callId: call.id,
      iteration: run.iteration,
      toolAsksForApproval,
    },
    input.approval?.params ?? {},
    description.parameters,
  );
  if (outcome.decision === 'ask')
    return awaitApproval(context, call, requested, {
      policy,
      ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    });
  const { decision, reason } = outcome;
  const recorded = recordDecision(
    run,
    {
      callId: call.id,
      decision: decision === 'deny' ? 'deny' : 'approve',
      ...(outcome.decision === 'modify' ? { arguments: outcome.arguments } : {}),
      ...(reason === undefined ? {} : { reason }),
      policy,
    },
    'policy',
    { toolName: call.function.name, arguments: requested },
  );
  return Promise.resolve(recorded);
}

/**
 * Waits, on a durable timer when the run sets a timeout, for a decision on `call`, whose arguments
 * are `requested` (parsed leniently). `askedBy` is the approval policy that handed the call to a
 * person, and why; the request's event names it.
 */
async function awaitApproval(
  context: RunContext,
  call: ToolCall,
  requested: unknown,
  askedBy?: { policy: string; reason?: string },
): Promise<ApprovalDecision> {
  const { run, input, publish, fail, partial } = context;
  markWaitingForApproval(run, {
    callId: call.id,
    toolName: call.function.name,
    arguments: requested,
    requestedAt: new Date().toISOString(),
  });
  run.events.append('approval-request', {
    callId: call.id,
    toolName: call.function.name,
    arguments: requested,
    ...askedBy,
  });
  describeActivity(run, `iteration ${run.iteration}: waiting for approval of ${call.function.name} (${call.id})`);
  publish(run);

  const timeout = input.approval?.timeout;
  const decidedInTime =
    timeout === undefined
      ? (await wf.condition(() => run.decisions.has(call.id)), true)
      : // durationSchema has checked that the text parses as a Temporal duration.
        await wf.condition(() => run.decisions.has(call.id), timeout as Duration);

  markApprovalSettled(run, call.id);
  publish(run);
  if (!decidedInTime) {
    // Fails the run at once, whatever the other calls of a parallel batch are doing (see `RunContext.fail`).
    if (input.approval?.onTimeout === 'fail') return fail(approvalTimedOut(call, timeout ?? 0, partial()));
    return recordDecision(
      run,
      { callId: call.id, decision: 'deny', reason: `no decision within ${String(timeout)}` },
      'timeout',
    );
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

/**
 * Records a checked decision in the run and its event log; returns it. The call is the pending one
 * of `decision.callId`, or `requested` for a call decided without waiting (by a policy).
 */
export function recordDecision(
  run: RunRecord,
  decision: DecisionToRecord,
  via: ApprovalDecision['via'],
  requested?: { toolName: string; arguments: unknown },
): ApprovalDecision {
  const pending = requested ?? run.pendingApprovals.find((approval) => approval.callId === decision.callId);
  const recorded = approvalDecisionOf(decision, pending, via);
  run.decisions.set(decision.callId, recorded);
  run.events.append('approval-decision', { ...recorded });
  // The audit line: one per decision, in the worker's log (the SDK adds the workflow and run ids; not on replay).
  wf.log.info('Approval decision', {
    callId: recorded.callId,
    toolName: recorded.toolName,
    decision: recorded.decision,
    decidedBy: recorded.by.name ?? '(unnamed)',
    decidedVia: recorded.by.via,
  });
  return recorded;
}

/**
 * The decision as the run reports it, at workflow time, on the call `requested` (its tool and the
 * model's arguments; unknown: no name, no arguments): with the approver's arguments, if any, and
 * the model's beside them as `originalArguments`. Also what a decision forwarded to a nested agent
 * answers (`forwardDecision`), so both read alike.
 */
export function approvalDecisionOf(
  decision: DecisionToRecord,
  requested: { toolName: string; arguments: unknown } | undefined,
  via: ApprovalDecision['via'],
): ApprovalDecision & { by: DecidedBy } {
  return {
    callId: decision.callId,
    toolName: requested?.toolName ?? '',
    decision: decision.decision,
    arguments: decision.arguments ?? requested?.arguments,
    ...(decision.arguments === undefined ? {} : { originalArguments: requested?.arguments }),
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    decidedAt: new Date().toISOString(),
    via,
    ...(decision.policy === undefined ? {} : { policy: decision.policy }),
    by: decidedBy(decision.by, via, decision.policy),
  };
}
