import * as wf from '@temporalio/workflow';
import { approveSignal, denySignal, nestedApprovalsSignal } from '../../../common/definitions';
import { type ApprovalDecision, type DecideInput } from '../../../shared/control';
import { approvalsKey, routeDecision } from '../../rules/nested-approvals';
import { allPendingApprovals, type RunRecord } from '../run-record';
import { approvalDecisionOf } from './await-approval';

/**
 * Nested agents' approvals, decided from the top: a nested agent's run tells
 * its parent what it waits on (`nestedApprovalsSignal`), and the parent
 * forwards a decision on one of those calls to it (`approve`/`deny`).
 */

/**
 * Reports a nested agent's pending approvals (its own and its children's) to its parent whenever the list
 * changes; call it where the run publishes. Only a nested agent reports: a run without a parent issues no
 * command it did not issue before.
 */
export function createApprovalReporter(parentWorkflowId: string): (run: RunRecord) => void {
  let reported = '';
  return (run) => {
    const approvals = allPendingApprovals(run);
    const key = approvalsKey(approvals);
    if (key === reported) return;
    reported = key;
    const { workflowId } = wf.workflowInfo();
    // Not cancellable: a run that is stopping still withdraws what it asked for. A parent that has ended needs no news.
    wf.CancellationScope.nonCancellable(() =>
      wf.getExternalWorkflowHandle(parentWorkflowId).signal(nestedApprovalsSignal, { workflowId, approvals }),
    ).catch(() => undefined);
  };
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
