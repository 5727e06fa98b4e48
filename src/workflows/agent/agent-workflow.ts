import { closedRunRecord } from './closed-run-record';
import { CLOSED_RUN_DETAIL_KEY } from '../../shared/closed-run';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '../../shared/duration';
import * as wf from '@temporalio/workflow';
import { FailureType } from '../../shared/failure-catalogue';
import { jsonBytes } from '../../shared/payload-limits';
import { parseAgentInput, treePosition, type AgentInput } from '../../shared/agent-input';
import { type AgentWorkflowResult } from '../../shared/result-answer';
import { type ModelCallResult } from '../../shared/activity-types';
import { flaggedCalls } from '../rules/call-identity';
import { turnPolicyFor } from '../rules/model-turn';
import { effectiveMaxInvocations } from '../rules/run-setup';
import { userMessage } from './conversation-messages';
import { type PartialRun } from '../../shared/failure-catalogue';
import { failedCallUsage, continueAsNewTooLarge, invalidAgentInput, modelCallFailed, partialRun } from './failures';
import type { RunContext } from './run-context';
import {
  canLeaveSummarisedBehind,
  continueAsNewStateOf,
  fitContinueAsNewState,
  inputToValidate,
  inputWithoutConversation,
  resumedRunRecord,
  type ContinueAsNewState,
} from './continue-as-new-state';
import { readContinueAsNewState } from './run-arguments';
import { transcriptTotal } from '../rules/transcript-segment';
import { registerRunHandlers } from './run-handlers';
import { runVersioningOptions } from './run-versioning';
import {
  createRunRecord,
  createSearchAttributePublisher,
  describeActivity,
  isFinished,
  lastAssistantText,
  type RunRecord,
  runUsage,
} from './run-record';
import type { RunEnding, StepOutcome } from './step-outcome';
import { admitIteration } from './steps/admit-iteration';
import { afterToolBatch } from './steps/after-tool-batch';
import { applyCompaction } from './steps/apply-compaction';
import { applyLoopDetection } from './steps/apply-loop-detection';
import { awaitAnswer } from './steps/await-answer';
import { callModel, contextForModel, recordModelResponse } from './steps/call-model';
import { catalogWorkerSettings } from './steps/load-tools';
import { createApprovalReporter } from './steps/nested-approvals';
import { cancellationReason, finishRun, runResult } from './steps/finish-run';
import { chooseRunTools, loadToolCatalog } from './steps/load-tools';
import { closeOpenBatch, runToolBatch } from './steps/run-tool-batch';
import { takeModelAnswer } from './steps/take-model-answer';
import { cutToolCalls } from './steps/cut-tool-calls';
import {
  addRunUsage,
  markFailed,
  markInputSettled,
  requestTermination,
  setRunLimits,
  startConversation,
  startFork,
} from './run-transitions';
import { endCallElicitations } from './steps/mcp-elicitations';

/**
 * One agent run: call the model, run its tool calls, repeat until it answers, a terminating tool runs, a limit
 * fails the run or it is stopped; this function only sequences the steps and rules.
 *
 * Callers see `(input: AgentInput)`; a continued Temporal run also gets the {@link ContinueAsNewState}, and a caller
 * passing more fails with `InvalidAgentInput`. Both arguments are parsed as untrusted.
 */
