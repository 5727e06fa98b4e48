import { COMPACTION_SUMMARY_CUT_NOTE } from '../shared/defaults/context-control';
import { type CompactionInput, type CompactionResult } from '../shared/activity-types';
import { compactionTranscript } from './compaction-transcript';
import type { ModelSettings } from '../shared/model-settings';
import { createTextRequest, withinLength } from './text-completion';

/**
 * The `compactConversation` activity: one text request (`text-completion.ts`) that summarises the given messages.
 */
export function createConversationCompaction(settings: ModelSettings, heartbeatIntervalMs?: number) {
  const requestText = createTextRequest(settings, heartbeatIntervalMs);

  return async function compactConversation(input: CompactionInput): Promise<CompactionResult> {
    const answer = await requestText({
      model: input.model,
      system: input.instructions,
      user: compactionTranscript(input.messages),
      requirePrice: input.requirePrice,
      ...(input.sampling === undefined ? {} : { sampling: input.sampling }),
    });
    // Only the text can stand for the messages.
    const { text: summary, cut } = withinLength(answer.text, input.maxSummaryChars, COMPACTION_SUMMARY_CUT_NOTE);
    return { summary, cut, usage: answer.usage, model: answer.model };
  };
}
