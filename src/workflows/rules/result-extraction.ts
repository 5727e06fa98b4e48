import { DEFAULT_EXTRACTION_INSTRUCTIONS, RESULT_EXTRACTION_DEFAULTS } from '../../shared/defaults/context-control';
import type { ExtractionInput, ExtractionResult } from '../../shared/activity-types';
import type { ResultProcessingConfig } from '../../shared/loop-guard-schemas';
import type { ChatMessage } from '../../shared/messages';

/**
 * The result pipeline's extractor: a successful result past `extractThreshold` is condensed by a model call, and
 * replaced only by a shorter text.
 */

/** Whether the extractor takes `content`: extraction is on and the text is longer than `extractThreshold`. */
export function extractionDue(content: string, config: ResultProcessingConfig): boolean {
  return config.extractThreshold !== undefined && content.length > config.extractThreshold;
}

/** The text of the conversation's last user message, cut to the guidance's bound; undefined when there is none. */
export function lastUserMessage(messages: readonly ChatMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') return message.content.slice(0, RESULT_EXTRACTION_DEFAULTS.guidanceChars);
  }
  return undefined;
}

/** The extraction activity's input for one result. */
export function extractionInput(
  toolName: string,
  content: string,
  messages: readonly ChatMessage[],
  config: ResultProcessingConfig,
  runModel: string | undefined,
): ExtractionInput {
  const guidance = lastUserMessage(messages);
  const model = config.extractModel ?? runModel;
  return {
    ...(model === undefined ? {} : { model }),
    instructions: config.extractInstructions ?? DEFAULT_EXTRACTION_INSTRUCTIONS,
    toolName,
    content,
    ...(guidance === undefined ? {} : { guidance }),
    // Not the result's length: an answer longer than the result is refused whole (`unusableExtraction`), never cut to fit.
    maxChars: RESULT_EXTRACTION_DEFAULTS.maxChars,
  };
}

/** Why an extraction's answer cannot replace the result, or undefined when it can. */
export function unusableExtraction(original: string, result: Pick<ExtractionResult, 'content'>): string | undefined {
  if (result.content === '') return 'the extractor wrote no text';
  if (result.content.length >= original.length) return 'the extractor wrote no shorter text than the result';
  return undefined;
}
