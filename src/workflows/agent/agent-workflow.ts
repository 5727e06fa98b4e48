import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import * as wf from '@temporalio/workflow';
import { FailureType, jsonBytes, parseAgentInput, type AgentResult } from '../../shared';
import { turnPolicyFor } from '../rules/model-turn';
import { effectiveMaxInvocations } from '../rules/run-setup';
import { userMessage } from './conversation-messages';
import { handOverTooLarge, invalidAgentInput, partialRun, type PartialRun } from './failures';
import { runIteration } from './iteration';
import type { RunContext } from './run-context';
import { continuationOf, fitHandOver, inputToValidate, inputWithoutConversation, resumedRunRecord, type RunContinuation } from './run-continuation';
import { readHandOver } from './run-arguments';
import { registerRunHandlers } from './run-handlers';
import { createRunRecord, createSearchAttributePublisher, describeActivity, isFinished, lastAssistantText, type RunRecord } from './run-record';
import { RunEnded, type StepOutcome } from './step-outcome';
import { awaitAnswer } from './steps/await-answer';
import { cancellationReason, finishRun } from './steps/finish-run';
import { loadTools } from './steps/load-tools';
import { closeOpenBatch } from './steps/run-tool-batch';

/**
 * Marks runs started with the size guards and continue-as-new. A run started
 * before them replays without them: checking sizes, or handing over, where
 * its history shows a model call would break its replay.
 */
export const SIZE_GUARDS_PATCH = 'size-guards-and-continue-as-new';

/** Marks runs whose tool calls carry runner ids; a run started before keyed them by the model's ids. */
export const RUNNER_CALL_IDS_PATCH = 'runner-call-ids';

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

  /** Records the run as failed (state, event, search attributes) and fails the workflow with `failure`. */
  const fail = (failure: wf.ApplicationFailure): never => {
    run.status = 'failed';
    run.error = { type: failure.type ?? FailureType.untyped, message: failure.message };
    run.events.append('run-end', { status: 'failed', error: run.error });
    describeActivity(run, `failed: ${failure.message}`);
    publish(run);
    throw failure;
  };
  const partial = (): PartialRun => partialRun(run.messages, run.usage, run.iteration);

  if (!parsed.ok) return fail(invalidAgentInput(parsed.problems));
  const input = parsed.input;
  const context: RunContext = { run, input, publish, partial, guarded, runnerCallIds };
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

  try {
    // Inside the loop's scope, as the loop itself: a terminate that arrives while the run hands over is still a terminate.
    return await loopScope.run(async () => settle(await loop()));
  } catch (error) {
    // A failure decided where a step could not return it (inside a parallel batch of tool calls).
    if (error instanceof RunEnded) return settle(error.outcome);
    if (!wf.isCancellation(error)) throw error;
    // Stopped by the `terminate` signal or by Temporal's cancel request: close the
    // open batch with valid tool messages and return what the run has.
    closeOpenBatch(run);
    run.pendingQuestion = undefined;
    return settle({ kind: 'finish', reason: cancellationReason(run, input), response: lastAssistantText(run) });
  }

  /** Iterates until a step decides the run ends (or continues as new), waiting for a person where one must answer. */
  async function loop(): Promise<Ending> {
    const loaded = await loadTools(context);
    if (loaded.kind === 'fail') return loaded;
    toolSchemas = new Map(loaded.tools.descriptions.map((tool) => [tool.name, tool.parameters]));
    const setup = { tools: loaded.tools, turnPolicy: turnPolicyFor(input), firstIteration };
    for (;;) {
      let outcome = await runIteration(context, setup);
      if (outcome.kind === 'wait_for_input') outcome = await awaitAnswer(context, outcome);
      if (outcome.kind !== 'run_again' && outcome.kind !== 'wait_for_input') return outcome;
    }
  }

  /** The one place a run ends: finished with its result, failed, or handed over to a new Temporal run. */
  async function settle(outcome: Ending): Promise<AgentResult> {
    switch (outcome.kind) {
      case 'finish': {
        const finished = await finishRun(context, outcome);
        return finished.kind === 'fail' ? settle(finished) : finished.result;
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
    const handOver = continuationOf(run, continuation?.continuations ?? 0, deadline);
    const fitted = fitHandOver(nextInput, handOver);
    if (fitted === undefined) return fail(handOverTooLarge(jsonBytes([nextInput, { ...handOver, events: { ...handOver.events, recent: [] } }]), partial()));
    return wf.continueAsNew<typeof agentWorkflow>(nextInput, fitted.continuation);
  }
}

/** How a run ends: the outcomes `settle` handles (the loop handles running again and waiting for input itself). */
type Ending = Extract<StepOutcome, { kind: 'finish' | 'fail' | 'continue_as_new' }>;
