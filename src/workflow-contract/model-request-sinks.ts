import type { Sinks } from '@temporalio/workflow';
import type { ChatMessage } from '../shared/messages';

/**
 * Hands a conversation too large for the model call's input to the `callModel` activity in the same worker (not
 * recorded in history); any other worker, a retried attempt or a restart falls back to the `modelRequest` query.
 */
export interface ModelRequestSinks extends Sinks {
  agentRunnerModelRequests: {
    /** The messages iteration `iteration`'s model call sends, and what they weigh as JSON (the workflow measured it). */
    offer(iteration: number, messages: ChatMessage[], bytes: number): void;
  };
}
