import type { ChatMessage } from '../../src/shared/messages';
import { messagePage, newestThatFit } from '../../src/workflows/rules/message-pages';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const call = (id: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 't', arguments: '{}' } }],
});
const result = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

describe('messagePage', () => {
  const messages = Array.from({ length: 10 }, (_, index) => user(`m${index}`));

  test('a page from an index, with the total', () => {
    expect(messagePage(messages, 3, 4)).toEqual({ total: 10, from: 3, messages: messages.slice(3, 7) });
    expect(messagePage(messages, 8, 4)).toEqual({ total: 10, from: 8, messages: messages.slice(8) });
    expect(messagePage(messages, 10, 4)).toEqual({ total: 10, from: 10, messages: [] });
  });

  test("a caller's arguments that are no numbers, negative or past the end read as the start, a full page, or the end", () => {
    expect(messagePage(messages, 'abc', 'x').from).toBe(0);
    expect(messagePage(messages, -5, 2)).toEqual({ total: 10, from: 0, messages: messages.slice(0, 2) });
    expect(messagePage(messages, 99, 2)).toEqual({ total: 10, from: 10, messages: [] });
    expect(messagePage(messages, 0, 0).messages).toHaveLength(1);
    expect(messagePage(messages, 0, Number.POSITIVE_INFINITY).messages).toHaveLength(10);
    expect(messagePage(messages, 2.7, 1e9).from).toBe(2);
  });

  test('a page stops at its byte limit, but always holds one message', () => {
    const large = [user('a'.repeat(600)), user('b'.repeat(600)), user('c')];
    expect(messagePage(large, 0, 10, 1000).messages).toEqual([large[0]]);
    expect(messagePage(large, 1, 10, 100).messages).toEqual([large[1]]);
  });
});

describe('newestThatFit', () => {
  test('0 when everything fits', () => {
    expect(newestThatFit([user('a'), user('b')], 10_000)).toBe(0);
  });

  test('the newest messages within the budget, never starting with results whose call is left out', () => {
    const messages = [
      user('q'),
      call('c1'),
      result('c1', 'x'.repeat(500)),
      call('c2'),
      result('c2', 'y'.repeat(500)),
      user('done'),
    ];
    const from = newestThatFit(messages, 700);
    expect(from).toBe(5);
    const wider = newestThatFit(messages, 1300);
    expect(messages[wider]?.role).not.toBe('tool');
    expect(wider).toBe(3);
  });

  test('at least the last message, even when it alone is over the budget', () => {
    expect(newestThatFit([user('a'), result('c', 'z'.repeat(1000))], 100)).toBe(1);
  });
});
