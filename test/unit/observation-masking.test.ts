import { type MaskingConfig } from '../../src/shared/loop-guard-schemas';
import { type ChatMessage } from '../../src/shared/messages';
import {
  estimateTokens,
  maskedObservationText,
  maskObservations,
  toolNameLookup,
} from '../../src/workflows/rules/observation-masking';

const config: MaskingConfig = { keepIterations: 2, minTokens: 500 };
/** Content of exactly `tokens` estimated tokens. */
const ofTokens = (tokens: number): string => 'x'.repeat(tokens * 4);

const assistant = (iteration: number, ...calls: [string, string][]): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: calls.map(([id, name]) => ({ id, type: 'function', function: { name, arguments: '{}' } })),
  meta: { iteration },
});
const tool = (id: string, content: string, iteration?: number): ChatMessage =>
  iteration === undefined
    ? { role: 'tool', tool_call_id: id, content }
    : { role: 'tool', tool_call_id: id, content, meta: { iteration } };

const names: Record<string, string> = { c1: 'read_file', c2: 'search', c3: 'read_file', c4: 'shell' };
const nameOf = (id: string): string | undefined => names[id];

describe('estimateTokens', () => {
  test('is characters divided by four, rounded up', () => {
    expect([0, 1, 4, 5, 8, 2_000, 2_001].map((length) => estimateTokens('x'.repeat(length)))).toEqual([
      0, 1, 1, 2, 2, 500, 501,
    ]);
  });
});