export function agentWorkflow(input: AgentInput): Promise<AgentWorkflowResult>;
export async function agentWorkflow(rawInput: unknown, ...afterInput: unknown[]): Promise<AgentWorkflowResult> {
  // Read before anything uses it: a caller's extra argument is no continue-as-new state, and a malformed one fails the run, not its task.
  const arrived = readContinueAsNewState(afterInput, wf.workflowInfo().continuedFromExecutionRunId !== undefined);
  const continuation: ContinueAsNewState | undefined = arrived.ok ? arrived.continuation : undefined;
  const run: RunRecord = continuation === undefined ? createRunRecord() : resumedRunRecord(continuation);
  const publishAttributes = createSearchAttributePublisher();
  /** Set once the input says the run is a nested agent: it then reports its pending approvals to its parent. */
  let reportApprovals: ((run: RunRecord) => void) | undefined;
  const publish = (record: RunRecord): void => {
    publishAttributes(record);
    reportApprovals?.(record);
  };
  const loopScope = new wf.CancellationScope();
  /** Tool schemas by name, once the catalog is loaded; decisions are checked against them. */
  let toolSchemas = new Map<string, Record<string, unknown>>();

  const parsed = arrived.ok
    ? parseAgentInput(continuation === undefined ? rawInput : inputToValidate(rawInput))
    : arrived;
  // The input's limits are in place before any handler can run: a setLimits update that arrives
  // with the start is applied in the same activation and must change them, not be overwritten.
  // A continued run keeps the limits it had, changes included.
  if (parsed.ok && continuation === undefined) {
    setRunLimits(run, {
      maxInvocations: effectiveMaxInvocations(parsed.input),
      tokenBudget: parsed.input.tokenBudget ?? {},
    });
  }

  // Every handler is set before the first await, so no message is ever dropped.
  registerRunHandlers(
    run,
    loopScope,
    (name) => toolSchemas.get(name),
    () => publish(run),
    () => publish(run),
  );

  /** Records the run as failed (state, event, search attributes) and fails the workflow with `failure`. */
  const fail = (failure: wf.ApplicationFailure): never => {
    // A second failure in the same moment (two approvals timing out together) only throws: the run has ended once.
    if (run.status === 'failed') throw failure;
    const error = { type: failure.type ?? FailureType.untyped, message: failure.message };
    markFailed(run, error);
    run.events.append('run-end', { status: 'failed', error, usage: runUsage(run) });
    describeActivity(run, `failed: ${failure.message}`);
    publish(run);
    // Its readers' record goes last: callers read what the run had done from the first detail.
    const details = failure.details ?? [];
    const record = closedRunRecord(run, [failure.message, details]);
    (failure as { details?: unknown[] | null }).details = [...details, { [CLOSED_RUN_DETAIL_KEY]: record }];
    throw failure;
  };
  const partial = (): PartialRun => partialRun(run.messages, runUsage(run), run.iteration);

  if (!parsed.ok) return fail(invalidAgentInput(parsed.problems));
  const input = parsed.input;
  // Only a nested agent (depth 1 or more, started by a parent run) reports: other runs issue the commands they always did.
  const parentRun = wf.workflowInfo().parent;
  if (parentRun !== undefined && treePosition(input).depth > 0)
    reportApprovals = createApprovalReporter(parentRun.workflowId);
  // Workflow time stands still within an activation: reading it before the context is reading it where it was.
  const startedAt = new Date().getTime();
  const deadline =
    continuation?.deadline ??
    (input.timeout === undefined
      ? undefined
      : new Date(startedAt + msToNumber(input.timeout as Duration)).toISOString());
  const context: RunContext = { run, input, publish, fail, partial, deadline };
  if (continuation === undefined)
    run.events.append('run-start', {
      tools: input.tools,
      model: input.model ?? null,
      ...(input.forkedFrom === undefined ? {} : { forkedFrom: input.forkedFrom }),
    });
  else run.events.append('run-take-over', { iteration: run.iteration, temporalRuns: continuation.continuations + 1 });
  publish(run);

  if (input.timeout !== undefined) {
    const limit = input.timeout;
    // A durable timer outside the loop's scope: when it fires, the loop is cancelled like a terminate.
    // A continued run waits only for what is left of the first run's deadline.
    const wait = continuation === undefined ? (limit as Duration) : Math.max(1, Date.parse(deadline ?? '') - startedAt);
    wf.sleep(wait).then(
      () => {
        if (isFinished(run) || run.stopRequest !== undefined) return;
        requestTermination(run, { kind: 'timeout' });
        run.events.append('run-timeout', { limit });
        loopScope.cancel();
      },
      () => undefined, // the workflow itself was cancelled; the loop's own handling applies
    );
  }

  if (continuation === undefined) {
    startConversation(run, input.messages ?? [], input.message === undefined ? undefined : userMessage(input.message));
    if (input.forkedFrom !== undefined) startFork(run, input.forkedFrom.iteration);
  }
  const firstIteration = run.iteration;

  try {
    return await loopScope.run(() => loop());
  } catch (error) {
    if (!wf.isCancellation(error)) throw error;
    // Stopped by the `terminate` signal or by Temporal's cancel request: close the
    // open batch with valid tool messages and return what the run has.
    closeOpenBatch(run);
    endCallElicitations(run, undefined, () => undefined);
    markInputSettled(run);
    return settle({ kind: 'finish', reason: cancellationReason(run, input), response: lastAssistantText(run) });
  }

  /**
   * The loop: call the model, do what its answer says, repeat, until a step
   * decides how the run ends. It awaits only activities and waits for a
   * person; every step between them is synchronous, so an ending is settled
   * in the same turn it is decided (see `step-outcome.ts`).
   */
  async function loop(): Promise<AgentWorkflowResult> {
    const catalog = await loadToolCatalog(context);
    context.worker = catalogWorkerSettings(catalog);
    const loaded = chooseRunTools(context, catalog);
    if (loaded.kind === 'fail') return settle(loaded);
    const tools = loaded.tools;
    toolSchemas = new Map(tools.descriptions.map((tool) => [tool.name, tool.parameters]));
    const turnPolicy = turnPolicyFor(input);

    for (;;) {
      const admitted = admitIteration(context, firstIteration);
      if (admitted !== undefined) return settle(admitted);

      run.iteration += 1;
      run.events.append('iteration-start', {
        iteration: run.iteration,
        messages: transcriptTotal(run.messages, run.segment),
      });
      describeActivity(run, `iteration ${run.iteration}: calling the model`);
      // Awaited only when the run compacts: without it the loop issues the commands it always did.
      const compacting = applyCompaction(context);
      const compacted = compacting === undefined ? undefined : await compacting;
      if (compacted !== undefined) return settle(compacted);
      let response: ModelCallResult;
      try {
        response = await callModel(context, contextForModel(context));
      } catch (error) {
        if (wf.isCancellation(error)) throw error;
        // What its attempts spent before they failed is the run's too (the run ends here, so no later decision changes).
        const spent = failedCallUsage(error);
        if (spent !== undefined) addRunUsage(run, spent);
        return settle({ kind: 'fail', failure: modelCallFailed(error, partial()) });
      }
      const assistant = recordModelResponse(context, response);

      const answer = takeModelAnswer(context, turnPolicy, assistant, response.finishReason);
      let outcome: StepOutcome;
      if (answer.kind === 'run_tools') {
        const loops = applyLoopDetection(context, answer.calls, assistant.content ?? '');
        if (loops.stop !== undefined) return settle(loops.stop);
        const flagged = flaggedCalls(assistant, response.approvalRequired ?? []);
        const batch = await runToolBatch(
          context,
          tools,
          assistant,
          answer.calls,
          flagged,
          cutToolCalls(response.finishReason, answer.calls),
        );
        outcome = afterToolBatch(context, batch, loops.warnings);
      } else {
        outcome = answer;
      }
      if (outcome.kind === 'wait_for_input') outcome = await awaitAnswer(context, outcome);
      if (outcome.kind !== 'run_again') return settle(outcome);
    }
  }

  /**
   * The one place a run ends: finished with its result, failed, or handed
   * over to a new Temporal run. Synchronous up to its first wait, so the
   * ending is recorded in the turn it was decided.
   */
  function settle(outcome: RunEnding): Promise<AgentWorkflowResult> {
    switch (outcome.kind) {
      case 'finish': {
        const ending = runResult(context, outcome);
        return ending.kind === 'fail' ? settle(ending) : finishRun(context, ending.result);
      }
      case 'fail':
        return fail(outcome.failure);
      case 'continue_as_new':
        return continueAsNew();
    }
  }

  /** Hands the run to a new Temporal run with the same id, so its history starts small again. */
  async function continueAsNew(): Promise<never> {
    describeActivity(run, `continuing as new after iteration ${run.iteration}`);
    await wf.condition(wf.allHandlersFinished);
    run.events.append('run-hand-over', { iteration: run.iteration, historyBytes: wf.workflowInfo().historySize });
    const nextInput = inputWithoutConversation(rawInput);
    const outgoing = continueAsNewStateOf(
      run,
      continuation?.continuations ?? 0,
      deadline,
      canLeaveSummarisedBehind(context) ? wf.workflowInfo().runId : undefined,
    );
    const fitted = fitContinueAsNewState(nextInput, outgoing);
    if (fitted === undefined)
      return fail(
        continueAsNewTooLarge(
          jsonBytes([nextInput, { ...outgoing, events: { ...outgoing.events, recent: [] } }]),
          partial(),
        ),
      );
    return wf.continueAsNew<(input: unknown, outgoing: ContinueAsNewState) => Promise<AgentWorkflowResult>>(
      nextInput,
      fitted.continuation,
    );
  }
}

// A run's versioning behaviour (`startAgentRun`'s `versioning`) holds for each of its Temporal runs.
wf.setWorkflowOptions(runVersioningOptions, agentWorkflow);
