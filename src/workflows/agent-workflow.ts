import * as wf from '@temporalio/workflow';
import {
  ACTIVITY_DEFAULTS,
  DEFAULT_MAX_INVOCATIONS,
  SCHEMA_VERSION,
  ZERO_USAGE,
  addUsage,
  parseAgentInput,
  stateQuery,
  type AgentActivities,
  type AgentResult,
  type AgentState,
  type AssistantMessage,
  type ChatMessage,
  type ParsedAgentInput,
  type TerminationReason,
  type ToolCall,
  type ToolCallResult,
  type ToolDescription,
} from '../shared';
import {
  invalidAgentInput,
  maxConsecutiveNudgesExceeded,
  maxInvocationsExceeded,
  modelCallFailed,
  unknownTools,
  type PartialRun,
} from './failures';
import { toGeneratedMessages } from './generated-messages';
import { decideModelTurn, type TurnPolicy } from './model-turn';
import { keepToolCalls, planToolBatch } from './tool-batch';
import { describeToolFailure, summarizeToolCall, unknownToolResult } from './tool-results';

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

/** Mutable bookkeeping of one run; `snapshot()` turns it into the plain JSON the `state` query answers. */
interface RunRecord {
  status: AgentState['status'];
  iteration: number;
  invocations: number;
  consecutiveNudges: number;
  restrictionInjections: number;
  messages: ChatMessage[];
  usage: AgentState['usage'];
  activity: string;
  terminationReason?: TerminationReason;
  error?: { type: string; message: string };
}

/** How one batch of tool calls ended the run, if it did. */
type BatchEnding = { reason: TerminationReason; response: string } | undefined;

/**
 * One agent run: call the model, execute its tool calls, repeat, until the
 * model answers, a terminating tool is called, or a limit fails the run.
 */
