import { RESULT_CACHE_DEFAULTS } from '../../src/shared/defaults/context-control';
import {
  RESULT_CACHE_TOOL,
  cacheResult,
  cacheSummary,
  cachedChars,
  cachingDue,
  readResultCache,
  summaryHeadChars,
  withoutOldestEntry,
  type ResultCache,
} from '../../src/workflows/rules/result-cache';

/** A result of `size` characters whose every character says where it is: `0123456789012...`. */
const digits = (size: number): string => Array.from({ length: size }, (_, index) => String(index % 10)).join('');
const result = (content: string, callId = 'call-1-1') => ({ toolName: 'read_file', callId, iteration: 1, content });
/** A cache holding one result of 20,000 characters as `cache-1`. */
const oneEntry = (): ResultCache => cacheResult(undefined, result(digits(20_000))).cache;

describe('cachingDue', () => {
  test('only a result longer than the inline threshold, and only when caching is on', () => {
    expect(cachingDue('x'.repeat(101), 100)).toBe(true);
    expect(cachingDue('x'.repeat(100), 100)).toBe(false);
    expect(cachingDue('x'.repeat(10_000), undefined)).toBe(false);
  });
});

describe('cacheResult', () => {
  test('numbers references in the order results come, and keeps the whole text', () => {
    const first = cacheResult(undefined, result('a'.repeat(500)));
    const second = cacheResult(first.cache, result('b'.repeat(700), 'call-2-1'));
    expect(first.entry).toEqual({
      ref: 'cache-1',
      toolName: 'read_file',
      callId: 'call-1-1',
      iteration: 1,
      content: 'a'.repeat(500),
      originalChars: 500,
    });
    expect(second.entry.ref).toBe('cache-2');
    expect(second.cache.entries.map((entry) => entry.ref)).toEqual(['cache-1', 'cache-2']);
    expect(second.cache.nextNumber).toBe(3);
    expect(second.dropped).toEqual([]);
    // The cache it was given is left as it was.
    expect(first.cache.entries).toHaveLength(1);
  });

  test('past its bound it drops the oldest entries, never the new one', () => {
    let cache: ResultCache | undefined;
    const dropped: string[][] = [];
    for (const size of [400, 300, 200, 500]) {
      const cached = cacheResult(cache, result('x'.repeat(size)), 1_000);
      cache = cached.cache;
      dropped.push(cached.dropped);
    }
    // 400 + 300 + 200 = 900 fit; with the fourth (500) the oldest goes, and exactly the bound is left.
    expect(dropped).toEqual([[], [], [], ['cache-1']]);
    expect(cache?.entries.map((entry) => entry.ref)).toEqual(['cache-2', 'cache-3', 'cache-4']);
    expect(cachedChars(cache as ResultCache)).toBe(1_000);
    // One more of 400 pushes out two: 300 + 200 + 500 + 400, less 300 and 200, is 900.
    expect(cacheResult(cache, result('w'.repeat(400)), 1_000).dropped).toEqual(['cache-2', 'cache-3']);
  });

  test('a result longer than the bound alone is kept cut to it, and says its length', () => {
    const cached = cacheResult(oneEntry(), result('y'.repeat(1_500)), 1_000);
    expect(cached.dropped).toEqual(['cache-1']);
    expect(cached.entry).toMatchObject({ ref: 'cache-2', originalChars: 1_500 });
    expect(cached.entry.content).toHaveLength(1_000);
    expect(cacheSummary(cached.entry, 400)).toContain('Only its first 1000 characters could be kept.');
  });

  test('the default bound is the constant', () => {
    const cached = cacheResult(undefined, result('z'.repeat(RESULT_CACHE_DEFAULTS.maxChars + 10)));
    expect(cached.entry.content).toHaveLength(RESULT_CACHE_DEFAULTS.maxChars);
  });

  test('withoutOldestEntry gives up the oldest entry and keeps the numbering', () => {
    const two = cacheResult(oneEntry(), result('b'.repeat(10))).cache;
    expect(withoutOldestEntry(two)).toEqual({ entries: [two.entries[1]], nextNumber: 3 });
  });
});

describe('cacheSummary', () => {
  test('names the reference, the size and how to read on, then shows the head', () => {
    const entry = oneEntry().entries[0]!;
    const summary = cacheSummary(entry, 4_000);
    expect(summary).toBe(
      '[Cached as cache-1: the result of read_file is 20000 characters, too long to show whole. Its first 1000 characters follow. ' +
        'Read any part with the result_cache tool, e.g. {"ref":"cache-1","offset":1000,"length":8000} (at most 8000 characters a call).]\n' +
        digits(1_000),
    );
  });

  test('shows at most half the threshold, so a summary is shorter than what it stands for', () => {
    expect(summaryHeadChars(600)).toBe(300);
    expect(summaryHeadChars(100_000)).toBe(RESULT_CACHE_DEFAULTS.headChars);
    const summary = cacheSummary(oneEntry().entries[0]!, 600);
    expect(summary.endsWith(`\n${digits(300)}`)).toBe(true);
    expect(summary).toContain('"offset":300');
  });

  test('never cuts the head inside a surrogate pair', () => {
    const entry = cacheResult(undefined, result(`${'a'.repeat(299)}😀${'b'.repeat(1_000)}`)).entry;
    expect(cacheSummary(entry, 600).endsWith(`\n${'a'.repeat(299)}`)).toBe(true);
  });
});

