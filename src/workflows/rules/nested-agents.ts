import { FailureType } from '../../shared/failure-catalogue';
import { NESTED_AGENT_DEFAULTS } from '../../shared/defaults/run-input';
import { ZERO_USAGE, addUsage, type Usage } from '../../shared/messages';
import { treePosition, type AgentInput, type ParsedAgentInput } from '../../shared/agent-input';
import { type AgentToolSpec } from '../../shared/activity-types';
import { withoutToolChoice } from '../../shared/sampling';
import { type ChildUsage, type TerminationReason } from '../../shared/agent-result';
import { type CostBudget } from '../../shared/prices';
import { type TokenBudget } from '../../shared/control';
import { findCostBreach } from './cost-budget';
import { tokenMeasures } from './limit-rules';

export type { ChildUsage } from '../../shared/agent-result';

/** The nested agents a run started: the newest listed, all of them counted and summed. Plain JSON: continue-as-new carries it. */
export interface NestedUsage {
  children: ChildUsage[];
  /** Children ended beyond what `children` lists. */
  omitted: number;
  /** The sum of every child's usage, listed or not. */
  total: Usage;
}

/** What a nested agent's answer means to `stopWhen` (`sourceMatch`, `stopMessage`). */
export interface AgentAnswer {
  toolName: string;
  /** The child ended through a terminating tool or a `TerminateResponse`: its stop message reached the parent. */
  stopMessage: boolean;
}

/** A child's usage joins the parent's: listed while fewer than `listed` are, always summed. */
export function recordChildUsage(
  nested: NestedUsage | undefined,
  child: ChildUsage,
  listed: number = NESTED_AGENT_DEFAULTS.listedChildren,
): NestedUsage {
  const before = nested ?? { children: [], omitted: 0, total: ZERO_USAGE };
  const fits = before.children.length < listed;
  return {
    children: fits ? [...before.children, child] : before.children,
    omitted: before.omitted + (fits ? 0 : 1),
    total: addUsage(before.total, child.usage),
  };
}

/** The tree's usage: the run's own and its children's. */
export function treeUsage(own: Usage, nested: NestedUsage | undefined): Usage {
  return nested === undefined ? own : addUsage(own, nested.total);
}

