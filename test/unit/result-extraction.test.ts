import { DEFAULT_EXTRACTION_INSTRUCTIONS, RESULT_EXTRACTION_DEFAULTS } from '../../src/shared/defaults/context-control';
import { type ChatMessage } from '../../src/shared/messages';
import {
  extractionDue,
  extractionInput,
  lastUserMessage,
  unusableExtraction,
} from '../../src/workflows/rules/result-extraction';

const conversation: ChatMessage[] = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'find the error in the log' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'log...' },
];

describe('extractionDue', () => {
  test('only a result longer than extractThreshold, and only when extraction is on', () => {
    expect(extractionDue('x'.repeat(101), { extractThreshold: 100 })).toBe(true);
    expect(extractionDue('x'.repeat(100), { extractThreshold: 100 })).toBe(false);
    expect(extractionDue('x'.repeat(10_000), { inlineThreshold: 10 })).toBe(false);
  });
});

describe('lastUserMessage', () => {
  test('is the newest user message, whatever follows it', () => {
    expect(lastUserMessage(conversation)).toBe('find the error in the log');
    expect(
      lastUserMessage([
        ...conversation,
        { role: 'user', content: 'only the first error' },
        { role: 'system', content: 'nudge' },
      ]),
    ).toBe('only the first error');
  });

  test('is undefined without one, and cut to its bound', () => {
    expect(lastUserMessage([{ role: 'system', content: 'x' }])).toBeUndefined();
    expect(
      lastUserMessage([{ role: 'user', content: 'q'.repeat(RESULT_EXTRACTION_DEFAULTS.guidanceChars + 5) }]),
    ).toHaveLength(RESULT_EXTRACTION_DEFAULTS.guidanceChars);
  });
});

describe('extractionInput', () => {
  test('the extractor model, else the run model; the default prompt; the last user message as guidance', () => {
    const content = 'L'.repeat(5_000);
    expect(
      extractionInput('read_file', content, conversation, { extractThreshold: 100, extractModel: 'cheap' }, 'main'),
    ).toEqual({
      model: 'cheap',
      instructions: DEFAULT_EXTRACTION_INSTRUCTIONS,
      toolName: 'read_file',
      content,
      guidance: 'find the error in the log',
      maxChars: RESULT_EXTRACTION_DEFAULTS.maxChars,
    });
    const plain = extractionInput(
      'read_file',
      content,
      [],
      { extractThreshold: 100, extractInstructions: 'Only errors.' },
      undefined,
    );
    expect(plain).toEqual({
      instructions: 'Only errors.',
      toolName: 'read_file',
      content,
      maxChars: RESULT_EXTRACTION_DEFAULTS.maxChars,
    });
  });

  test('a condensed text is never longer than the bound', () => {
    expect(extractionInput('t', 'x'.repeat(1_000_000), [], { extractThreshold: 1 }, undefined).maxChars).toBe(
      RESULT_EXTRACTION_DEFAULTS.maxChars,
    );
  });
});

describe('unusableExtraction', () => {
  test('an empty or no shorter text cannot replace the result; a shorter one can', () => {
    expect(unusableExtraction('abcdef', { content: '' })).toBe('the extractor wrote no text');
    expect(unusableExtraction('abcdef', { content: 'abcdef' })).toBe(
      'the extractor wrote no shorter text than the result',
    );
    expect(unusableExtraction('abcdef', { content: 'abc' })).toBeUndefined();
  });
});
