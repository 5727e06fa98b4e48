import * as wf from '@temporalio/workflow';
import { approveSignal, denySignal, nestedApprovalsSignal } from '../../../workflow-contract/definitions';
import { type ApprovalDecision, type DecideInput } from '../../../shared/control';
import { type NestedQuestion } from '../../../shared/control';
import { approvalsKey, routeDecision } from '../../rules/nested-approvals';
import { listedNestedQuestions, questionsKey } from '../../rules/nested-questions';
import { allPendingApprovals, type RunRecord } from '../run-record';
import { approvalDecisionOf } from './await-approval';

/**
 * Nested agents' approvals, decided from the top: a nested agent's run tells
 * its parent what it waits on (`nestedApprovalsSignal`), and the parent
 * forwards a decision on one of those calls to it (`approve`/`deny`).
 */

/** The `wf.patched` id of reporting MCP questions to the parent: a nested agent from before it reported approvals only. */
const NESTED_QUESTIONS_PATCH = 'nested-questions-reported';

/**
 * Reports a nested agent's pending approvals and MCP questions (its own and its children's) to its parent whenever
 * either list changes; call it where the run publishes. Only a nested agent reports: a run without a parent issues
 * no command it did not issue before.
 */
export function createApprovalReporter(parentWorkflowId: string): (run: RunRecord) => void {
  let reported = '';
  let reportsQuestions = false;
  return (run) => {
    const { workflowId } = wf.workflowInfo();
    const approvals = allPendingApprovals(run);
    const questions = pendingQuestions(run, workflowId);
    // Decided once, when a question first waits: a run from before this signals only when its approvals change.
    if (!reportsQuestions && questions.length > 0) reportsQuestions = wf.patched(NESTED_QUESTIONS_PATCH);
    const key = reportsQuestions ? `${approvalsKey(approvals)}\n\n${questionsKey(questions)}` : approvalsKey(approvals);
    if (key === reported) return;
    reported = key;
    const report = { workflowId, approvals, ...(reportsQuestions ? { questions } : {}) };
    // Not cancellable: a run that is stopping still withdraws what it asked for. A parent that has ended needs no news.
    wf.CancellationScope.nonCancellable(() =>
      wf.getExternalWorkflowHandle(parentWorkflowId).signal(nestedApprovalsSignal, report),
    ).catch(() => undefined);
  };
}

/** The MCP questions the run waits on, its own (named by its id) and its running nested agents'. */
function pendingQuestions(run: RunRecord, workflowId: string): NestedQuestion[] {
  const own = run.elicitations.map(({ id, callId, server, question, askedAt }) => ({
    workflowId,
    callId,
    elicitationId: id,
    server,
    question,
    askedAt,
  }));
  return run.nestedRuns.size === 0 ? own : [...own, ...listedNestedQuestions(run.nestedRuns)];
}

/**
 * A decision on a call a nested agent waits on, forwarded to the run that waits (which records it, or logs
 * why it refused it, as for any decision it gets). Undefined when no nested agent waits on `callId`: the run
 * decides it itself. What it returns is the decision as forwarded, for the `decide` update's answer.
 */
export function forwardDecision(
  run: RunRecord,
  input: Partial<DecideInput> | undefined,
  via: 'signal' | 'update',
): ApprovalDecision | undefined {
  const route = routeDecision(input?.callId, run.nestedRuns);
  if (route === undefined || input?.decision === undefined) return undefined;
  const child = wf.getExternalWorkflowHandle(route.workflowId);
  const sent =
    input.decision === 'approve'
      ? child.signal(approveSignal, {
          callId: route.callId,
          ...(input.arguments === undefined ? {} : { arguments: input.arguments }),
          ...(input.by === undefined ? {} : { by: input.by }),
        })
      : child.signal(denySignal, {
          callId: route.callId,
          ...(input.reason === undefined ? {} : { reason: input.reason }),
          ...(input.by === undefined ? {} : { by: input.by }),
        });
  // The child may have ended meanwhile: its call is then decided already, and there is nothing to forward to.
  sent.catch(() => undefined);
  const callId = input.callId ?? '';
  run.events.append('nested-approval-forward', { callId, workflowId: route.workflowId, decision: input.decision });
  // As forwarded, unchecked: the nested agent checks it and records it or logs why it refused it.
  return approvalDecisionOf(
    { callId, decision: input.decision, arguments: input.arguments, reason: input.reason, by: input.by },
    route.approval,
    via,
  );
}
