import {
  continuedAnswer,
  decideTruncatedAnswer,
  truncatedToolCalls,
} from '../../src/workflows/rules/answer-truncation';
import type { ChatMessage } from '../../src/shared/messages';

const continuation = { role: 'system', content: 'go on', meta: { injected: 'continuation' } } as const;

describe('answers cut by the token cap', () => {
  test('continue while continuations are left, then fail; fail and accept at once', () => {
    expect(decideTruncatedAnswer(undefined, 0)).toEqual({ kind: 'continue' });
    expect(decideTruncatedAnswer(undefined, 2)).toEqual({ kind: 'fail', continuations: 2, maxContinuations: 2 });
    expect(decideTruncatedAnswer({ action: 'continue', maxContinuations: 0 }, 0)).toMatchObject({ kind: 'fail' });
    expect(decideTruncatedAnswer({ action: 'fail', maxContinuations: 2 }, 0)).toEqual({
      kind: 'fail',
      continuations: 0,
      maxContinuations: 0,
    });
    expect(decideTruncatedAnswer({ action: 'accept', maxContinuations: 2 }, 5)).toEqual({ kind: 'accept' });
  });

  test('the answer is its parts joined, across the continuation requests only', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'write' },
      { role: 'assistant', content: 'earlier turn' },
      { role: 'system', content: 'a nudge', meta: { injected: 'nudge' } },
      { role: 'assistant', content: 'one ' },
      continuation,
      { role: 'assistant', content: 'two ' },
      continuation,
      { role: 'assistant', content: 'three' },
    ];
    expect(continuedAnswer(messages)).toEqual({ text: 'one two three', continuations: 2 });
    expect(continuedAnswer(messages.slice(0, 4))).toEqual({ text: 'one ', continuations: 0 });
    expect(continuedAnswer([{ role: 'user', content: 'x' }])).toEqual({ text: '', continuations: 0 });
  });

  test('a cut tool call is one whose arguments are not JSON; empty arguments are {}', () => {
    const call = (id: string, args: string) => ({
      id,
      type: 'function' as const,
      function: { name: 't', arguments: args },
    });
    expect(
      truncatedToolCalls([call('a', '{"x": 1}'), call('b', '{"x": "cu'), call('c', ' ')]).map((c) => c.id),
    ).toEqual(['b']);
  });
});