/** The model's arguments for a nested agent: `{ task }`, a non-empty text. */
export function readAgentTask(
  argumentsText: string,
  maxChars: number,
): { ok: true; task: string } | { ok: false; problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsText);
  } catch {
    return { ok: false, problem: 'the arguments are not JSON; give {"task": "..."}' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { ok: false, problem: 'give an object: {"task": "..."}' };
  const task = (parsed as Record<string, unknown>).task;
  if (typeof task !== 'string' || task.trim() === '')
    return { ok: false, problem: '"task" must be a non-empty text saying what the agent should do' };
  if (task.length > maxChars) return { ok: false, problem: `"task" is longer than ${maxChars} characters` };
  return { ok: true, task };
}

/** The refusal of a call that would start a child at `depth + 1`, when that is `maxDepth` or deeper; else undefined. */
export function depthRefusal(toolName: string, depth: number, maxDepth: number): string | undefined {
  const childDepth = depth + 1;
  if (childDepth < maxDepth) return undefined;
  return (
    `Error: ${FailureType.maxDepthExceeded}: the nested agent "${toolName}" would run at depth ${childDepth}, and this tree allows ` +
    `depths below ${maxDepth} (maxDepth). Do this part of the work yourself, or with a tool that is not an agent.`
  );
}

/**
 * What the child may spend: what is left of the parent's token budget and cost budget (counting the whole
 * tree) and of its deadline. `spent` names what is already used up; the child is then not started.
 */
export function childLimits(
  budget: TokenBudget,
  used: Usage,
  deadlineMs: number | undefined,
  nowMs: number,
  costBudget?: CostBudget,
): { ok: true; tokenBudget?: TokenBudget; timeoutMs?: number; costBudget?: CostBudget } | { ok: false; spent: string } {
  const tokenBudget: TokenBudget = {};
  for (const [key, , spent] of tokenMeasures(used)) {
    const limit = budget[key];
    if (limit === undefined) continue;
    if (spent >= limit) return { ok: false, spent: `the token budget (${key} ${limit}, ${spent} used)` };
    tokenBudget[key] = limit - spent;
  }
  const costBreach = findCostBreach(used, costBudget);
  if (costBreach !== undefined)
    return { ok: false, spent: `the cost budget (maxUsd ${costBreach.maxUsd}, ${costBreach.spentUsd} spent)` };
  const timeoutMs = deadlineMs === undefined ? undefined : deadlineMs - nowMs;
  if (timeoutMs !== undefined && timeoutMs <= 0) return { ok: false, spent: 'the run’s timeout' };
  return {
    ok: true,
    ...(Object.keys(tokenBudget).length === 0 ? {} : { tokenBudget }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(costBudget === undefined ? {} : { costBudget: { maxUsd: costBudget.maxUsd - (used.costUsd ?? 0) } }),
  };
}

/** The child run's input: the agent tool's definition, the task, one level deeper, and the parent's remaining limits. */
export function childInput(
  spec: AgentToolSpec,
  task: string,
  parent: Pick<
    ParsedAgentInput,
    'model' | 'modelFallbacks' | 'depth' | 'maxDepth' | 'modelSettings' | 'answerTruncation'
  >,
  limits: { tokenBudget?: TokenBudget; timeoutMs?: number; costBudget?: CostBudget },
  name?: string,
): AgentInput {
  const model = spec.model ?? parent.model;
  const { depth, maxDepth } = treePosition(parent);
  // The parent's `toolChoice` is not handed down: a child forced to call tools could never answer its task in text.
  const modelSettings = spec.modelSettings ?? withoutToolChoice(parent.modelSettings);
  return {
    ...(model === undefined ? {} : { model }),
    // The parent's fallbacks go with the parent's model only: a tool naming its own model names its own endpoint.
    ...(spec.model === undefined && parent.modelFallbacks !== undefined
      ? { modelFallbacks: parent.modelFallbacks }
      : {}),
    ...(name === undefined ? {} : { name }),
    instructions: spec.instructions,
    tools: spec.tools,
    message: task,
    depth: depth + 1,
    maxDepth,
    ...(spec.maxInvocations === undefined ? {} : { maxInvocations: spec.maxInvocations }),
    ...(spec.terminatingToolIds === undefined || spec.terminatingToolIds.length === 0
      ? {}
      : { terminating: { toolIds: spec.terminatingToolIds } }),
    ...(spec.approvalTools === undefined || spec.approvalTools.length === 0
      ? {}
      : { approval: { tools: spec.approvalTools } }),
    ...(spec.output === undefined ? {} : { output: spec.output }),
    ...(limits.tokenBudget === undefined ? {} : { tokenBudget: limits.tokenBudget }),
    ...(limits.timeoutMs === undefined ? {} : { timeout: limits.timeoutMs }),
    ...(limits.costBudget === undefined ? {} : { costBudget: limits.costBudget }),
    ...(modelSettings === undefined ? {} : { modelSettings }),
    ...(parent.answerTruncation === undefined ? {} : { answerTruncation: parent.answerTruncation }),
  };
}

/**
 * The child's workflow id: the parent's and the call's runner id, so a replay starts the same child and an
 * operator finds it from the parent's id.
 */
export function childWorkflowId(parentWorkflowId: string, callId: string): string {
  return `${parentWorkflowId}/${callId}`;
}

/** Whether a child that ended so delivered a stop message: it ended through a terminating tool or a `TerminateResponse`. */
export function isStopMessage(reason: TerminationReason): boolean {
  return reason.type === 'terminating_tool' || reason.type === 'terminate_response';
}

/** What the parent's model hears from a child that finished: its response, or, when it was stopped, that it was. */
export function completedChildContent(
  toolName: string,
  reason: TerminationReason,
  response: string,
): { content: string; cancelled: boolean } {
  if (reason.type === 'external') {
    return {
      content: `Cancelled: the nested agent "${toolName}" was stopped before it finished${response === '' ? '.' : `. Its last words: ${response}`}`,
      cancelled: true,
    };
  }
  return { content: response, cancelled: false };
}

/** What the parent's model hears from a child that failed: its failure type and message. */
export function failedChildContent(toolName: string, type: string, message: string): string {
  return `Error: the nested agent "${toolName}" failed (${type}): ${message}`;
}
