import { CONTEXT_RELEASE_LIMITS } from '../../src/shared/defaults/context-control';
import { type ChatMessage } from '../../src/shared/messages';
import { CONTEXT_RELEASE_DESCRIPTION, decideContextRelease } from '../../src/workflows/rules/context-release';
import { maskObservations } from '../../src/workflows/rules/observation-masking';

const args = (value: unknown): string => JSON.stringify(value);

describe('decideContextRelease', () => {
  test('releases earlier iterations, sorted and joined with those released before', () => {
    const decision = decideContextRelease(args({ iterations: [4, 2] }), 6, [1]);
    expect(decision).toEqual({
      result: {
        content: 'Released iterations 2, 4: large tool results from them are masked from your next call on.',
        isError: false,
        terminate: false,
      },
      released: [2, 4],
      ignored: 0,
      releasedIterations: [1, 2, 4],
    });
  });

  test('ignores, and names, entries that are not whole numbers, not earlier iterations, or released already', () => {
    const decision = decideContextRelease(args({ iterations: [3, 3, 1, 5, 9, 0, -2, 1.5, '2', null] }), 5, [1]);
    expect(decision.released).toEqual([3]);
    expect(decision.releasedIterations).toEqual([1, 3]);
    expect(decision.ignored).toBe(9);
    expect(decision.result).toEqual({
      content:
        'Released iteration 3: large tool results from it are masked from your next call on. Ignored: 3 (released already), 1 (released already), ' +
        '5 (not an earlier iteration), 9 (not an earlier iteration), 0 (not an earlier iteration), -2 (not an earlier iteration), ' +
        '1.5 (not a whole number), "2" (not a whole number), null (not a whole number). This is iteration 5.',
      isError: false,
      terminate: false,
    });
  });

  test('nothing released and something ignored is an error result, so the model sees its mistake', () => {
    const decision = decideContextRelease(args({ iterations: [7] }), 3, []);
    expect(decision.result.isError).toBe(true);
    expect(decision.result.content).toBe(
      'Error: Nothing was released. Ignored: 7 (not an earlier iteration). This is iteration 3.',
    );
    expect(decision.releasedIterations).toEqual([]);
  });

  test('an empty list releases nothing, without an error', () => {
    expect(decideContextRelease(args({ iterations: [] }), 3, [1])).toMatchObject({
      result: { content: 'Nothing was released.', isError: false },
      released: [],
      releasedIterations: [1],
    });
  });

  test.each([
    ['text that is not JSON', '{"iterations": [1,', 'the arguments are not JSON'],
    ['an array', args([1, 2]), '"iterations" must be an array'],
    ['no iterations', args({}), '"iterations" must be an array'],
    ['iterations not an array', args({ iterations: 2 }), '"iterations" must be an array'],
    ['null', 'null', '"iterations" must be an array'],
  ])('arguments that are %s are an error result that says how to call it', (_, text, problem) => {
    const decision = decideContextRelease(text, 4, [1]);
    expect(decision.result.isError).toBe(true);
    expect(decision.result.content).toContain(problem);
    expect(decision.result.content).toContain(
      'call context_release with {"iterations": [<earlier iteration numbers>]}',
    );
    expect(decision.releasedIterations).toEqual([1]);
  });

  test('a huge list is refused whole, and a long list of ignored entries is named in part', () => {
    const huge = decideContextRelease(
      args({ iterations: Array.from({ length: CONTEXT_RELEASE_LIMITS.maxPerCall + 1 }, (_, index) => index + 1) }),
      10_000,
      [],
    );
    expect(huge.result).toMatchObject({
      isError: true,
      content: `Error: at most 256 iterations per call, got 257; nothing was released.`,
    });
    expect(huge.releasedIterations).toEqual([]);

    const long = decideContextRelease(args({ iterations: Array.from({ length: 30 }, () => 'x'.repeat(1_000)) }), 3, []);
    expect(long.ignored).toBe(30);
    expect(long.result.content).toContain('and 20 more');
    expect(long.result.content.length).toBeLessThan(600);
  });

  test('a run releases at most maxReleased iterations in all', () => {
    const full = Array.from({ length: CONTEXT_RELEASE_LIMITS.maxReleased }, (_, index) => index + 1);
    const decision = decideContextRelease(
      args({ iterations: [CONTEXT_RELEASE_LIMITS.maxReleased + 1] }),
      CONTEXT_RELEASE_LIMITS.maxReleased + 5,
      full,
    );
    expect(decision.result).toMatchObject({ isError: true });
    expect(decision.result.content).toContain('a run releases at most 100000 iterations');
    expect(decision.releasedIterations).toHaveLength(CONTEXT_RELEASE_LIMITS.maxReleased);
  });

  test('its description offers { iterations: integer[] } and never needs approval', () => {
    expect(CONTEXT_RELEASE_DESCRIPTION).toMatchObject({
      name: 'context_release',
      terminating: false,
      needsApproval: 'never',
      parameters: {
        required: ['iterations'],
        properties: { iterations: { type: 'array', items: { type: 'integer' } } },
      },
    });
  });
});

describe('maskObservations with released iterations', () => {
  const config = { keepIterations: 2, minTokens: 500 };
  const ofTokens = (tokens: number): string => 'x'.repeat(tokens * 4);
  const messages: ChatMessage[] = [1, 2, 3, 4].flatMap((iteration): ChatMessage[] => [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${iteration}`, type: 'function', function: { name: 'read_file', arguments: '{}' } }],
      meta: { iteration },
    },
    {
      role: 'tool',
      tool_call_id: `c${iteration}`,
      content: ofTokens(iteration === 3 ? 100 : 800),
      meta: { iteration },
    },
  ]);
  const maskedIterations = (released?: number[]) =>
    maskObservations(messages, 4, config, () => 'read_file', released).masked.map((entry) => entry.iteration);

  test('masks a released iteration within keepIterations, whatever its age', () => {
    expect(maskedIterations()).toEqual([1, 2]);
    expect(maskedIterations([4])).toEqual([1, 2, 4]);
  });

  test('still keeps a released result under minTokens, and an iteration released twice is masked once', () => {
    expect(maskedIterations([3, 3])).toEqual([1, 2]);
  });
});
