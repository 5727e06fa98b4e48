import type { Duration } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import {
  ACTIVITY_DEFAULTS,
  DEFAULT_MAX_INVOCATIONS,
  SCHEMA_VERSION,
  addUsage,
  approveSignal,
  decideUpdate,
  denySignal,
  eventsQuery,
  parseAgentInput,
  setLimitsUpdate,
  stateQuery,
  stopSignal,
  terminateSignal,
  userMessageSignal,
  type AgentActivities,
  type AgentResult,
  type ApprovalDecision,
  type AssistantMessage,
  type ChatMessage,
  type ParsedAgentInput,
  type TerminationReason,
  type ToolCall,
  type ToolCallResult,
  type ToolDescription,
  type Usage,
  DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
  REQUIRE_TOOL_CALL_MESSAGE,
} from '../shared';
import { checkDecision, needsApproval } from './approval-rules';
import { stopConditionRegistry } from './custom-stop-conditions';
import { evaluateStopCondition, validateStopCondition, type StopVerdict } from './stop-conditions';
import { trackToolResult } from './circuit-breaker';
import {
  approvalTimedOut,
  invalidAgentInput,
  maxConsecutiveNudgesExceeded,
  maxInvocationsExceeded,
  modelCallFailed,
  tokenBudgetExhausted,
  unknownTools,
  type PartialRun,
} from './failures';
import { toGeneratedMessages } from './generated-messages';
import { applyLimitChange, findLimitBreach } from './limit-rules';
import { loopWarningMessage, trackToolCall, type LoopDetection } from './loop-detection';
import { maskObservations, toolNameLookup } from './observation-masking';
import { processToolResult } from './result-processing';
import { preview } from './event-log';
import { decideModelTurn, type TurnPolicy } from './model-turn';
import {
  createRunRecord,
  createSearchAttributePublisher,
  describeActivity,
  isFinished,
  refreshStatus,
  snapshot,
  type RunRecord,
} from './run-record';
import { parseArgumentsLeniently } from './tool-arguments';
import { keepToolCalls, planToolBatch } from './tool-batch';
import { describeToolFailure, summarizeToolCall, unknownToolResult } from './tool-results';
import { toolMessagesFor, withCallArguments } from './transcript';

const catalogActivities = wf.proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});

const modelActivities = wf.proxyActivities<AgentActivities>({
  startToCloseTimeout: ACTIVITY_DEFAULTS.modelCallTimeout,
  heartbeatTimeout: ACTIVITY_DEFAULTS.heartbeatTimeout,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: ACTIVITY_DEFAULTS.modelCallMaxAttempts,
  },
});

const toolActivities = wf.proxyActivities<AgentActivities>({
  startToCloseTimeout: ACTIVITY_DEFAULTS.toolCallTimeout,
  heartbeatTimeout: ACTIVITY_DEFAULTS.heartbeatTimeout,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: ACTIVITY_DEFAULTS.toolCallMaxAttempts,
  },
});

/** How one batch of tool calls ended the run, if it did. */
type BatchEnding = { reason: TerminationReason; response: string } | undefined;

/** The result of a call not executed because the run stopped before it (loop detection). */
const NOT_EXECUTED_RESULT = 'Not executed: the run stopped before this call ran.';

/**
 * One agent run: call the model, execute its tool calls, repeat, until the
 * model answers, a terminating tool is called, a limit fails the run, or the
 * run is stopped from outside. Every rule it applies is a pure function in
 * its own file; this function only sequences them.
 */
