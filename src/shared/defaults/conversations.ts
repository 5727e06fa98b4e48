/**
 * Conversations.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** How a conversation (`conversationWorkflow`) keeps its own history small, and its answers for retried requests. */
export const CONVERSATION_DEFAULTS = {
  /**
   * Turns one Temporal run of a conversation takes before it continues as new, unless its input says
   * otherwise (`turnsPerRun`). Each turn records its input and result, both carrying the whole history,
   * so the event history grows with turns × history; this keeps it bounded.
   */
  turnsPerRun: 25,
  /**
   * Answers kept by update id, so a retried request (same `Idempotency-Key`) gets its turn's answer
   * again, also after a continue-as-new.
   */
  rememberedTurns: 10,
} as const;
