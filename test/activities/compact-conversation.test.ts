import { COMPACTION_SUMMARY_CUT_NOTE } from '../../src/shared/defaults/context-control';
import { type ChatMessage } from '../../src/shared/messages';
import { type CompactionInput, type CompactionResult } from '../../src/shared/activity-types';
import { quietEnvironment, useModelActivities } from '../helpers/model-activities';
import { applicationFailureOf } from '../helpers/promises';

/**
 * The `compactConversation` activity against the scripted OpenAI-compatible
 * server, through the real `openai` client, in Temporal's mock activity
 * environment.
 */

const DEFAULT_MODEL = 'default-model-for-compaction-tests';
const API_KEY = 'sk-compaction-test-key-0123456789';

const models = useModelActivities('compaction', { apiKey: API_KEY, defaultModel: DEFAULT_MODEL });

const transcript: ChatMessage[] = [
  { role: 'user', content: 'Sum the numbers in a.txt.' },
  {
    role: 'assistant',
    content: 'Reading it.',
    tool_calls: [{ id: 'call-1-1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }],
    meta: { iteration: 1 },
  },
  { role: 'tool', tool_call_id: 'call-1-1', content: '1 2 3', meta: { iteration: 1 } },
];

function compact(overrides: Partial<CompactionInput>): Promise<CompactionResult> {
  const input: CompactionInput = {
    instructions: 'Summarise.',
    messages: transcript,
    maxSummaryChars: 1_000,
    ...overrides,
  };
  return quietEnvironment().run(models.activities.compactConversation, input);
}

describe('compactConversation', () => {
  test("sends the run's sampling settings, but never tool_choice: no tools are offered", async () => {
    const model = models.script([{ content: 'A summary.' }]);

    await compact({ model, sampling: { maxTokens: 200, temperature: 0, seed: 3, toolChoice: 'required' } });

    const [request] = models.server.requests(model);
    expect(request).toMatchObject({ max_tokens: 200, temperature: 0, seed: 3 });
    expect(request).not.toHaveProperty('tool_choice');
  });

  test('sends the instructions and the messages as one transcript, without tools, and returns the summary and usage', async () => {
    const model = models.script([{ content: '  The user wants a.txt summed; it holds 1 2 3.\n' }]);

    const result = await compact({ model });

    expect(result).toMatchObject({ summary: 'The user wants a.txt summed; it holds 1 2 3.', cut: false, model });
    expect(result.usage.totalTokens).toBe(result.usage.promptTokens + result.usage.completionTokens);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    const [request] = models.server.requests(model);
    expect(request?.tools).toBeUndefined();
    expect(request?.stream).toBeUndefined();
    expect(request?.messages).toEqual([
      { role: 'system', content: 'Summarise.' },
      {
        role: 'user',
        content:
          'The transcript to summarise:\n\n[user]\nSum the numbers in a.txt.\n\n[assistant]\nReading it.\n' +
          '[assistant called read_file with {"path":"a.txt"}]\n\n[result of read_file]\n1 2 3',
      },
    ]);
  });

  test("uses the worker's default model when the input names none", async () => {
    models.server.script(DEFAULT_MODEL, [{ content: 'summary' }]);
    expect((await compact({})).model).toBe(DEFAULT_MODEL);
  });

  test('a summary longer than maxSummaryChars is cut there, with a note, and says so', async () => {
    const model = models.script([{ content: 'y'.repeat(5_000) }]);

    const result = await compact({ model, maxSummaryChars: 600 });

    expect(result.cut).toBe(true);
    expect(result.summary.length).toBeLessThanOrEqual(600);
    expect(result.summary.endsWith(COMPACTION_SUMMARY_CUT_NOTE)).toBe(true);
  });

  test('an answer without text (tool calls only) is an empty summary, for the workflow to refuse', async () => {
    const model = models.script([{ toolCalls: [{ name: 'finish', arguments: {} }] }]);
    expect(await compact({ model })).toMatchObject({ summary: '', cut: false });
  });

  test("the provider's failures are classified as callModel's, with the key redacted", async () => {
    const model = models.script([{ echoKey: {} }]);

    const failure = await applicationFailureOf(compact({ model }));

    expect(failure).toMatchObject({ type: 'ModelCall.Unauthorized', nonRetryable: true });
    expect(failure.message).toContain('Incorrect API key provided: [redacted].');
    expect(JSON.stringify({ message: failure.message, stack: failure.stack, details: failure.details })).not.toContain(
      API_KEY,
    );
  });

  test('a 2xx answer that is not a chat completion is ModelCall.InvalidResponse', async () => {
    const model = models.script([{ raw: { body: '<html>proxy</html>', contentType: 'text/html' } }]);
    expect(await applicationFailureOf(compact({ model }))).toMatchObject({
      type: 'ModelCall.InvalidResponse',
      nonRetryable: false,
    });
  });
});