export async function agentWorkflow(rawInput: unknown): Promise<AgentResult> {
  const run: RunRecord = createRunRecord();
  const publish = createSearchAttributePublisher();
  const loopScope = new wf.CancellationScope();
  /** Tool schemas by name, once the catalog is loaded; decisions are checked against them. */
  let toolSchemas = new Map<string, Record<string, unknown>>();

  // Every handler is set before the first await, so no message is ever dropped.
  wf.setHandler(stateQuery, () => snapshot(run));
  wf.setHandler(eventsQuery, (query) => run.events.page(query?.after, query?.limit));
  wf.setHandler(approveSignal, (input) =>
    decideFromSignal({ callId: input?.callId, decision: 'approve', arguments: input?.arguments }),
  );
  wf.setHandler(denySignal, (input) => decideFromSignal({ callId: input?.callId, decision: 'deny', reason: input?.reason }));
  wf.setHandler(decideUpdate, (input) => recordDecision(input, 'update'), {
    validator: (input) => {
      const checked = checkDecision(input, run.pendingApprovals, run.decisions, (name) => toolSchemas.get(name));
      if (!checked.ok) throw wf.ApplicationFailure.create({ type: 'InvalidDecision', message: checked.problem, nonRetryable: true });
    },
  });
  wf.setHandler(userMessageSignal, (input) => {
    const content = typeof input?.content === 'string' ? input.content : '';
    if (isFinished(run) || content.trim() === '') {
      run.events.append('user-message-rejected', { reason: isFinished(run) ? 'the run has ended' : 'empty content' });
      return;
    }
    run.inbox.push(content);
    run.events.append('user-message', { content });
  });
  wf.setHandler(stopSignal, (input) => {
    if (isFinished(run) || run.externalStopRequested) return;
    run.externalStopRequested = true;
    run.events.append('stop-request', { reason: input?.reason ?? null });
  });
  wf.setHandler(terminateSignal, (input) => {
    if (isFinished(run) || run.stopRequest !== undefined) return;
    run.stopRequest = { kind: 'signal', ...(input?.reason === undefined ? {} : { reason: input.reason }) };
    run.events.append('terminate-request', { reason: input?.reason ?? null });
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
        if (isFinished(run)) throw invalidLimits(`The run has ended (${run.status}); its limits can no longer change.`);
        const change = applyLimitChange(input, run.limits, run.invocations);
        if (!change.ok) throw invalidLimits(change.problem);
      },
    },
  );

  const fail = (failure: wf.ApplicationFailure): never => {
    run.status = 'failed';
    run.error = { type: failure.type ?? 'Error', message: failure.message };
    run.events.append('run-end', { status: 'failed', error: run.error });
    describeActivity(run, `failed: ${failure.message}`);
    publish(run);
    throw failure;
  };
  const partial = (): PartialRun => ({ messages: run.messages, usage: run.usage, iterations: run.iteration });

  const parsed = parseAgentInput(rawInput);
  if (!parsed.ok) return fail(invalidAgentInput(parsed.problems));
  const input = parsed.input;
  run.limits = { maxInvocations: effectiveMaxInvocations(input), tokenBudget: input.tokenBudget ?? {} };
  run.events.append('run-start', { tools: input.tools, model: input.model ?? null });
  publish(run);

  if (input.timeout !== undefined) {
    const limit = input.timeout;
    // A durable timer outside the loop's scope: when it fires, the loop is cancelled like a terminate.
    wf.sleep(limit as Duration).then(
      () => {
        if (isFinished(run) || run.stopRequest !== undefined) return;
        run.stopRequest = { kind: 'timeout' };
        run.events.append('timeout', { limit });
        loopScope.cancel();
      },
      () => undefined, // the workflow itself was cancelled; the loop's own handling applies
    );
  }

  const inputMessages = input.messages ?? [];
  run.messages = [...inputMessages, ...(input.message === undefined ? [] : [userMessage(input.message)])];
  run.turn = { ...run.turn, messageIndex: inputMessages.length };

  const finish = async (reason: TerminationReason, response: string): Promise<AgentResult> => {
    run.status = reason.type === 'external' ? 'terminated' : 'completed';
    run.terminationReason = reason;
    run.events.append('run-end', { status: run.status, terminationReason: reason });
    describeActivity(run, `${run.status} (${reason.type}) after ${run.iteration} iteration(s)`);
    publish(run);
    // Handlers are synchronous, so this never waits; it keeps the rule that none is cut off.
    await wf.CancellationScope.nonCancellable(() => wf.condition(wf.allHandlersFinished));
    return {
      schemaVersion: SCHEMA_VERSION,
      response,
      terminationReason: reason,
      iterations: run.iteration,
      invocations: run.invocations,
      consecutiveNudges: run.consecutiveNudges,
      restrictionInjections: run.restrictionInjections,
      usage: run.usage,
      messages: run.messages,
      generatedMessages: toGeneratedMessages(run.messages.slice(inputMessages.length)),
    };
  };

  try {
    return await loopScope.run(() => loop());
  } catch (error) {
    if (!wf.isCancellation(error)) throw error;
    // Stopped by the `terminate` signal or by Temporal's cancel request: close the
    // open batch with valid tool messages and return what the run has.
    closeOpenBatch();
    run.pendingQuestion = undefined;
    const reason: TerminationReason =
      run.stopRequest?.kind === 'timeout'
        ? { type: 'timeout', limit: String(input.timeout) }
        : {
            type: 'external',
            via: run.stopRequest === undefined ? 'cancel' : 'signal',
            ...(run.stopRequest?.reason === undefined ? {} : { reason: run.stopRequest.reason }),
          };
    return finish(reason, lastAssistantText());
  }

  async function loop(): Promise<AgentResult> {
    describeActivity(run, 'loading the tool catalog');
    const catalog = await catalogActivities.describeTools.executeWithOptions({ summary: 'tool catalog' }, []);
    const registered = catalog.tools.map((tool) => tool.name);
    const unknown = input.tools.filter((name) => !registered.includes(name));
    if (unknown.length > 0) return fail(unknownTools(unknown, registered));
    const runTools = catalog.tools.filter((tool) => input.tools.includes(tool.name));
    toolSchemas = new Map(runTools.map((tool) => [tool.name, tool.parameters]));
    if (input.stopWhen !== undefined) {
      const problems = validateStopCondition(input.stopWhen, stopConditionRegistry, { tools: input.tools });
      if (problems.length > 0) return fail(invalidAgentInput(problems));
    }

    const terminatingTools = new Set([
      ...runTools.filter((tool) => tool.terminating).map((tool) => tool.name),
      ...(input.terminating?.toolIds ?? []),
    ]);
    // requireToolCall shares the nudge rule: its error context is a nudge by another name.
    const nudgeInjection =
      input.terminating !== undefined
        ? { kind: 'nudge' as const, message: input.terminating.nudgeMessage, consecutiveNudges: input.terminating.consecutiveNudges }
        : input.requireToolCall
          ? {
              kind: 'error_context' as const,
              message: REQUIRE_TOOL_CALL_MESSAGE,
              consecutiveNudges: input.circuitBreaker?.threshold ?? DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
            }
          : undefined;
    const turnPolicy: TurnPolicy = {
      ...(nudgeInjection === undefined ? {} : { nudge: { consecutiveNudges: nudgeInjection.consecutiveNudges } }),
      ...(input.restrictOutput?.enabled ? { restriction: input.restrictOutput } : {}),
    };

    for (;;) {
      // Messages a person sent meanwhile join the conversation before the model is called.
      for (const content of run.inbox.splice(0)) run.messages.push(userMessage(content));
      const breach = findLimitBreach(run.invocations, run.usage, run.limits);
      if (breach?.kind === 'invocations') return fail(maxInvocationsExceeded(breach.limit, partial()));
      if (breach?.kind === 'tokens') return fail(tokenBudgetExhausted(breach, partial()));

      run.iteration += 1;
      run.events.append('iteration-start', { iteration: run.iteration, messages: run.messages.length });
      describeActivity(run, `iteration ${run.iteration}: calling the model`);

      const context = contextForModel();
      let response;
      try {
        response = await modelActivities.callModel.executeWithOptions({ summary: `model call · iteration ${run.iteration}` }, [
          {
            model: input.model,
            instructions: input.instructions,
            messages: context,
            toolNames: input.tools,
            parallelToolCalls: input.parallelToolCalls,
          },
        ]);
      } catch (error) {
        if (wf.isCancellation(error)) throw error;
        return fail(modelCallFailed(error, partial()));
      }
      run.invocations += 1;
      run.usage = addUsage(run.usage, response.usage);
      const assistant: AssistantMessage = { ...response.message, meta: { iteration: run.iteration } };
      run.messages.push(assistant);
      run.events.append('model-response', {
        iteration: run.iteration,
        toolCalls: (assistant.tool_calls ?? []).map((call) => call.function.name),
        text: assistant.content !== null && assistant.content !== '',
        ...(assistant.content ? { content: preview(assistant.content) } : {}),
        usage: response.usage,
      });
      publish(run);

      const afterResponse = checkStopConditions();
      if (afterResponse !== undefined) {
        run.messages.push(...toolMessagesFor(assistant.tool_calls ?? [], new Map(), run.iteration, NOT_EXECUTED_RESULT));
        return finish(afterResponse, lastAssistantText());
      }

      const outcome = decideModelTurn(assistant, run, turnPolicy);
      switch (outcome.kind) {
        case 'final_output':
          return finish({ type: 'complete' }, outcome.text);
        case 'restrict':
          run.restrictionInjections = outcome.restrictionInjections;
          inject('restriction', input.restrictOutput?.message ?? '');
          continue;
        case 'nudge':
          run.consecutiveNudges = outcome.consecutiveNudges;
          inject(nudgeInjection?.kind ?? 'nudge', nudgeInjection?.message ?? '');
          continue;
        case 'nudges_exceeded':
          run.consecutiveNudges = outcome.consecutiveNudges;
          return fail(maxConsecutiveNudgesExceeded(nudgeInjection?.consecutiveNudges ?? 0, partial()));
        case 'run_tools': {
          // A tool call starts a new turn: both counters begin again.
          run.consecutiveNudges = 0;
          run.restrictionInjections = 0;
          const loop = detectLoops(outcome.calls);
          if (loop.stop !== undefined) {
            run.messages.push(...toolMessagesFor(outcome.calls, new Map(), run.iteration, NOT_EXECUTED_RESULT));
            return finish(
              { type: 'loop_detected', toolName: loop.stop.toolName, count: loop.stop.count },
              assistant.content ?? '',
            );
          }
          const flagged = new Set(response.approvalRequired ?? []);
          const batch = await runToolBatch(assistant, outcome.calls, runTools, terminatingTools, flagged);
          if (batch.ending !== undefined) return finish(batch.ending.reason, batch.ending.response);
          for (const warning of loop.warnings) inject('loop_warning', warning);
          const trip = checkBreaker(batch.executed);
          if (trip !== undefined) return finish(trip.reason, trip.response);
          const afterTools = checkStopConditions();
          if (afterTools !== undefined) return finish(afterTools, lastAssistantText());
          const asked = batch.executed.find(({ result }) => result.waitForInput !== undefined);
          if (asked !== undefined) {
            const question = asked.result.waitForInput?.question ?? '';
            if (!(await awaitAnswer(asked.call.id, question))) {
              return finish({ type: 'input_timeout', question, limit: String(input.inputTimeout) }, question);
            }
          }
          continue;
        }
      }
    }
  }

  /** `stopWhen` over the current turn: the termination reason when it holds. */
  function checkStopConditions(): TerminationReason | undefined {
    if (input.stopWhen === undefined) return undefined;
    const verdict: StopVerdict = evaluateStopCondition(
      input.stopWhen,
      {
        iteration: run.iteration,
        turnIteration: run.iteration - run.turn.iteration,
        turnStartedAtMs: run.turn.startedAtMs,
        nowMs: new Date().getTime(),
        turnMessages: run.messages.slice(run.turn.messageIndex),
        turnUsage: subtractUsage(run.usage, run.turn.usage),
        executedTools: run.turn.executedTools,
        externalStopRequested: run.externalStopRequested,
      },
      stopConditionRegistry,
    );
    if (!verdict.stop) return undefined;
    run.events.append('stop-condition', { condition: verdict.condition, detail: verdict.detail });
    return { type: 'stop_condition', condition: verdict.condition, detail: verdict.detail };
  }

  function lastAssistantText(): string {
    const last = [...run.messages].reverse().find((message) => message.role === 'assistant' && message.content);
    return last?.role === 'assistant' ? (last.content ?? '') : '';
  }

  /**
   * The conversation as the model sees it: with observation masking, old and
   * large tool results become placeholders; `run.messages` keeps them whole.
   */
  function contextForModel(): ChatMessage[] {
    if (input.masking === undefined) return run.messages;
    // Results of the last `keepIterations` iterations that produced them stay: the newest is the previous one.
    const masked = maskObservations(run.messages, run.iteration - 1, input.masking, toolNameLookup(run.messages));
    if (masked.masked.length > 0) {
      run.events.append('observations-masked', {
        iteration: run.iteration,
        masked: masked.masked,
        tokensSaved: masked.masked.reduce((sum, entry) => sum + entry.tokens, 0),
      });
    }
    return masked.messages;
  }

  /** Seed 002's loop detection over one response's calls, in order: warnings to inject, or a stop. */
  function detectLoops(calls: ToolCall[]): { warnings: string[]; stop?: LoopDetection } {
    const warnings: string[] = [];
    if (input.loopDetection === undefined) return { warnings };
    for (const call of calls) {
      const tracked = trackToolCall(run.loopTracker, call, input.loopDetection);
      run.loopTracker = tracked.tracker;
      const detection = tracked.detection;
      if (detection === undefined) continue;
      run.events.append('loop-detected', { iteration: run.iteration, ...detection });
      if (detection.action === 'stop') return { warnings, stop: detection };
      if (detection.action === 'inject_warning') warnings.push(loopWarningMessage(detection.toolName, detection.count));
    }
    return { warnings };
  }

  /** Seed 004's circuit breaker over a batch's results, in call order. */
  function checkBreaker(executed: { call: ToolCall; result: ToolCallResult }[]): BatchEnding {
    const threshold = input.circuitBreaker?.threshold ?? DEFAULT_CIRCUIT_BREAKER_THRESHOLD;
    for (const { call, result } of executed) {
      const tracked = trackToolResult(run.breaker, call.function.name, result, threshold);
      run.breaker = tracked.state;
      if (tracked.tripped !== undefined) {
        const { toolName, errorText, count } = tracked.tripped;
        run.events.append('circuit-breaker', { iteration: run.iteration, toolName, errorText, count });
        return {
          reason: { type: 'circuit_breaker', toolName, errorText, count },
          response: `Stopped: ${toolName} failed ${count} times in a row with the same error: ${errorText}`,
        };
      }
    }
    return undefined;
  }

  /** Adds a runner-authored system message, marked as injected, to the conversation. */
  function inject(kind: 'nudge' | 'restriction' | 'loop_warning' | 'error_context', content: string): void {
    run.messages.push({ role: 'system', content, meta: { injected: kind, iteration: run.iteration } });
    run.events.append(kind, { iteration: run.iteration, consecutiveNudges: run.consecutiveNudges, restrictionInjections: run.restrictionInjections });
  }

  /** Executes one response's tool calls under seed 000's ordering rules and appends their results. */
  async function runToolBatch(
    assistant: AssistantMessage,
    calls: ToolCall[],
    runTools: ToolDescription[],
    terminatingTools: ReadonlySet<string>,
    flagged: ReadonlySet<string>,
  ): Promise<{ ending: BatchEnding; executed: { call: ToolCall; result: ToolCallResult }[] }> {
    const plan = planToolBatch(calls, terminatingTools);
    const planned = plan.terminating === undefined ? plan.leading : [...plan.leading, plan.terminating];
    const assistantIndex = run.messages.lastIndexOf(assistant);
    if (planned.length < calls.length) run.messages[assistantIndex] = keepToolCalls(assistant, planned);
    const batch = { assistantIndex, calls: planned, results: new Map<string, ToolCallResult>() };
    run.openBatch = batch;

    const execute = async (call: ToolCall): Promise<ToolCallResult> => {
      const raw = await executeToolCall(call, runTools, flagged);
      // A result that ends the run is the response: it is never cut.
      const result = raw.terminate || call === plan.terminating ? raw : processResult(call, raw);
      batch.results.set(call.id, result);
      return result;
    };

    let stoppedEarly = false;
    if (input.parallelToolCalls) {
      await Promise.all(plan.leading.map(execute));
    } else {
      for (const call of plan.leading) {
        if ((await execute(call)).terminate) {
          stoppedEarly = true;
          break;
        }
      }
    }

    let ending: BatchEnding;
    const terminated = plan.leading.find((call) => batch.results.get(call.id)?.terminate);
    if (terminated !== undefined) {
      ending = {
        reason: { type: 'terminate_response', toolName: terminated.function.name, callId: terminated.id },
        response: batch.results.get(terminated.id)?.content ?? '',
      };
    } else if (plan.terminating !== undefined) {
      const call = plan.terminating;
      const result = await execute(call);
      // A terminating tool that errored (bad arguments, a throw, a denial) does not end
      // the run: the error goes back to the model so it can call the tool correctly.
      if (!result.isError) {
        ending = { reason: { type: 'terminating_tool', toolName: call.function.name, callId: call.id }, response: result.content };
      }
    }

    const executed = stoppedEarly || terminated !== undefined ? planned.filter((call) => batch.results.has(call.id)) : planned;
    if (executed.length < planned.length) {
      run.messages[assistantIndex] = keepToolCalls(run.messages[assistantIndex] as AssistantMessage, executed);
    }
    batch.calls = executed;
    closeOpenBatch();
    return {
      ending,
      executed: executed.flatMap((call) => {
        const result = batch.results.get(call.id);
        return result === undefined ? [] : [{ call, result }];
      }),
    };
  }

  /** Seed 002's tool-result processing: long results are cut, with a marker and an event. */
  function processResult(call: ToolCall, result: ToolCallResult): ToolCallResult {
    if (input.resultProcessing === undefined) return result;
    const processed = processToolResult(call.function.name, result.content, input.resultProcessing);
    if (processed.truncated === undefined) return result;
    run.events.append('tool-result-processed', { callId: call.id, toolName: call.function.name, ...processed.truncated });
    return { ...result, content: processed.content };
  }

  /** Appends the open batch's tool messages (a synthetic "cancelled" one for each call without a result). */
  function closeOpenBatch(): void {
    const batch = run.openBatch;
    if (batch === undefined) return;
    run.openBatch = undefined;
    run.messages.push(...toolMessagesFor(batch.calls, batch.results, run.iteration));
    for (const approval of run.pendingApprovals.splice(0)) {
      run.events.append('approval-abandon', { callId: approval.callId, toolName: approval.toolName });
    }
    refreshStatus(run);
  }

  async function executeToolCall(call: ToolCall, runTools: ToolDescription[], flagged: ReadonlySet<string>): Promise<ToolCallResult> {
    const description = runTools.find((tool) => tool.name === call.function.name);
    if (description === undefined) return unknownToolResult(call.function.name, input.tools);

    let argumentsText = call.function.arguments;
    if (needsApproval(call, description, input.approval, flagged)) {
      const decision = await awaitApproval(call);
      if (decision.decision === 'deny') {
        return { content: `Denied: ${decision.reason ?? 'the call was not approved'}`, isError: true, terminate: false };
      }
      if (decision.originalArguments !== undefined) {
        argumentsText = JSON.stringify(decision.arguments);
        const batch = run.openBatch;
        if (batch !== undefined) {
          run.messages[batch.assistantIndex] = withCallArguments(run.messages[batch.assistantIndex] as AssistantMessage, call.id, argumentsText);
        }
      }
    }

    describeActivity(run, `iteration ${run.iteration}: running ${call.function.name}`);
    const startedAt = new Date().getTime();
    run.events.append('tool-call-start', {
      iteration: run.iteration,
      callId: call.id,
      toolName: call.function.name,
      arguments: preview(argumentsText),
    });
    run.turn.executedTools.push(call.function.name);
    let result: ToolCallResult;
    try {
      result = await toolActivities.executeTool.executeWithOptions(
        {
          summary: summarizeToolCall({ ...call, function: { ...call.function, arguments: argumentsText } }, run.iteration),
          ...(description.timeoutMs === undefined ? {} : { startToCloseTimeout: description.timeoutMs }),
        },
        [{ toolName: call.function.name, callId: call.id, arguments: argumentsText, allowedTools: input.tools }],
      );
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      // Retries are spent (worker lost, timeouts): the model hears of it as a tool error.
      result = { content: `Error: ${describeToolFailure(call.function.name, error)}`, isError: true, terminate: false };
    }
    run.events.append('tool-call-end', {
      iteration: run.iteration,
      callId: call.id,
      toolName: call.function.name,
      durationMs: new Date().getTime() - startedAt,
      isError: result.isError,
      output: preview(result.content),
    });
    return result;
  }

  /**
   * Seed 004's `ask_question`: waits, durably, for the `userMessage` signal.
   * The answer starts a new turn (stop conditions count afresh). False when
   * `inputTimeout` passed first.
   */
  async function awaitAnswer(callId: string, question: string): Promise<boolean> {
    run.pendingQuestion = { callId, question, askedAt: new Date().toISOString() };
    run.events.append('input-request', { callId, question });
    refreshStatus(run);
    describeActivity(run, `waiting for an answer: ${question}`);
    publish(run);
    const limit = input.inputTimeout;
    const answered =
      limit === undefined
        ? (await wf.condition(() => run.inbox.length > 0), true)
        : await wf.condition(() => run.inbox.length > 0, limit as Duration);
    run.pendingQuestion = undefined;
    refreshStatus(run);
    publish(run);
    if (!answered) {
      run.events.append('input-timeout', { callId, limit });
      return false;
    }
    run.turn = {
      startedAtMs: new Date().getTime(),
      messageIndex: run.messages.length,
      iteration: run.iteration,
      usage: run.usage,
      executedTools: [],
    };
    return true;
  }

  /** Waits, on a durable timer when the run sets a timeout, for a decision on `call`. */
  async function awaitApproval(call: ToolCall): Promise<ApprovalDecision> {
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
      if (input.approval?.onTimeout === 'fail') return fail(approvalTimedOut(call, timeout ?? 0, partial()));
      return recordDecision({ callId: call.id, decision: 'deny', reason: `no decision within ${String(timeout)}` }, 'timeout');
    }
    return run.decisions.get(call.id) as ApprovalDecision;
  }

  /** A decision that arrived as a signal: recorded when valid, otherwise logged as rejected. */
  function decideFromSignal(input: unknown): void {
    const checked = checkDecision(input, run.pendingApprovals, run.decisions, (name) => toolSchemas.get(name));
    if (!checked.ok) {
      run.events.append('decision-rejected', { via: 'signal', problem: checked.problem, input });
      return;
    }
    recordDecision(checked.input, 'signal');
  }

  /** Records a checked decision in the run and its event log; returns it. */
  function recordDecision(
    decision: { callId: string; decision: 'approve' | 'deny'; arguments?: Record<string, unknown>; reason?: string },
    via: ApprovalDecision['via'],
  ): ApprovalDecision {
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
}

function subtractUsage(total: Usage, before: Usage): Usage {
  return {
    promptTokens: total.promptTokens - before.promptTokens,
    completionTokens: total.completionTokens - before.completionTokens,
    totalTokens: total.totalTokens - before.totalTokens,
  };
}

function invalidLimits(problem: string): wf.ApplicationFailure {
  return wf.ApplicationFailure.create({ type: 'InvalidLimits', message: problem, nonRetryable: true });
}

function effectiveMaxInvocations(input: ParsedAgentInput): number {
  const limits = [input.maxInvocations, input.terminating?.maxInvocations].filter(
    (limit): limit is number => limit !== undefined,
  );
  return limits.length === 0 ? DEFAULT_MAX_INVOCATIONS : Math.min(...limits);
}

function userMessage(content: string): ChatMessage {
  return { role: 'user', content };
}
