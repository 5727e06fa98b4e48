import { createNamedRegistry, type NamedRegistry } from './named-registry';
import type { AssistantMessage, ChatMessage, Usage } from '../../shared/messages';
import { durationToMs, type StopCondition } from '../../shared/stop-conditions-schema';

/**
 * `stopWhen`: evaluates a condition tree (the termination conditions: max messages, text mention, token usage, ...)
 * against what the current turn has done (its `StopContext`). Pure:
 * time comes only from the context, where the workflow puts its own clock
 * (`new Date().getTime()`, which Temporal makes deterministic).
 */

/** The token limits in the order they are checked and rendered. */
const TOKEN_MEASURES = [
  { key: 'maxTotal', measure: 'total', used: (usage: Usage) => usage.totalTokens },
  { key: 'maxPrompt', measure: 'prompt', used: (usage: Usage) => usage.promptTokens },
  { key: 'maxCompletion', measure: 'completion', used: (usage: Usage) => usage.completionTokens },
] as const;

/** One result of the latest batch of tool calls, as a stop condition sees it. */
export interface StopToolResult {
  toolName: string;
  callId: string;
  /** The start of the result's content, at most 500 characters (`EVENT_PREVIEW_CHARS`), marked when cut. */
  contentPreview: string;
  /** The call failed, was denied or was unknown: the model got an error. */
  isError: boolean;
}

/**
 * What the run has done, this turn and in all, built by the workflow at each check: what a
 * custom stop condition sees (iteration, response, total usage, tool calls executed, last tool results) and what
 * the turn-based conditions count.
 */
export interface StopContext {
  /** Model calls of the whole run so far, across turns (1 after the first response). */
  iteration: number;
  /**
   * The model's latest answer: the assistant message of this iteration (after a tool batch, the one
   * whose calls ran). Undefined only before the first answer.
   */
  response: AssistantMessage | undefined;
  /** Token usage of the whole run so far (every model call, across turns and continue-as-new). */
  totalUsage: Usage;
  /** Tool calls the run has executed so far, across turns (denied and unknown calls are not executions). */
  toolCallsExecuted: number;
  /** The results of the latest batch of tool calls, in call order; empty until a batch has run. */
  lastToolResults: StopToolResult[];
  /** Model calls of the current turn so far. */
  turnIteration: number;
  /** Workflow time, in ms since the epoch, when the current turn started. */
  turnStartedAtMs: number;
  /** Workflow time now, in ms since the epoch. */
  nowMs: number;
  /**
   * Messages of the current turn, in order; may start with the user message that opened it. After a
   * compacted run continued as new, the ones it still holds: see `turnMessagesLeftBehind`.
   */
  turnMessages: ChatMessage[];
  /**
   * Messages the turn produced (not the user's) that a continue-as-new left behind after a compaction summarised
   * them; they are no longer in `turnMessages`, and `maxMessages` counts them. @default 0
   */
  turnMessagesLeftBehind?: number;
  /** Token usage of the current turn's model calls. */
  turnUsage: Usage;
  /** Names of the tools executed this turn, in order (denied or unknown calls are not executions). */
  executedTools: string[];
  /** Whether an external stop was requested for the run. */
  externalStopRequested: boolean;
  /**
   * Nested agents (`defineAgentTool`) that answered this turn, in order, and whether each ended its work through
   * a terminating tool or a `TerminateResponse` (its stop message). @default none
   */
  agentAnswers?: readonly { toolName: string; stopMessage: boolean }[];
}

/**
 * Whether to stop. `condition` renders what fired: for `any`, the first
 * member that fired (recursively); for `all`, the whole `all(...)`. `detail`
 * says why, with numbers: `12 messages this turn, limit 10`.
 */
export type StopVerdict = { stop: true; condition: string; detail: string } | { stop: false };

/**
 * A condition registered in workflow code and named by `{ custom: name }`.
 * Must be pure and deterministic like the rest of the workflow; a throw is a
 * bug and fails the workflow task. `params` is the node's `params`, or `{}`.
 */
export type CustomStopCondition = (
  context: StopContext,
  params: Record<string, unknown>,
) => { stop: boolean; detail?: string };

/** The custom conditions a workflow knows, by name. */
export type StopConditionRegistry = NamedRegistry<CustomStopCondition>;

/** A registry holding `entries`, to which more can be registered. @default no entries */
export function createStopConditionRegistry(entries: Record<string, CustomStopCondition> = {}): StopConditionRegistry {
  return createNamedRegistry(
    {
      emptyName: 'a custom stop condition needs a non-empty name',
      taken: (name) => `a stop condition named "${name}" is already registered; register each name once`,
    },
    entries,
  );
}

