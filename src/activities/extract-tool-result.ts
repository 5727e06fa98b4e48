import { EXTRACTION_CUT_NOTE } from '../shared/defaults/context-control';
import { type ExtractionInput, type ExtractionResult } from '../shared/activity-types';
import type { ModelSettings } from '../shared/model-settings';
import { createTextRequest, withinLength } from './text-completion';

/**
 * The `extractToolResult` activity: one text request (`text-completion.ts`, failing and retried as a model call) that
 * condenses a tool result for the user's request.
 */
export function createToolResultExtraction(settings: ModelSettings, heartbeatIntervalMs?: number) {
  const requestText = createTextRequest(settings, heartbeatIntervalMs);

  return async function extractToolResult(input: ExtractionInput): Promise<ExtractionResult> {
    const answer = await requestText({
      model: input.model,
      system: input.instructions,
      user: extractionRequest(input),
      requirePrice: input.requirePrice,
      ...(input.sampling === undefined ? {} : { sampling: input.sampling }),
    });
    const { text: content, cut } = withinLength(answer.text, input.maxChars, EXTRACTION_CUT_NOTE);
    return { content, cut, usage: answer.usage, model: answer.model };
  };
}

/**
 * The extraction call's user message: the user's request first, as the
 * guidance, then the result as a quoted text, so the model condenses it
 * rather than taking it up as its own task.
 */
function extractionRequest(input: Pick<ExtractionInput, 'toolName' | 'content' | 'guidance'>): string {
  const guidance =
    input.guidance === undefined
      ? "The user's request is not known: keep what any next step may need."
      : `The user's request:\n${input.guidance}`;
  return `${guidance}\n\nThe result of the tool ${input.toolName} to condense (${input.content.length} characters):\n\n${input.content}`;
}
