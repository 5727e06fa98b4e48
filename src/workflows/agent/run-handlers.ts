import * as wf from '@temporalio/workflow';
import {
  FailureType,
  approveSignal,
  decideUpdate,
  denySignal,
  eventsQuery,
  modelRequestQuery,
  setLimitsUpdate,
  stateQuery,
  stopSignal,
  terminateSignal,
  transcriptQuery,
  userMessageSignal,
  MESSAGE_PAGES,
} from '../../shared';
import { messagePage } from '../rules/message-pages';
import { segmentPage } from '../rules/transcript-segment';
import { checkDecision } from '../rules/approval-rules';
import { decideFromSignal, recordDecision, type ToolSchemaLookup } from './steps/await-approval';
import { applyLimitChange } from '../rules/limit-rules';
import { messageTooDeep, reasonOf } from '../rules/message-bounds';
import { isFinished, snapshot, type RunRecord } from './run-record';

/**
 * Sets the run's query, signal and update handlers. Call it before the
 * workflow's first await, so no message is ever dropped. Every handler is
 * synchronous: it only changes `run` (and cancels `loopScope` on terminate).
 */
export function registerRunHandlers(run: RunRecord, loopScope: wf.CancellationScope, toolSchemaFor: ToolSchemaLookup): void {
  wf.setHandler(stateQuery, () => snapshot(run));
  wf.setHandler(eventsQuery, (query) => run.events.page(query?.after, query?.limit));
  wf.setHandler(transcriptQuery, (query) =>
    segmentPage(run.messages, run.segment, query?.from, query?.limit, wf.workflowInfo().continuedFromExecutionRunId),
  );
  wf.setHandler(modelRequestQuery, (query) => {
    const request = run.modelRequest;
    if (request === undefined || request.iteration !== query?.iteration) {
      throw new Error(`No model call of iteration ${String(query?.iteration)} is waiting for its conversation (now: ${request === undefined ? 'none' : `iteration ${request.iteration}`}).`);
    }
    return messagePage(request.messages, query.from, MESSAGE_PAGES.maxLimit);
  });
  wf.setHandler(approveSignal, (input) =>
    decideFromSignal(run, toolSchemaFor, { callId: input?.callId, decision: 'approve', arguments: input?.arguments }),
  );
  wf.setHandler(denySignal, (input) =>
    decideFromSignal(run, toolSchemaFor, { callId: input?.callId, decision: 'deny', reason: input?.reason }),
  );
  wf.setHandler(decideUpdate, (input) => recordDecision(run, input, 'update'), {
    validator: (input) => {
      const checked = checkDecision(input, run.pendingApprovals, run.decisions, toolSchemaFor);
      if (!checked.ok) throw wf.ApplicationFailure.create({ type: FailureType.invalidDecision, message: checked.problem, nonRetryable: true });
    },
  });
  wf.setHandler(userMessageSignal, (input) => {
    const content = typeof input?.content === 'string' ? input.content : '';
    if (isFinished(run) || content.trim() === '') {
      run.events.append('user-message-rejection', { reason: isFinished(run) ? 'the run has ended' : 'empty content' });
      return;
    }
    run.inbox.push(content);
    run.events.append('user-message', { content });
  });
  wf.setHandler(stopSignal, (input) => {
    if (isFinished(run) || run.externalStopRequested) return;
    run.externalStopRequested = true;
    run.events.append('stop-request', { reason: reasonOf(input) ?? null });
  });
  wf.setHandler(terminateSignal, (input) => {
    if (isFinished(run) || run.stopRequest !== undefined) return;
    const reason = reasonOf(input);
    run.stopRequest = { kind: 'signal', ...(reason === undefined ? {} : { reason }) };
    run.events.append('terminate-request', { reason: reason ?? null });
    loopScope.cancel();
  });
  wf.setHandler(
    setLimitsUpdate,
    (input) => {
      const change = applyLimitChange(input, run.limits, run.invocations);
      if (!change.ok) throw invalidLimits(change.problem);
      run.events.append('limits-change', { before: run.limits, after: change.limits });
      run.limits = change.limits;
      return run.limits;
    },
    {
      validator: (input) => {
        const tooDeep = messageTooDeep(input);
        if (tooDeep !== undefined) throw invalidLimits(tooDeep);
        if (isFinished(run)) throw invalidLimits(`The run has ended (${run.status}); its limits can no longer change.`);
        const change = applyLimitChange(input, run.limits, run.invocations);
        if (!change.ok) throw invalidLimits(change.problem);
      },
    },
  );
}

function invalidLimits(problem: string): wf.ApplicationFailure {
  return wf.ApplicationFailure.create({ type: FailureType.invalidLimits, message: problem, nonRetryable: true });
}