/** Options of `validateStopCondition`. */
export interface StopConditionValidationOptions {
  /** The run's tools; when given, `functionCall` and `handoff` must name one of them. @default not checked */
  tools?: readonly string[];
  /** Where the condition sits in the input, prefixed to each problem. @default 'stopWhen' */
  path?: string;
}

/**
 * Problems the schema cannot see, one line each with its path: custom names
 * that are not registered, and (with `options.tools`) tools the run does not
 * have. Empty when the condition is usable. Expects a tree that
 * `stopConditionSchema` accepted.
 */
export function validateStopCondition(
  condition: StopCondition,
  registry: StopConditionRegistry,
  options: StopConditionValidationOptions = {},
): string[] {
  const { tools, path = 'stopWhen' } = options;
  const toolList = tools === undefined ? '' : tools.join(', ') || 'none';
  if ('any' in condition)
    return condition.any.flatMap((member, index) =>
      validateStopCondition(member, registry, { tools, path: `${path}.any[${index}]` }),
    );
  if ('all' in condition)
    return condition.all.flatMap((member, index) =>
      validateStopCondition(member, registry, { tools, path: `${path}.all[${index}]` }),
    );
  if ('custom' in condition && registry.get(condition.custom) === undefined) {
    const registered = registry.names().join(', ') || 'none';
    return [`${path}.custom: no stop condition named "${condition.custom}" is registered (registered: ${registered})`];
  }
  if ('functionCall' in condition && tools !== undefined && !tools.includes(condition.functionCall)) {
    return [
      `${path}.functionCall: "${condition.functionCall}" is not one of this run's tools (${toolList}); add it to \`tools\``,
    ];
  }
  if ('sourceMatch' in condition && tools !== undefined) {
    const index = condition.sourceMatch.findIndex((source) => !tools.includes(source));
    if (index !== -1)
      return [
        `${path}.sourceMatch[${index}]: "${condition.sourceMatch[index]}" is not one of this run's tools (${toolList}); name an agent tool of the run`,
      ];
  }
  if ('handoff' in condition && tools !== undefined && !tools.includes(handoffToolName(condition.handoff))) {
    return [
      `${path}.handoff: a handoff to "${condition.handoff}" needs the tool "${handoffToolName(condition.handoff)}", which is not one of this run's tools (${toolList})`,
    ];
  }
  return [];
}

/**
 * Evaluates `condition`: `any` stops at the first member that fires, `all` at the first that does not (later custom
 * conditions may not be called); an unknown custom name or an empty `any`/`all` never stops.
 */
export function evaluateStopCondition(
  condition: StopCondition,
  context: StopContext,
  registry?: StopConditionRegistry,
): StopVerdict {
  if ('any' in condition) {
    for (const member of condition.any) {
      const verdict = evaluateStopCondition(member, context, registry);
      if (verdict.stop) return verdict;
    }
    return { stop: false };
  }
  if ('all' in condition) {
    if (condition.all.length === 0) return { stop: false };
    const details: string[] = [];
    for (const member of condition.all) {
      const verdict = evaluateStopCondition(member, context, registry);
      if (!verdict.stop) return { stop: false };
      details.push(verdict.detail);
    }
    return { stop: true, condition: describeStopCondition(condition), detail: details.join('; ') };
  }
  const detail = checkLeaf(condition, context, registry);
  return detail === undefined ? { stop: false } : { stop: true, condition: describeStopCondition(condition), detail };
}

/** A short rendering: `maxMessages(10)`, `any(maxMessages(10), textMention("APPROVE"))`. */
export function describeStopCondition(condition: StopCondition): string {
  if ('any' in condition) return `any(${condition.any.map(describeStopCondition).join(', ')})`;
  if ('all' in condition) return `all(${condition.all.map(describeStopCondition).join(', ')})`;
  if ('maxMessages' in condition) return `maxMessages(${condition.maxMessages})`;
  if ('textMention' in condition) return `textMention(${JSON.stringify(condition.textMention)})`;
  if ('tokenUsage' in condition) {
    const limits = TOKEN_MEASURES.flatMap(({ key }) => {
      const limit = condition.tokenUsage[key];
      return limit === undefined ? [] : [`${key}: ${limit}`];
    });
    return `tokenUsage(${limits.join(', ')})`;
  }
  if ('timeout' in condition) return `timeout(${JSON.stringify(condition.timeout)})`;
  if ('functionCall' in condition) return `functionCall(${JSON.stringify(condition.functionCall)})`;
  if ('handoff' in condition) return `handoff(${JSON.stringify(condition.handoff)})`;
  if ('maxIterations' in condition) return `maxIterations(${condition.maxIterations})`;
  if ('external' in condition) return 'external()';
  if ('textMessage' in condition) return 'textMessage()';
  if ('stopMessage' in condition) return 'stopMessage()';
  if ('sourceMatch' in condition)
    return `sourceMatch(${condition.sourceMatch.map((source) => JSON.stringify(source)).join(', ')})`;
  const params = condition.params === undefined ? '' : `, ${JSON.stringify(condition.params)}`;
  return `custom(${JSON.stringify(condition.custom)}${params})`;
}

