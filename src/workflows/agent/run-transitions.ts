import { addUsage, type ChatMessage, type Usage } from '../../shared/messages';
import { type TerminationReason } from '../../shared/agent-result';
import { type PendingApproval, type RunLimits } from '../../shared/control';
import type { AgentAnswer } from '../rules/nested-agents';
import type { McpElicitResult } from '../../shared/mcp-elicitation';
import { isFinished, type PendingElicitation, type RunRecord } from './run-record';

/**
 * Every change of a run's status and of the fields several steps share (lint refuses them elsewhere).
 *
 * A transition changes the record only: events and search attributes stay with the caller. Fields one step owns
 * (the loop tracker, the breaker, the open batch, the result cache, the compaction) are that step's to change.
 */

// ─── Status ──────────────────────────────────────────────────────────────────

/** A call waits for a decision: listed in the state, and the run is `waiting_for_approval`. */
export function markWaitingForApproval(run: RunRecord, approval: PendingApproval): void {
  run.pendingApprovals.push(approval);
  refreshStatus(run);
}

/** The call was decided, or its wait ended: no longer listed, and the run waits for what is left. */
export function markApprovalSettled(run: RunRecord, callId: string): void {
  run.pendingApprovals = run.pendingApprovals.filter((approval) => approval.callId !== callId);
  refreshStatus(run);
}

/** A stop closed the open batch: every call still waiting is abandoned, and returned so the caller can log it. */
export function abandonPendingApprovals(run: RunRecord): PendingApproval[] {
  const abandoned = run.pendingApprovals.splice(0);
  refreshStatus(run);
  return abandoned;
}

/** `ask_question` asked: the run is `waiting_for_input` until the answer comes. */
export function markWaitingForInput(run: RunRecord, question: NonNullable<RunRecord['pendingQuestion']>): void {
  run.pendingQuestion = question;
  refreshStatus(run);
}

/** The wait for an answer is over (answered, timed out, or the run stopped). */
export function markInputSettled(run: RunRecord): void {
  run.pendingQuestion = undefined;
  refreshStatus(run);
}

/** The run ended with a result: `terminated` when stopped from outside, else `completed`; returns that status. */
export function markFinished(run: RunRecord, reason: TerminationReason): 'completed' | 'terminated' {
  const status = reason.type === 'external' ? 'terminated' : 'completed';
  run.status = status;
  run.terminationReason = reason;
  return status;
}

/** The run failed with `error`. */
export function markFailed(run: RunRecord, error: { type: string; message: string }): void {
  run.status = 'failed';
  run.error = error;
}

/** Sets `running`, `waiting_for_approval` or `waiting_for_input` from what the run waits for (a finished run keeps its status). */
function refreshStatus(run: RunRecord): void {
  if (isFinished(run)) return;
  run.status =
    run.pendingApprovals.length > 0
      ? 'waiting_for_approval'
      : run.pendingQuestion !== undefined || run.elicitations.length > 0
        ? 'waiting_for_input'
        : 'running';
}

/** An MCP server asks during a call: the run is `waiting_for_input` until it is answered or the call ends. */
export function markWaitingForElicitation(run: RunRecord, elicitation: PendingElicitation): void {
  run.elicitations.push(elicitation);
  refreshStatus(run);
}

/** The MCP server's question `id` no longer waits (answered, replaced, or its call ended); returns it, if it waited. */
export function markElicitationSettled(run: RunRecord, id: string): PendingElicitation | undefined {
  const settled = run.elicitations.find((pending) => pending.id === id);
  run.elicitations = run.elicitations.filter((pending) => pending.id !== id);
  refreshStatus(run);
  return settled;
}

/** The person's answer to the MCP server's question, kept until the worker reads it. */
export function recordElicitationAnswer(
  run: RunRecord,
  pending: PendingElicitation,
  answer: string,
  result?: McpElicitResult,
): void {
  run.elicitationAnswers.set(pending.id, {
    question: pending.question,
    answer,
    ...(result === undefined ? {} : { result }),
  });
}

// ─── The conversation and its turns ─────────────────────────────────────────

/** The conversation the run starts with: the input's messages, then its `message`; the first turn begins after the input's. */
export function startConversation(run: RunRecord, inputMessages: ChatMessage[], first: ChatMessage | undefined): void {
  run.messages = [...inputMessages, ...(first === undefined ? [] : [first])];
  run.inputMessageCount = inputMessages.length;
  run.turn = { ...run.turn, messageIndex: inputMessages.length };
}

/**
 * A fork's iterations go on from the one it was forked at, so the runner's call ids (`call-<iteration>-<n>`) stay
 * unique across the conversation it took over; its invocations and usage start at nothing.
 */
export function startFork(run: RunRecord, atIteration: number): void {
  run.iteration = atIteration - 1;
  run.turn = { ...run.turn, iteration: run.iteration };
}

/** Adds messages to the end of the conversation. */
export function appendMessages(run: RunRecord, ...messages: ChatMessage[]): void {
  run.messages.push(...messages);
}

/** Rewrites the message at `index` in place (an assistant message whose calls were trimmed or re-argued). */
export function replaceMessage(run: RunRecord, index: number, message: ChatMessage): void {
  run.messages[index] = message;
}

/** A person's answer starts a new turn: stop conditions count afresh from here. */
export function startTurn(run: RunRecord, startedAtMs: number): void {
  run.turn = {
    startedAtMs,
    messageIndex: run.messages.length,
    iteration: run.iteration,
    usage: run.usage,
    executedTools: [],
  };
}

/** A nested agent answered in this turn (for `sourceMatch` and `stopMessage`). */
export function recordAgentAnswer(run: RunRecord, answer: AgentAnswer): void {
  run.turn.agentAnswers = [...(run.turn.agentAnswers ?? []), answer];
}

/** Tokens of a model call this run made (the loop's, a compaction's, an extraction's). */
export function addRunUsage(run: RunRecord, usage: Usage): void {
  run.usage = addUsage(run.usage, usage);
}

// ─── Requests from outside, and the limits ──────────────────────────────────

/** A person's message arrived by signal: it joins the conversation before the next model call ({@link takeInbox}). */
export function receiveUserMessage(run: RunRecord, content: string): void {
  run.inbox.push(content);
}

/** The messages that arrived since the last call, taken out of the inbox. */
export function takeInbox(run: RunRecord): string[] {
  return run.inbox.splice(0);
}

/** The `stop` signal: `{ external: true }` stop conditions hold from now on. */
export function requestGracefulStop(run: RunRecord): void {
  run.externalStopRequested = true;
}

/** The `terminate` signal, or the run's own timeout: the loop is cancelled, and this says why. */
export function requestTermination(run: RunRecord, request: NonNullable<RunRecord['stopRequest']>): void {
  run.stopRequest = request;
}

/** The limits in force: from the input at the start, then as `setLimits` changes them. */
export function setRunLimits(run: RunRecord, limits: RunLimits): void {
  run.limits = limits;
}
