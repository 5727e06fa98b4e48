/**
 * The AI SDK chat stream of the HTTP API (`POST /ui/chat`).
 * Pure values; the runner's defaults are the modules of src/shared/defaults/.
 */

/** How a chat stream ends. */
export const UI_CHAT_DEFAULTS = {
  /**
   * How long a stream whose run has ended waits for the conversation to record the turn before `[DONE]`: the
   * conversation does it within a workflow task of the run's end, and a chat's next message sent before it would be
   * refused as busy. Bounded, so a conversation without a worker cannot hold the stream open.
   */
  settleWaitMs: 5_000,
} as const;
