import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import * as wf from '@temporalio/workflow';
import {
  INJECTION_EVENT_TYPES,
  jsonBytes,
  parseAgentInput,
  type AgentActivities,
  type AgentResult,
  type ChatMessage,
  type TerminationReason,
} from '../../shared';
import { awaitAnswer } from './steps/await-answer';
import { flaggedCalls } from '../rules/call-identity';
import { stopConditionRegistry } from '../rules/custom-stop-conditions';
import {
  handOverTooLarge,
  invalidAgentInput,
  maxConsecutiveNudgesExceeded,
  maxInvocationsExceeded,
  modelCallFailed,
  partialRun,
  sizeLimitReached,
  tokenBudgetExhausted,
  unknownTools,
  type PartialRun,
} from './failures';
import { findLimitBreach } from '../rules/limit-rules';
import { callModel, contextForModel, recordModelResponse } from './steps/call-model';
import { decideModelTurn } from '../rules/model-turn';
import { checkBreaker, checkRunSize, checkStopConditions, detectLoops } from './steps/run-checks';
import type { RunContext } from './run-context';
import {
  continuationOf,
  fitHandOver,
  inputToValidate,
  inputWithoutConversation,
  resumedRunRecord,
  shouldContinueAsNew,
  type RunContinuation,
} from './run-continuation';
import { cancellationReason, finishRun, lastAssistantText } from './steps/finish-run';
import { readHandOver } from './run-arguments';
import { registerRunHandlers } from './run-handlers';
import { createRunRecord, createSearchAttributePublisher, describeActivity, isFinished, type RunRecord } from './run-record';
import { effectiveMaxInvocations, nudgeInjectionFor, selectRunTools, turnPolicyFor } from '../rules/run-setup';
import { validateStopCondition } from '../rules/stop-conditions';
import { closeOpenBatch, runToolBatch } from './steps/run-tool-batch';
import { toolMessagesFor } from '../rules/transcript';

const catalogActivities = wf.proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});

/**
 * Marks runs started with the size guards and continue-as-new. A run started
 * before them replays without them: checking sizes, or handing over, where
 * its history shows a model call would break its replay.
 */
export const SIZE_GUARDS_PATCH = 'size-guards-and-continue-as-new';

/** Marks runs whose tool calls carry runner ids; a run started before keyed them by the model's ids. */
export const RUNNER_CALL_IDS_PATCH = 'runner-call-ids';

/** The result of a call not executed because the run stopped before it (loop detection). */
const NOT_EXECUTED_RESULT = 'Not executed: the run stopped before this call ran.';

/**
 * One agent run: call the model, execute its tool calls, repeat, until the
 * model answers, a terminating tool is called, a limit fails the run, or the
 * run is stopped from outside. Every rule it applies is a pure function in
 * its own file, and every step a function of the run's {@link RunContext};
 * this function only sequences them. A long run continues as new between
 * iterations, and the second argument is what the previous Temporal run
 * handed over ({@link RunContinuation}); callers start a run with its input
 * alone, and a run started with more fails at once with `InvalidAgentInput`.
 */
