import { z } from 'zod';
import { builtOnce } from './built-once';
import type { AgentInput } from './agent-input';
import type { GeneratedMessage, TerminationReason } from './agent-result';
import type { ChatMessage, Usage } from './messages';
import { FailureType } from './failure-catalogue';

/**
 * A conversation (a chat `context_id`): one long-lived workflow that runs each request as a child `agentWorkflow`, one
 * at a time, and continues as new now and then so its own history stays small.
 */

/** Workflow type of conversations. */
export const CONVERSATION_WORKFLOW_TYPE = 'conversationWorkflow';

/** Letters, digits and `. _ : @ -`, 1 to 200 of them: safe in workflow ids and URL paths alike. */
export const identifierSchema = builtOnce('conversation.identifier', () =>
  z.string().regex(/^[A-Za-z0-9._:@-]{1,200}$/, 'use 1 to 200 letters, digits or . _ : @ -'),
);

/** The chat API's `context_id`: which conversation a turn belongs to. @alias */
export const contextIdSchema = identifierSchema;

/** The conversation workflow's id for a `context_id`. */
export function conversationWorkflowId(contextId: string): string {
  return `conversation:${contextId}`;
}

/**
 * The agent run of one turn: its id names the conversation, its generation
 * (a conversation ended and begun again on the same context counts turns
 * afresh, so ids must differ) and the turn.
 */
export function turnWorkflowId(conversationId: string, turn: number, generation?: string): string {
  return generation === undefined ? `${conversationId}:turn-${turn}` : `${conversationId}:${generation}:turn-${turn}`;
}

/**
 * The version of {@link ConversationInput} this code writes; an input of
 * another version, or of none, fails the conversation with the reason
 * (`src/workflows/conversation/conversation-input.ts` says how to add a version).
 */
export const CONVERSATION_INPUT_VERSION = 2;

/** The conversation workflow's argument; a continued run gets the history so far. */
export interface ConversationInput {
  /** {@link CONVERSATION_INPUT_VERSION}: the shape of this input. */
  schemaVersion: typeof CONVERSATION_INPUT_VERSION;
  contextId: string;
  messages?: ChatMessage[];
  /** Turns run before this run. */
  turns?: number;
  /** Turns a run takes before it continues as new. @default 25 (`CONVERSATION_DEFAULTS.turnsPerRun`) */
  turnsPerRun?: number;
  /** Set when the conversation begins; part of every turn's run id. */
  generation?: string;
  /** Answers of the latest turns by update id, for retried requests. */
  recentTurns?: RememberedTurn[];
}

/**
 * A turn's answer kept for a retried request (same update id), without its generated messages, which are rebuilt from
 * the history's range, so remembering turns costs the continue-as-new input next to nothing.
 */
export interface RememberedTurn {
  kind: 'messageRange';
  updateId: string;
  answer: Omit<ChatTurnResult, 'generatedMessages'>;
  messages: { from: number; to: number };
}

/** The three chat endpoints: a human message, a bare invocation, or an AI message prompted by the caller. */
export type ChatTurnKind = 'chat' | 'invoke' | 'add-ai-message';

/** How a turn's agent run is set up: a run input without its conversation, which the workflow supplies. */
export type TurnSettings = Omit<AgentInput, 'message' | 'messages'>;

/** Update `chat`: run one turn on the conversation. */
export interface ChatTurnRequest {
  kind: ChatTurnKind;
  /** `chat`: the human message. */
  message?: string;
  /** `add-ai-message`: what the AI should do, added as a system message. */
  prompt?: string;
  settings: TurnSettings;
}

/** What a turn answers: the chat response, plus where to find the run. */
export interface ChatTurnResult {
  response: string;
  /** True: the turn's messages were added to the conversation. */
  savedAiMessages: boolean;
  generatedMessages: GeneratedMessage[];
  turn: number;
  /** The turn's agent run, for its state, events and history. */
  runId: string;
  terminationReason: TerminationReason;
  usage: Usage;
}

/** The turn in progress. */
export interface ActiveTurn {
  turn: number;
  kind: ChatTurnKind;
  runId: string;
  startedAt: string;
}

/** What the `conversation` query answers. */
export interface ConversationState {
  contextId: string;
  messages: ChatMessage[];
  /** Turns run so far, failed ones included (a failed turn leaves the history as it was). */
  turns: number;
  activeTurn?: ActiveTurn;
  /** True once `end` was received; the next request on the context starts a new conversation. */
  ended: boolean;
}

/** Failure types a turn can be refused with, before it starts (from the {@link FailureType} catalogue). */
export const ConversationFailure = {
  busy: FailureType.conversationBusy,
  empty: FailureType.conversationEmpty,
  ended: FailureType.conversationEnded,
  invalidRequest: FailureType.invalidChatRequest,
  tooLarge: FailureType.conversationTooLarge,
} as const;