describe('maskObservations', () => {
  test('masks a large result from an iteration older than the kept ones, with a placeholder naming tool, iteration and tokens', () => {
    const messages = [assistant(1, ['c1', 'read_file']), tool('c1', ofTokens(1_200), 1)];
    const { messages: masked, masked: report } = maskObservations(messages, 3, config, nameOf);

    expect(masked[1]).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: '[Masked: read_file result from iteration 1, about 1200 tokens. Call the tool again if you need it.]',
      meta: { iteration: 1 },
    });
    expect(report).toEqual([{ toolCallId: 'c1', toolName: 'read_file', iteration: 1, tokens: 1_200 }]);
  });

  test('iteration exactly at the cut (currentIteration - keepIterations) is masked; one newer is kept', () => {
    const messages = [tool('c1', ofTokens(600), 3), tool('c2', ofTokens(600), 4), tool('c3', ofTokens(600), 5)];
    const { masked } = maskObservations(messages, 5, config, nameOf);

    expect(masked.map((entry) => entry.iteration)).toEqual([3]);
  });

  test('with keepIterations 1 only the current iteration is kept', () => {
    const messages = [tool('c1', ofTokens(600), 4), tool('c2', ofTokens(600), 5)];

    expect(
      maskObservations(messages, 5, { keepIterations: 1, minTokens: 500 }, nameOf).masked.map(
        (entry) => entry.toolCallId,
      ),
    ).toEqual(['c1']);
  });

  test('tokens exactly at minTokens are masked; one below is kept', () => {
    const messages = [
      tool('c1', ofTokens(500), 1),
      tool('c2', 'x'.repeat(500 * 4 - 4), 1),
      tool('c3', 'x'.repeat(500 * 4 - 3), 1),
    ];
    const { messages: result, masked } = maskObservations(messages, 5, config, nameOf);

    expect(masked.map((entry) => [entry.toolCallId, entry.tokens])).toEqual([
      ['c1', 500],
      ['c3', 500],
    ]);
    expect(result[1]).toBe(messages[1]);
  });

  test('a message without meta.iteration is never masked', () => {
    const messages = [tool('c1', ofTokens(5_000))];
    const { messages: result, masked } = maskObservations(messages, 100, config, nameOf);

    expect(masked).toEqual([]);
    expect(result[0]).toBe(messages[0]);
  });

  test('only tool messages are masked, whatever their size and age', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: ofTokens(5_000), meta: { iteration: 1 } },
      { role: 'assistant', content: ofTokens(5_000), meta: { iteration: 1 } },
      { role: 'system', content: ofTokens(5_000), meta: { injected: 'nudge', iteration: 1 } },
    ];
    const { messages: result, masked } = maskObservations(messages, 10, config, nameOf);

    expect(masked).toEqual([]);
    expect(result).toEqual(messages);
  });

  test('an early iteration masks nothing (the cut is below 1)', () => {
    const messages = [tool('c1', ofTokens(600), 1), tool('c2', ofTokens(600), 2)];

    expect(maskObservations(messages, 2, config, nameOf).masked).toEqual([]);
  });

  test('an unknown tool call id is named "unknown tool"', () => {
    const { messages: result, masked } = maskObservations([tool('zz', ofTokens(600), 1)], 5, config, nameOf);

    expect(masked[0]?.toolName).toBe('unknown tool');
    expect(result[0]?.content).toBe(maskedObservationText('unknown tool', 1, 600));
  });

  test('structure is preserved: same length, order, roles, tool_call_ids and meta; only content changes', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'go' },
      assistant(1, ['c1', 'read_file'], ['c2', 'search']),
      tool('c1', ofTokens(700), 1),
      tool('c2', 'small', 1),
      assistant(4, ['c4', 'shell']),
      tool('c4', ofTokens(700), 4),
    ];
    const { messages: result } = maskObservations(messages, 4, config, nameOf);
    const shape = (list: ChatMessage[]) =>
      list.map((message) => ({
        role: message.role,
        id: message.role === 'tool' ? message.tool_call_id : null,
        meta: message.meta,
      }));

    expect(shape(result)).toEqual(shape(messages));
    expect(result[1]).toBe(messages[1]);
    expect(result[2]?.content).toBe(maskedObservationText('read_file', 1, 700));
    expect(result[3]).toBe(messages[3]);
    expect(result[5]).toBe(messages[5]);
  });

  test('the input array and its messages are not modified', () => {
    const messages = [assistant(1, ['c1', 'read_file']), tool('c1', ofTokens(800), 1)];
    const before = structuredClone(messages);
    const { messages: result } = maskObservations(messages, 5, config, nameOf);

    expect(messages).toEqual(before);
    expect(result).not.toBe(messages);
    expect(result[1]).not.toBe(messages[1]);
  });

  test('a new array is returned even when nothing is masked', () => {
    const messages = [tool('c1', 'small', 1)];
    const { messages: result } = maskObservations(messages, 5, config, nameOf);

    expect(result).not.toBe(messages);
    expect(result).toEqual(messages);
  });
});

describe('toolNameLookup', () => {
  test("finds tool names in the assistant messages' tool calls", () => {
    const lookup = toolNameLookup([
      assistant(1, ['c1', 'read_file']),
      tool('c1', 'x', 1),
      assistant(2, ['c2', 'search']),
    ]);

    expect([lookup('c1'), lookup('c2'), lookup('nope')]).toEqual(['read_file', 'search', undefined]);
  });

  test('works as the toolNameOf of maskObservations', () => {
    const messages = [assistant(1, ['c9', 'fetch_page']), tool('c9', ofTokens(900), 1)];

    expect(maskObservations(messages, 3, config, toolNameLookup(messages)).masked[0]?.toolName).toBe('fetch_page');
  });
});

describe('toolNameLookup across conversation turns', () => {
  test('an id two turns share names the tool of the answer the result follows', () => {
    const messages = [
      assistant(1, ['call-1-1', 'search']),
      tool('call-1-1', 'x', 1),
      assistant(1, ['call-1-1', 'send']),
      tool('call-1-1', 'y', 1),
    ];
    const lookup = toolNameLookup(messages);
    expect(lookup('call-1-1', 1)).toBe('search');
    expect(lookup('call-1-1', 3)).toBe('send');
  });
});
