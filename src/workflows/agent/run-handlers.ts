import * as wf from '@temporalio/workflow';
import { FailureType } from '../../shared/failure-catalogue';
import {
  answerElicitationUpdate,
  approveSignal,
  decideUpdate,
  denySignal,
  eventsQuery,
  mcpElicitationAnswerQuery,
  mcpElicitationSignal,
  mcpSamplingSignal,
  modelRequestQuery,
  nestedApprovalsSignal,
  setLimitsUpdate,
  stateQuery,
  stopSignal,
  terminateSignal,
  transcriptQuery,
  userMessageSignal,
} from '../../workflow-contract/definitions';
import { decideInputSchema } from '../../shared/control';
import { MESSAGE_PAGES } from '../../shared/defaults/sizes';
import { messagePage } from '../rules/message-pages';
import { segmentPage } from '../rules/transcript-segment';
import { checkDecision } from '../rules/approval-rules';
import { decideFromSignal, recordDecision, type ToolSchemaLookup } from './steps/await-approval';
import { forwardDecision } from './steps/nested-approvals';
import { readNestedApprovals, routeDecision } from '../rules/nested-approvals';
import { readNestedQuestions } from '../rules/nested-questions';
import { applyLimitChange } from '../rules/limit-rules';
import {
  answerElicitation,
  answerElicitationByUpdate,
  checkElicitationAnswer,
  elicitationAnswer,
  receiveElicitation,
} from './steps/mcp-elicitations';
import { receiveSamplingUsage } from './steps/mcp-sampling';
import { messageTooDeep, reasonOf } from '../rules/message-bounds';
import { isFinished, snapshot, type RunRecord } from './run-record';
import { receiveUserMessage, requestGracefulStop, requestTermination, setRunLimits } from './run-transitions';

/** Runs that record it answer an MCP server's question only through `answerElicitation`, never a `userMessage`. */
const ELICITATION_ANSWER_PATCH = 'mcp-elicitation-answer-update';

/**
 * Sets the run's query, signal and update handlers. Call it before the
 * workflow's first await, so no message is ever dropped. Every handler is
 * synchronous: it only changes `run` (and cancels `loopScope` on terminate).
 */