export async function agentWorkflow(rawInput: unknown, ...afterInput: unknown[]): Promise<AgentResult> {
  // Read before anything uses it: a caller's extra argument is no hand-over, and a malformed one fails the run, not its task.
  const handOver = readHandOver(afterInput, wf.workflowInfo().continuedFromExecutionRunId !== undefined);
  const continuation: RunContinuation | undefined = handOver.ok ? handOver.continuation : undefined;
  const run: RunRecord = continuation === undefined ? createRunRecord() : resumedRunRecord(continuation);
  const publish = createSearchAttributePublisher();
  const loopScope = new wf.CancellationScope();
  /** Tool schemas by name, once the catalog is loaded; decisions are checked against them. */
  let toolSchemas = new Map<string, Record<string, unknown>>();

  const parsed = handOver.ok ? parseAgentInput(continuation === undefined ? rawInput : inputToValidate(rawInput)) : handOver;
  // Before any await, as `patched` requires; a continued run is new code by definition.
  const guarded = continuation !== undefined || wf.patched(SIZE_GUARDS_PATCH);
  const runnerCallIds = wf.patched(RUNNER_CALL_IDS_PATCH);
  // The input's limits are in place before any handler can run: a setLimits update that arrives
  // with the start is applied in the same activation and must change them, not be overwritten.
  // A continued run keeps the limits it had, changes included.
  if (parsed.ok && continuation === undefined) {
    run.limits = { maxInvocations: effectiveMaxInvocations(parsed.input), tokenBudget: parsed.input.tokenBudget ?? {} };
  }

  // Every handler is set before the first await, so no message is ever dropped.
  registerRunHandlers(run, loopScope, (name) => toolSchemas.get(name));

  const fail = (failure: wf.ApplicationFailure): never => {
    run.status = 'failed';
    run.error = { type: failure.type ?? 'Error', message: failure.message };
    run.events.append('run-end', { status: 'failed', error: run.error });
    describeActivity(run, `failed: ${failure.message}`);
    publish(run);
    throw failure;
  };
  const partial = (): PartialRun => partialRun(run.messages, run.usage, run.iteration);

  if (!parsed.ok) return fail(invalidAgentInput(parsed.problems));
  const input = parsed.input;
  const context: RunContext = { run, input, publish, fail, partial, guarded, runnerCallIds };
  if (continuation === undefined) run.events.append('run-start', { tools: input.tools, model: input.model ?? null });
  else run.events.append('run-take-over', { iteration: run.iteration, temporalRuns: continuation.continuations + 1 });
  publish(run);

  const startedAt = new Date().getTime();
  const deadline =
    continuation?.deadline ?? (input.timeout === undefined ? undefined : new Date(startedAt + msToNumber(input.timeout as Duration)).toISOString());
  if (input.timeout !== undefined) {
    const limit = input.timeout;
    // A durable timer outside the loop's scope: when it fires, the loop is cancelled like a terminate.
    // A continued run waits only for what is left of the first run's deadline.
    const wait = continuation === undefined ? (limit as Duration) : Math.max(1, Date.parse(deadline ?? '') - startedAt);
    wf.sleep(wait).then(
      () => {
        if (isFinished(run) || run.stopRequest !== undefined) return;
        run.stopRequest = { kind: 'timeout' };
        run.events.append('run-timeout', { limit });
        loopScope.cancel();
      },
      () => undefined, // the workflow itself was cancelled; the loop's own handling applies
    );
  }

  if (continuation === undefined) {
    const inputMessages = input.messages ?? [];
    run.messages = [...inputMessages, ...(input.message === undefined ? [] : [userMessage(input.message)])];
    run.inputMessageCount = inputMessages.length;
    run.turn = { ...run.turn, messageIndex: inputMessages.length };
  }
  const firstIteration = run.iteration;

  const finish = (reason: TerminationReason, response: string): Promise<AgentResult> => finishRun(context, reason, response);

  try {
    return await loopScope.run(() => loop());
  } catch (error) {
    if (!wf.isCancellation(error)) throw error;
    // Stopped by the `terminate` signal or by Temporal's cancel request: close the
    // open batch with valid tool messages and return what the run has.
    closeOpenBatch(run);
    run.pendingQuestion = undefined;
    return finish(cancellationReason(run, input), lastAssistantText(run));
  }

  async function loop(): Promise<AgentResult> {
    describeActivity(run, 'loading the tool catalog');
    const catalog = await catalogActivities.describeTools.executeWithOptions({ summary: 'tool catalog' }, []);
    const selected = selectRunTools(catalog.tools, input);
    if (!selected.ok) return fail(unknownTools(selected.unknown, selected.registered));
    const tools = selected.tools;
    toolSchemas = new Map(tools.descriptions.map((tool) => [tool.name, tool.parameters]));
    if (input.stopWhen !== undefined) {
      const problems = validateStopCondition(input.stopWhen, stopConditionRegistry, { tools: input.tools });
      if (problems.length > 0) return fail(invalidAgentInput(problems));
    }
    const nudgeInjection = nudgeInjectionFor(input);
    const turnPolicy = turnPolicyFor(input, nudgeInjection);

    for (;;) {
      // Messages a person sent meanwhile join the conversation before the model is called.
      for (const content of run.inbox.splice(0)) run.messages.push(userMessage(content));
      const breach = findLimitBreach(run.invocations, run.usage, run.limits);
      if (breach?.kind === 'invocations') return fail(maxInvocationsExceeded(breach.limit, partial()));
      if (breach?.kind === 'tokens') return fail(tokenBudgetExhausted(breach, partial()));
      if (guarded) {
        const iterationsThisRun = run.iteration - firstIteration;
        const tooLarge = checkRunSize(context);
        // A history too large is what continue-as-new is for; only a Temporal run that has not run an iteration fails on it.
        if (tooLarge?.kind === 'history' && iterationsThisRun >= 1) return continueAsNew();
        if (tooLarge !== undefined) return fail(sizeLimitReached(tooLarge, partial()));
        // Between iterations nothing waits for a decision or an answer: the place to hand over to a new Temporal run.
        if (shouldContinueAsNew(iterationsThisRun, input.iterationsPerRun, wf.workflowInfo().continueAsNewSuggested)) return continueAsNew();
      }

      run.iteration += 1;
      run.events.append('iteration-start', { iteration: run.iteration, messages: run.messages.length });
      describeActivity(run, `iteration ${run.iteration}: calling the model`);

      const modelMessages = contextForModel(context);
      let response;
      try {
        response = await callModel(context, modelMessages);
      } catch (error) {
        if (wf.isCancellation(error)) throw error;
        return fail(modelCallFailed(error, partial()));
      }
      const assistant = recordModelResponse(context, response);

      const afterResponse = checkStopConditions(context);
      if (afterResponse !== undefined) {
        run.messages.push(...toolMessagesFor(assistant.tool_calls ?? [], new Map(), run.iteration, NOT_EXECUTED_RESULT));
        return finish(afterResponse, lastAssistantText(run));
      }

      const outcome = decideModelTurn(assistant, run, turnPolicy);
      switch (outcome.kind) {
        case 'final_output':
          return finish({ type: 'complete' }, outcome.text);
        case 'restrict':
          run.restrictionInjections = outcome.restrictionInjections;
          inject(run, 'restriction', input.restrictOutput?.message ?? '');
          continue;
        case 'nudge':
          run.consecutiveNudges = outcome.consecutiveNudges;
          inject(run, nudgeInjection?.kind ?? 'nudge', nudgeInjection?.message ?? '');
          continue;
        case 'nudges_exceeded':
          run.consecutiveNudges = outcome.consecutiveNudges;
          return fail(maxConsecutiveNudgesExceeded(nudgeInjection?.consecutiveNudges ?? 0, partial()));
        case 'run_tools': {
          // A tool call starts a new turn: both counters begin again.
          run.consecutiveNudges = 0;
          run.restrictionInjections = 0;
          const loop = detectLoops(context, outcome.calls);
          if (loop.stop !== undefined) {
            run.messages.push(...toolMessagesFor(outcome.calls, new Map(), run.iteration, NOT_EXECUTED_RESULT));
            return finish(
              { type: 'loop_detected', toolName: loop.stop.toolName, count: loop.stop.count },
              assistant.content ?? '',
            );
          }
          const flagged = flaggedCalls(assistant, response.approvalRequired ?? []);
          const batch = await runToolBatch(context, tools, assistant, outcome.calls, flagged);
          if (batch.ending !== undefined) return finish(batch.ending.reason, batch.ending.response);
          for (const warning of loop.warnings) inject(run, 'loop_warning', warning);
          const trip = checkBreaker(context, batch.executed);
          if (trip !== undefined) return finish(trip.reason, trip.response);
          const afterTools = checkStopConditions(context);
          if (afterTools !== undefined) return finish(afterTools, lastAssistantText(run));
          const asked = batch.executed.find(({ result }) => result.waitForInput !== undefined);
          if (asked !== undefined) {
            const question = asked.result.waitForInput?.question ?? '';
            if (!(await awaitAnswer(context, asked.call.id, question))) {
              return finish({ type: 'input_timeout', question, limit: String(input.inputTimeout) }, question);
            }
          }
          continue;
        }
      }
    }
  }

  /** Hands the run to a new Temporal run with the same id, so its history starts small again. */
  async function continueAsNew(): Promise<never> {
    describeActivity(run, `continuing as new after iteration ${run.iteration}`);
    await wf.condition(wf.allHandlersFinished);
    run.events.append('run-hand-over', { iteration: run.iteration, historyBytes: wf.workflowInfo().historySize });
    const nextInput = inputWithoutConversation(rawInput);
    const handOver = continuationOf(run, continuation?.continuations ?? 0, deadline);
    const fitted = fitHandOver(nextInput, handOver);
    if (fitted === undefined) return fail(handOverTooLarge(jsonBytes([nextInput, { ...handOver, events: { ...handOver.events, recent: [] } }]), partial()));
    return wf.continueAsNew<typeof agentWorkflow>(nextInput, fitted.continuation);
  }
}

/** Adds a runner-authored system message, marked as injected, to the conversation. */
function inject(run: RunRecord, kind: 'nudge' | 'restriction' | 'loop_warning' | 'error_context', content: string): void {
  run.messages.push({ role: 'system', content, meta: { injected: kind, iteration: run.iteration } });
  run.events.append(INJECTION_EVENT_TYPES[kind], { iteration: run.iteration, consecutiveNudges: run.consecutiveNudges, restrictionInjections: run.restrictionInjections });
}

function userMessage(content: string): ChatMessage {
  return { role: 'user', content };
}