/** Why a leaf condition fires, or undefined when it does not. */
function checkLeaf(
  condition: Exclude<StopCondition, { any: StopCondition[] } | { all: StopCondition[] }>,
  context: StopContext,
  registry: StopConditionRegistry | undefined,
): string | undefined {
  if ('maxMessages' in condition) {
    // The user message that opened the turn is input, not something the turn produced.
    const produced =
      context.turnMessages.filter((message) => message.role !== 'user').length + (context.turnMessagesLeftBehind ?? 0);
    return produced >= condition.maxMessages
      ? `${plural(produced, 'message')} this turn, limit ${condition.maxMessages}`
      : undefined;
  }
  if ('textMention' in condition) {
    const assistantTexts = context.turnMessages.flatMap((message) =>
      message.role === 'assistant' ? [message.content ?? ''] : [],
    );
    const index = assistantTexts.findIndex((text) => text.includes(condition.textMention));
    return index === -1
      ? undefined
      : `assistant message ${index + 1} of this turn mentions ${JSON.stringify(condition.textMention)}`;
  }
  if ('tokenUsage' in condition) {
    for (const { key, measure, used } of TOKEN_MEASURES) {
      const limit = condition.tokenUsage[key];
      const spent = used(context.turnUsage);
      if (limit !== undefined && spent >= limit) return `${spent} ${measure} tokens this turn, limit ${limit}`;
    }
    return undefined;
  }
  if ('timeout' in condition) {
    const elapsed = context.nowMs - context.turnStartedAtMs;
    const limit = durationToMs(condition.timeout);
    return elapsed >= limit ? `${elapsed} ms since the turn started, limit ${limit} ms` : undefined;
  }
  if ('functionCall' in condition) {
    return context.executedTools.includes(condition.functionCall)
      ? `tool ${JSON.stringify(condition.functionCall)} executed this turn`
      : undefined;
  }
  if ('handoff' in condition) {
    const toolName = handoffToolName(condition.handoff);
    return context.executedTools.includes(toolName)
      ? `handoff to ${JSON.stringify(condition.handoff)}: tool ${JSON.stringify(toolName)} executed this turn`
      : undefined;
  }
  if ('maxIterations' in condition) {
    const calls = context.turnIteration;
    return calls >= condition.maxIterations
      ? `${plural(calls, 'model call')} this turn, limit ${condition.maxIterations}`
      : undefined;
  }
  if ('external' in condition) return context.externalStopRequested ? 'an external stop was requested' : undefined;
  if ('textMessage' in condition) return textAnswerDetail(context.response);
  if ('stopMessage' in condition) {
    const stopped = context.agentAnswers?.find((answer) => answer.stopMessage);
    return stopped === undefined
      ? undefined
      : `nested agent ${JSON.stringify(stopped.toolName)} ended its work with a stop message this turn`;
  }
  if ('sourceMatch' in condition) {
    const matched = context.agentAnswers?.find((answer) => condition.sourceMatch.includes(answer.toolName));
    return matched === undefined ? undefined : `nested agent ${JSON.stringify(matched.toolName)} answered this turn`;
  }
  const custom = registry?.get(condition.custom);
  if (custom === undefined) return undefined;
  const result = custom(context, condition.params ?? {});
  return result.stop ? (result.detail ?? `custom stop condition ${JSON.stringify(condition.custom)} fired`) : undefined;
}

/**
 * Why `textMessage` holds: the latest answer has text and calls no tool. An empty or blank answer is no
 * text message, and after a tool batch the latest answer is the one that called the tools.
 */
function textAnswerDetail(response: AssistantMessage | undefined): string | undefined {
  if (response === undefined || (response.tool_calls ?? []).length > 0) return undefined;
  const text = response.content ?? '';
  return text.trim() === ''
    ? undefined
    : `the model answered with text and no tool call (${plural(text.length, 'character')})`;
}

/** AutoGen's handoff convention: handing off to `target` is calling `transfer_to_<target>`. */
function handoffToolName(target: string): string {
  return `transfer_to_${target}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
