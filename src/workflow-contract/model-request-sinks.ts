import type { Sinks } from '@temporalio/workflow';
import type { ChatMessage } from '../shared/messages';

/**
 * The sink a run hands its next model call's conversation to, in the
 * worker's own process, when the conversation is too large for the call's
 * input. Sinks are not recorded in history; the `callModel` activity that
 * the same worker runs next (with eager activities, the usual case) takes the
 * messages from memory instead of asking the workflow with the
 * `modelRequest` query, and falls back to the query on any other worker, on
 * a retried attempt, or after a restart.
 */
export interface ModelRequestSinks extends Sinks {
  agentRunnerModelRequests: {
    /** The messages iteration `iteration`'s model call sends, and what they weigh as JSON (the workflow measured it). */
    offer(iteration: number, messages: ChatMessage[], bytes: number): void;
  };
}