export function registerRunHandlers(
  run: RunRecord,
  loopScope: wf.CancellationScope,
  toolSchemaFor: ToolSchemaLookup,
  /** Called when what the run's nested agents wait on changed: the run publishes it (and reports it up, if nested). */
  nestedApprovalsChanged: () => void = () => undefined,
  /** Publishes the run's search attributes (an MCP server's question changes its status). */
  publishRun: () => void = () => undefined,
): void {
  wf.setHandler(stateQuery, () => snapshot(run));
  wf.setHandler(eventsQuery, (query) => run.events.page(query?.after, query?.limit));
  wf.setHandler(transcriptQuery, (query) =>
    segmentPage(run.messages, run.segment, query?.from, query?.limit, wf.workflowInfo().continuedFromExecutionRunId),
  );
  wf.setHandler(modelRequestQuery, (query) => {
    const request = run.modelRequest;
    if (request === undefined || request.iteration !== query?.iteration) {
      throw new Error(
        `No model call of iteration ${String(query?.iteration)} is waiting for its conversation (now: ${request === undefined ? 'none' : `iteration ${request.iteration}`}).`,
      );
    }
    return messagePage(request.messages, query.from, MESSAGE_PAGES.maxLimit);
  });
  // A call a nested agent waits on is decided by forwarding the decision to it; any other, here.
  wf.setHandler(approveSignal, (input) => {
    const decision = {
      callId: input?.callId,
      decision: 'approve' as const,
      arguments: input?.arguments,
      by: input?.by,
    };
    if (forwardDecision(run, decision, 'signal') === undefined) decideFromSignal(run, toolSchemaFor, decision);
  });
  wf.setHandler(denySignal, (input) => {
    const decision = { callId: input?.callId, decision: 'deny' as const, reason: input?.reason, by: input?.by };
    if (forwardDecision(run, decision, 'signal') === undefined) decideFromSignal(run, toolSchemaFor, decision);
  });
  wf.setHandler(nestedApprovalsSignal, (input) => {
    const report = readNestedApprovals(input, run.nestedRuns);
    const nested = report === undefined ? undefined : run.nestedRuns.get(report.workflowId);
    if (report === undefined || nested === undefined) return;
    nested.approvals = report.approvals;
    const questions = readNestedQuestions((input as { questions?: unknown }).questions, report.workflowId);
    if (questions !== undefined) nested.questions = questions;
    nestedApprovalsChanged();
  });
  wf.setHandler(
    decideUpdate,
    (input) => forwardDecision(run, input, 'update') ?? recordDecision(run, input, 'update'),
    {
      validator: (input) => {
        if (routeDecision(input?.callId, run.nestedRuns) !== undefined) {
          // The nested agent's run checks the decision against its tool; here only its shape.
          const problem =
            messageTooDeep(input) ??
            (decideInputSchema.safeParse(input).success
              ? undefined
              : 'expected { callId, decision: "approve" | "deny", arguments?, reason?, by? }');
          if (problem !== undefined)
            throw wf.ApplicationFailure.create({
              type: FailureType.invalidDecision,
              message: problem,
              nonRetryable: true,
            });
          return;
        }
        const checked = checkDecision(input, run.pendingApprovals, run.decisions, toolSchemaFor);
        if (!checked.ok)
          throw wf.ApplicationFailure.create({
            type: FailureType.invalidDecision,
            message: checked.problem,
            nonRetryable: true,
          });
      },
    },
  );
  wf.setHandler(userMessageSignal, (input) => {
    const content = typeof input?.content === 'string' ? input.content : '';
    if (isFinished(run) || content.trim() === '') {
      run.events.append('user-message-rejection', { reason: isFinished(run) ? 'the run has ended' : 'empty content' });
      return;
    }
    // Runs from before `answerElicitation` take the message as the answer to an MCP server's waiting question.
    if (run.elicitations.length > 0 && !wf.patched(ELICITATION_ANSWER_PATCH)) {
      if (answerElicitation(run, content, publishRun)) return;
    }
    receiveUserMessage(run, content);
    run.events.append('user-message', { content });
  });
  wf.setHandler(answerElicitationUpdate, (input) => answerElicitationByUpdate(run, input, publishRun), {
    validator: (input) => {
      const problem = messageTooDeep(input);
      const checked = problem === undefined ? checkElicitationAnswer(run, input) : { ok: false as const, problem };
      if (!checked.ok)
        throw wf.ApplicationFailure.create({
          type: FailureType.invalidAnswer,
          message: checked.problem,
          nonRetryable: true,
        });
    },
  });
  wf.setHandler(mcpElicitationSignal, (input) => receiveElicitation(run, input, publishRun));
  wf.setHandler(mcpSamplingSignal, (input) => receiveSamplingUsage(run, input));
  wf.setHandler(mcpElicitationAnswerQuery, (input) => elicitationAnswer(run, input?.id));
  wf.setHandler(stopSignal, (input) => {
    if (isFinished(run) || run.externalStopRequested) return;
    requestGracefulStop(run);
    run.events.append('stop-request', { reason: reasonOf(input) ?? null });
  });
  wf.setHandler(terminateSignal, (input) => {
    if (isFinished(run) || run.stopRequest !== undefined) return;
    const reason = reasonOf(input);
    requestTermination(run, { kind: 'signal', ...(reason === undefined ? {} : { reason }) });
    run.events.append('terminate-request', { reason: reason ?? null });
    loopScope.cancel();
  });
  wf.setHandler(
    setLimitsUpdate,
    (input) => {
      const change = applyLimitChange(input, run.limits, run.invocations);
      if (!change.ok) throw invalidLimits(change.problem);
      run.events.append('limits-change', { before: run.limits, after: change.limits });
      setRunLimits(run, change.limits);
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
