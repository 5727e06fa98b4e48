import { capOutput } from '../../src/activities/tool-execution';
import {
  CONTEXT_BUDGET_BYTES,
  HISTORY_BUDGET_BYTES,
  HISTORY_EVENT_BUDGET,
  TOOL_OUTPUT_LIMIT_BYTES,
} from '../../src/shared/defaults/sizes';
import { SCHEMA_VERSION } from '../../src/shared/defaults/names';
import { ZERO_USAGE, type ChatMessage } from '../../src/shared/messages';
import { cutToBytes, formatBytes, jsonBytes, utf8Bytes } from '../../src/shared/payload-limits';
import { type AgentResult } from '../../src/shared/agent-result';
import { findSizeBreach, oversizedResult, projectedRunBytes } from '../../src/workflows/rules/size-rules';

const SAMPLES: [string, string][] = [
  ['empty', ''],
  ['ascii', 'plain ascii'],
  ['two-byte', 'café'],
  ['three-byte', '日本語のテキスト'],
  ['surrogate pairs', 'emoji 🎉 and 👩‍💻'],
  ['long', 'x'.repeat(1000)],
  ['the last code point', '\u{10FFFF}'],
  ['a lone high surrogate before a space', 'lone \ud800 surrogate'],
  ['a lone high surrogate before a two-byte character', 'lone \ud800é'],
  ['a lone low surrogate', 'lone \udc00 low'],
  ['a lone high surrogate at the end', 'ends with \ud83c'],
  ['the last ASCII character and the first past it', '\u007f and \u0080'],
  ['a long ASCII text with one emoji at its end', `${'x'.repeat(10_000)}🎉`],
];

describe('utf8Bytes', () => {
  test.each(SAMPLES)('counts %s text as Buffer.byteLength does', (_, text) => {
    expect(utf8Bytes(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });

  test('jsonBytes is the size of the JSON text', () => {
    const value = { role: 'tool', content: 'résumé 🎉' };
    expect(jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value)));
    expect(jsonBytes(undefined)).toBe(4);
  });
});

describe('cutToBytes', () => {
  test('text that fits is returned as it is', () => {
    expect(cutToBytes('héllo', 6)).toBe('héllo');
    expect(cutToBytes('héllo', 100)).toBe('héllo');
  });

  test('cuts on a character boundary, never inside a multi-byte character or a surrogate pair', () => {
    expect(cutToBytes('héllo', 2)).toBe('h'); // é is two bytes: it does not fit in the second
    expect(cutToBytes('ab🎉cd', 5)).toBe('ab'); // the emoji is four bytes
    expect(cutToBytes('ab🎉cd', 6)).toBe('ab🎉');
    expect(cutToBytes('日本語', 7)).toBe('日本');
  });

  test.each(SAMPLES.flatMap(([label, text]) => [0, 1, 5, 17].map((limit) => [label, limit, text] as const)))(
    '%s text cut to %i bytes fits and is a prefix',
    (_, limit, text) => {
      const cut = cutToBytes(text, limit);
      expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(limit);
      expect(text.startsWith(cut)).toBe(true);
    },
  );
});

describe('formatBytes', () => {
  test.each([
    [12, '12 bytes'],
    [2048, '2 KiB'],
    [600_000, '586 KiB'],
    [1.5 * 1024 * 1024, '1.5 MiB'],
    [3_000_000, '2.9 MiB'],
  ])('%i is %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe('projectedRunBytes', () => {
  const input: ChatMessage[] = [
    { role: 'user', content: 'earlier question' },
    { role: 'assistant', content: 'earlier answer' },
  ];
  const added: ChatMessage[] = [
    { role: 'user', content: 'q'.repeat(1000) },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'r'.repeat(5000) },
  ];

  test('counts the conversation, then what the run added once more (as the result carries it in the chat response format)', () => {
    const projected = projectedRunBytes([...input, ...added], input.length, undefined);
    expect(projected).toBeGreaterThan(jsonBytes([...input, ...added]) + 6000);
    expect(projected).toBeLessThan(2 * jsonBytes([...input, ...added]));
  });

  test('the instructions count instead when they are larger (a model call carries them)', () => {
    const instructions = 'i'.repeat(50_000);
    expect(projectedRunBytes(input, input.length, instructions)).toBe(jsonBytes(input) + 50_000);
  });
});

describe('findSizeBreach', () => {
  const quiet = { bytes: 1_000_000, events: 500 };

  test('nothing inside the budgets', () => {
    expect(
      findSizeBreach(CONTEXT_BUDGET_BYTES, { bytes: HISTORY_BUDGET_BYTES, events: HISTORY_EVENT_BUDGET }),
    ).toBeUndefined();
  });

  test('the conversation over its budget', () => {
    expect(findSizeBreach(CONTEXT_BUDGET_BYTES + 1, quiet)).toEqual({
      kind: 'context',
      bytes: CONTEXT_BUDGET_BYTES + 1,
      budget: CONTEXT_BUDGET_BYTES,
    });
  });

  test.each([
    ['bytes', { bytes: HISTORY_BUDGET_BYTES + 1, events: 500 }],
    ['events', { bytes: 1_000_000, events: HISTORY_EVENT_BUDGET + 1 }],
  ])('the history over its budget in %s', (_, history) => {
    expect(findSizeBreach(1000, history)).toEqual({
      kind: 'history',
      ...history,
      budgetBytes: HISTORY_BUDGET_BYTES,
      budgetEvents: HISTORY_EVENT_BUDGET,
    });
  });

  test('the conversation is reported first when both are over', () => {
    expect(findSizeBreach(CONTEXT_BUDGET_BYTES + 1, { bytes: HISTORY_BUDGET_BYTES + 1, events: 0 })?.kind).toBe(
      'context',
    );
  });
});

describe('oversizedResult', () => {
  const resultWith = (content: string): AgentResult => ({
    schemaVersion: SCHEMA_VERSION,
    response: 'ok',
    terminationReason: { type: 'complete' },
    iterations: 1,
    invocations: 1,
    consecutiveNudges: 0,
    restrictionInjections: 0,
    usage: ZERO_USAGE,
    messages: [{ role: 'user', content }],
    generatedMessages: [{ sender: 'human', message: content }],
  });

  test('a result that fits is let through; one near the 2 MiB limit is caught with its size', () => {
    expect(oversizedResult(resultWith('x'.repeat(900_000)))).toBeUndefined();
    const tooLarge = resultWith('x'.repeat(1_100_000));
    expect(oversizedResult(tooLarge)).toBe(jsonBytes(tooLarge));
  });
});

describe('capOutput (the executeTool activity)', () => {
  test('a result within the limit is returned as it is', () => {
    const result = { content: 'x'.repeat(TOOL_OUTPUT_LIMIT_BYTES), isError: false, terminate: false };
    expect(capOutput(result)).toBe(result);
  });

  test('a larger one is cut to the limit, with a note at the end; its flags are kept', () => {
    const capped = capOutput({ content: 'é'.repeat(200_000), isError: true, terminate: false });
    expect(Buffer.byteLength(capped.content)).toBeLessThanOrEqual(TOOL_OUTPUT_LIMIT_BYTES);
    expect(capped.content).toMatch(/^é+\n\[cut: the tool returned 391 KiB; a tool result keeps at most 256 KiB\]$/);
    expect(capped).toMatchObject({ isError: true, terminate: false });
  });
});