describe('readResultCache', () => {
  test('reads a slice, says where it is and where to read on', () => {
    const reading = readResultCache(oneEntry(), JSON.stringify({ ref: 'cache-1', offset: 1_000, length: 20 }));
    expect(reading).toEqual({
      isError: false,
      content: `[cache-1: characters 1000 to 1019 of 20000; read on with offset 1020]\n${digits(20_000).slice(1_000, 1_020)}`,
    });
  });

  test('defaults: from the start, as much as one call may read; the last slice says it is the end', () => {
    const first = readResultCache(oneEntry(), '{"ref":"cache-1"}');
    expect(first.content.split('\n')[0]).toBe('[cache-1: characters 0 to 7999 of 20000; read on with offset 8000]');
    expect(first.content.length).toBe(first.content.indexOf('\n') + 1 + RESULT_CACHE_DEFAULTS.sliceMaxChars);
    const last = readResultCache(oneEntry(), '{"ref":"cache-1","offset":19990}');
    expect(last.content).toBe(
      `[cache-1: characters 19990 to 19999 of 20000; this is the end]\n${digits(20_000).slice(19_990)}`,
    );
  });

  test('a slice never ends inside a surrogate pair', () => {
    const cache = cacheResult(undefined, result(`abc😀${'d'.repeat(100)}`)).cache;
    expect(readResultCache(cache, '{"ref":"cache-1","length":4}').content).toBe(
      '[cache-1: characters 0 to 2 of 105; read on with offset 3]\nabc',
    );
  });

  test.each([
    ['arguments that are not JSON', '{"ref":', 'the arguments are not valid JSON'],
    ['arguments that are not an object', '["cache-1"]', 'the arguments must be an object'],
    ['no ref', '{"offset":0}', 'ref must be the reference from the summary'],
    ['a ref that is not a text', '{"ref":1}', 'ref must be the reference from the summary'],
    ['an unknown argument', '{"ref":"cache-1","start":5}', 'unknown argument "start"'],
    ['an unknown ref', '{"ref":"cache-9"}', 'there is no cached result "cache-9"; the cache holds cache-1'],
    ['a ref of another shape', '{"ref":"../etc/passwd"}', 'there is no cached result "../etc/passwd"'],
    ['a negative offset', '{"ref":"cache-1","offset":-1}', 'offset must be a whole number, 0 or more (got -1)'],
    ['a fractional offset', '{"ref":"cache-1","offset":1.5}', 'offset must be a whole number, 0 or more (got 1.5)'],
    ['an offset as text', '{"ref":"cache-1","offset":"10"}', 'offset must be a whole number, 0 or more (got "10")'],
    [
      'an offset past the end',
      '{"ref":"cache-1","offset":20000}',
      'offset 20000 is past the end: cache-1 holds 20000 characters (offsets 0 to 19999)',
    ],
    [
      'a huge length',
      '{"ref":"cache-1","length":1000000000}',
      'length must be a whole number from 1 to 8000 (got 1000000000)',
    ],
    ['a zero length', '{"ref":"cache-1","length":0}', 'length must be a whole number from 1 to 8000 (got 0)'],
    ['a fractional length', '{"ref":"cache-1","length":2.5}', 'length must be a whole number from 1 to 8000 (got 2.5)'],
    [
      'an unsafe integer offset',
      '{"ref":"cache-1","offset":1e300}',
      'offset must be a whole number, 0 or more (got 1e+300)',
    ],
  ])('%s is a clear tool error', (_name, argumentsText, problem) => {
    const reading = readResultCache(oneEntry(), argumentsText);
    expect(reading.isError).toBe(true);
    expect(reading.content).toMatch(/^Error: result_cache: /);
    expect(reading.content).toContain(problem);
  });

  test('a dropped reference says it was dropped, not that it never was', () => {
    const cache = cacheResult(oneEntry(), result('b'.repeat(RESULT_CACHE_DEFAULTS.maxChars))).cache;
    expect(cache.entries.map((entry) => entry.ref)).toEqual(['cache-2']);
    expect(readResultCache(cache, '{"ref":"cache-1"}')).toEqual({
      isError: true,
      content: `Error: result_cache: cache-1 was dropped from the cache to keep it under ${RESULT_CACHE_DEFAULTS.maxChars} characters; call the tool that produced it again if you need it.`,
    });
    expect(readResultCache(cache, '{"ref":"cache-3"}').content).toContain(
      'there is no cached result "cache-3"; the cache holds cache-2',
    );
  });

  test('with nothing cached, any reference is unknown', () => {
    expect(readResultCache(undefined, '{"ref":"cache-1"}').content).toBe(
      'Error: result_cache: there is no cached result "cache-1"; the cache holds nothing.',
    );
  });
});

describe('RESULT_CACHE_TOOL', () => {
  test('describes the arguments the reader takes, with the slice bound', () => {
    expect(RESULT_CACHE_TOOL.name).toBe('result_cache');
    expect(RESULT_CACHE_TOOL.parameters).toMatchObject({
      required: ['ref'],
      additionalProperties: false,
      properties: {
        offset: { type: 'integer', minimum: 0 },
        length: { type: 'integer', maximum: RESULT_CACHE_DEFAULTS.sliceMaxChars },
      },
    });
  });
});
