import { ApplicationFailure } from '@temporalio/common';
import { EXTRACTION_CUT_NOTE } from '../../src/shared/defaults/context-control';
import { type ExtractionInput, type ExtractionResult } from '../../src/shared/activity-types';
import { quietEnvironment, useModelActivities } from '../helpers/model-activities';
import { rejectionOf } from '../helpers/promises';

/**
 * The `extractToolResult` activity (the result pipeline's extractor) against
 * the scripted OpenAI-compatible server, through the real `openai` client, in
 * Temporal's mock activity environment. It shares its request code with
 * `compactConversation` (`text-completion.ts`).
 */

const DEFAULT_MODEL = 'default-model-for-extraction-tests';
const API_KEY = 'sk-extraction-test-key-0123456789';

const models = useModelActivities('extraction', { apiKey: API_KEY, defaultModel: DEFAULT_MODEL });

const LOG = 'INFO start\nINFO step\nERROR disk full on /var\nINFO done';

function extract(overrides: Partial<ExtractionInput>): Promise<ExtractionResult> {
  const input: ExtractionInput = {
    instructions: 'Condense.',
    toolName: 'read_file',
    content: LOG,
    guidance: 'Why did the job fail?',
    maxChars: 1_000,
    ...overrides,
  };
  return quietEnvironment().run(models.activities.extractToolResult, input);
}

describe('extractToolResult', () => {
  test('sends the instructions, the user request and the result, without tools, and returns the condensed text and usage', async () => {
    const model = models.script([{ content: ' ERROR disk full on /var \n' }]);

    const result = await extract({ model });

    expect(result).toMatchObject({ content: 'ERROR disk full on /var', cut: false, model });
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    const [request] = models.server.requests(model);
    expect(request?.tools).toBeUndefined();
    expect(request?.messages).toEqual([
      { role: 'system', content: 'Condense.' },
      {
        role: 'user',
        content: `The user's request:\nWhy did the job fail?\n\nThe result of the tool read_file to condense (${LOG.length} characters):\n\n${LOG}`,
      },
    ]);
  });

  test("without guidance it says the request is not known; the worker's default model when none is named", async () => {
    models.server.script(DEFAULT_MODEL, [{ content: 'short' }]);
    const result = await extract({ guidance: undefined });
    expect(result.model).toBe(DEFAULT_MODEL);
    expect(models.server.requests(DEFAULT_MODEL).at(-1)?.messages[1]?.content).toMatch(
      /^The user's request is not known/,
    );
  });

  test('a text longer than maxChars is cut there, with a note', async () => {
    const model = models.script([{ content: 'y'.repeat(5_000) }]);
    const result = await extract({ model, maxChars: 200 });
    expect(result.cut).toBe(true);
    expect(result.content.length).toBeLessThanOrEqual(200);
    expect(result.content.endsWith(EXTRACTION_CUT_NOTE)).toBe(true);
  });

  test("the provider's failures are classified as callModel's, with the key redacted", async () => {
    const model = models.script([{ echoKey: {} }]);
    const error = await rejectionOf(extract({ model }));
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: 'ModelCall.Unauthorized', nonRetryable: true });
    expect(JSON.stringify({ message: (error as Error).message })).not.toContain(API_KEY);
  });
});
