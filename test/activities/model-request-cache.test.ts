import { ModelRequestCache, modelRequestKey } from '../../src/activities/model-request-cache';
import type { ChatMessage } from '../../src/shared/messages';

const conversation = (count: number): ChatMessage[] =>
  Array.from({ length: count }, (_, index) => ({ role: 'user', content: `message ${index}` }));

describe('ModelRequestCache', () => {
  test('a conversation is taken once, by the call of its workflow run and iteration', () => {
    const cache = new ModelRequestCache(1_000, 60_000, () => 0);
    const messages = conversation(3);
    cache.offer(modelRequestKey('wf', 'run', 4), messages, 100);
    expect(cache.take(modelRequestKey('wf', 'other-run', 4), 3)).toBeUndefined();
    expect(cache.take(modelRequestKey('wf', 'run', 5), 3)).toBeUndefined();
    expect(cache.take(modelRequestKey('wf', 'run', 4), 3)).toBe(messages);
    // A retried attempt finds nothing and reads the conversation by query.
    expect(cache.take(modelRequestKey('wf', 'run', 4), 3)).toBeUndefined();
    expect(cache.stats).toEqual({ taken: 1, missed: 3 });
    expect(cache.size).toBe(0);
  });

  test('a conversation of another length than the call expects is not handed over', () => {
    const cache = new ModelRequestCache(1_000, 60_000, () => 0);
    cache.offer('key', conversation(3), 100);
    expect(cache.take('key', 4)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test('past its bytes the oldest conversations go; one larger than the cache is not held', () => {
    const cache = new ModelRequestCache(250, 60_000, () => 0);
    cache.offer('first', conversation(1), 100);
    cache.offer('second', conversation(1), 100);
    cache.offer('third', conversation(1), 100);
    expect(cache.size).toBe(2);
    expect(cache.take('first', 1)).toBeUndefined();
    expect(cache.take('second', 1)).toHaveLength(1);
    cache.offer('huge', conversation(1), 251);
    expect(cache.size).toBe(1);
    expect(cache.take('huge', 1)).toBeUndefined();
    expect(cache.take('third', 1)).toHaveLength(1);
  });

  test('a conversation whose call did not come within the age limit goes', () => {
    let now = 0;
    const cache = new ModelRequestCache(1_000, 60_000, () => now);
    cache.offer('old', conversation(1), 10);
    now = 30_000;
    cache.offer('new', conversation(1), 10);
    now = 60_001;
    expect(cache.take('old', 1)).toBeUndefined();
    expect(cache.take('new', 1)).toHaveLength(1);
  });

  test('offering the same call again replaces it and counts its bytes once', () => {
    const cache = new ModelRequestCache(150, 60_000, () => 0);
    cache.offer('key', conversation(1), 100);
    cache.offer('key', conversation(2), 100);
    cache.offer('other', conversation(1), 50);
    expect(cache.size).toBe(2);
    expect(cache.take('key', 2)).toHaveLength(2);
  });
});