export async function agentWorkflow(rawInput: unknown): Promise<AgentResult> {
  const run: RunRecord = {
    status: 'running',
    iteration: 0,
    invocations: 0,
    consecutiveNudges: 0,
    restrictionInjections: 0,
    messages: [],
    usage: ZERO_USAGE,
    activity: 'validating input',
  };
  wf.setHandler(stateQuery, () => snapshot(run));

  const fail = (failure: wf.ApplicationFailure): never => {
    run.status = 'failed';
    run.error = { type: failure.type ?? 'Error', message: failure.message };
    run.activity = `failed: ${failure.message}`;
    wf.setCurrentDetails(`Failed: ${failure.message}`);
    throw failure;
  };
  const partial = (): PartialRun => ({ messages: run.messages, usage: run.usage, iterations: run.iteration });

  const parsed = parseAgentInput(rawInput);
  if (!parsed.ok) return fail(invalidAgentInput(parsed.problems));
  const input = parsed.input;

  run.activity = 'loading the tool catalog';
  const catalog = await catalogActivities.describeTools.executeWithOptions({ summary: 'tool catalog' }, []);
  const registered = catalog.tools.map((tool) => tool.name);
  const unknown = input.tools.filter((name) => !registered.includes(name));
  if (unknown.length > 0) return fail(unknownTools(unknown, registered));
  const runTools = catalog.tools.filter((tool) => input.tools.includes(tool.name));

  const terminatingTools = new Set([
    ...runTools.filter((tool) => tool.terminating).map((tool) => tool.name),
    ...(input.terminating?.toolIds ?? []),
  ]);
  const turnPolicy: TurnPolicy = {
    ...(input.terminating === undefined ? {} : { nudge: input.terminating }),
    ...(input.restrictOutput?.enabled ? { restriction: input.restrictOutput } : {}),
  };
  const maxInvocations = effectiveMaxInvocations(input);

  const inputMessages = input.messages ?? [];
  run.messages = [...inputMessages, ...(input.message === undefined ? [] : [userMessage(input.message)])];

  const finish = (reason: TerminationReason, response: string): AgentResult => {
    run.status = 'completed';
    run.terminationReason = reason;
    run.activity = `completed (${reason.type})`;
    wf.setCurrentDetails(`Completed: ${reason.type} after ${run.iteration} iteration(s)`);
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

  for (;;) {
    if (run.invocations >= maxInvocations) return fail(maxInvocationsExceeded(maxInvocations, partial()));
    run.iteration += 1;
    describe(run, `iteration ${run.iteration}: calling the model`);

    let response;
    try {
      response = await modelActivities.callModel.executeWithOptions({ summary: `model call · iteration ${run.iteration}` }, [
        {
          model: input.model,
          instructions: input.instructions,
          messages: run.messages,
          toolNames: input.tools,
          parallelToolCalls: input.parallelToolCalls,
        },
      ]);
    } catch (error) {
      return fail(modelCallFailed(error, partial()));
    }
    run.invocations += 1;
    run.usage = addUsage(run.usage, response.usage);
    const assistant: AssistantMessage = { ...response.message, meta: { iteration: run.iteration } };
    run.messages.push(assistant);

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
        inject('nudge', input.terminating?.nudgeMessage ?? '');
        continue;
      case 'nudges_exceeded':
        run.consecutiveNudges = outcome.consecutiveNudges;
        return fail(maxConsecutiveNudgesExceeded(input.terminating?.consecutiveNudges ?? 0, partial()));
      case 'run_tools': {
        // A tool call starts a new turn: both counters begin again.
        run.consecutiveNudges = 0;
        run.restrictionInjections = 0;
        const ending = await runToolBatch(assistant, outcome.calls);
        if (ending !== undefined) return finish(ending.reason, ending.response);
        continue;
      }
    }
  }

  /** Adds a runner-authored system message, marked as injected, to the conversation. */
  function inject(kind: 'nudge' | 'restriction', content: string): void {
    run.messages.push({ role: 'system', content, meta: { injected: kind, iteration: run.iteration } });
  }

  /** Executes one response's tool calls under seed 000's ordering rules and appends their results. */
  async function runToolBatch(assistant: AssistantMessage, calls: ToolCall[]): Promise<BatchEnding> {
    const plan = planToolBatch(calls, terminatingTools);
    const executed: { call: ToolCall; result: ToolCallResult }[] = [];
    let ending: BatchEnding;

    if (input.parallelToolCalls) {
      const results = await Promise.all(plan.leading.map((call) => executeToolCall(call)));
      plan.leading.forEach((call, index) => executed.push({ call, result: results[index] as ToolCallResult }));
    } else {
      for (const call of plan.leading) {
        executed.push({ call, result: await executeToolCall(call) });
        if (executed.at(-1)?.result.terminate) break;
      }
    }
    const terminated = executed.find(({ result }) => result.terminate);
    if (terminated !== undefined) {
      ending = {
        reason: { type: 'terminate_response', toolName: terminated.call.function.name, callId: terminated.call.id },
        response: terminated.result.content,
      };
    } else if (plan.terminating !== undefined) {
      const call = plan.terminating;
      const result = await executeToolCall(call);
      executed.push({ call, result });
      // A terminating tool that errored (bad arguments, a throw) does not end the
      // run: the error goes back to the model so it can call the tool correctly.
      if (!result.isError) {
        ending = { reason: { type: 'terminating_tool', toolName: call.function.name, callId: call.id }, response: result.content };
      }
    }

    if (executed.length < calls.length) {
      const kept = keepToolCalls(assistant, executed.map(({ call }) => call));
      run.messages[run.messages.lastIndexOf(assistant)] = kept;
    }
    for (const { call, result } of executed) {
      run.messages.push({ role: 'tool', tool_call_id: call.id, content: result.content, meta: { iteration: run.iteration } });
    }
    return ending;
  }

  async function executeToolCall(call: ToolCall): Promise<ToolCallResult> {
    const description: ToolDescription | undefined = runTools.find((tool) => tool.name === call.function.name);
    if (description === undefined) return unknownToolResult(call.function.name, input.tools);
    describe(run, `iteration ${run.iteration}: running ${call.function.name}`);
    try {
      return await toolActivities.executeTool.executeWithOptions(
        {
          summary: summarizeToolCall(call, run.iteration),
          ...(description.timeoutMs === undefined ? {} : { startToCloseTimeout: description.timeoutMs }),
        },
        [{ toolName: call.function.name, callId: call.id, arguments: call.function.arguments, allowedTools: input.tools }],
      );
    } catch (error) {
      // Retries are spent (worker lost, timeouts): the model hears of it as a tool error.
      return { content: `Error: ${describeToolFailure(call.function.name, error)}`, isError: true, terminate: false };
    }
  }
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

function describe(run: RunRecord, activity: string): void {
  run.activity = activity;
  wf.setCurrentDetails(activity.charAt(0).toUpperCase() + activity.slice(1));
}

function snapshot(run: RunRecord): AgentState {
  return {
    schemaVersion: SCHEMA_VERSION,
    status: run.status,
    iteration: run.iteration,
    invocations: run.invocations,
    consecutiveNudges: run.consecutiveNudges,
    restrictionInjections: run.restrictionInjections,
    messages: run.messages,
    usage: run.usage,
    activity: run.activity,
    ...(run.terminationReason === undefined ? {} : { terminationReason: run.terminationReason }),
    ...(run.error === undefined ? {} : { error: run.error }),
  };
}
