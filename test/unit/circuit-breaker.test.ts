import { initialBreakerState, trackToolResult, type BreakerState } from '../../src/workflows/rules/circuit-breaker';

const error = (content: string) => ({ content, isError: true });
const success = (content = 'ok') => ({ content, isError: false });

/** Feeds `results` in order; the count and whether the breaker tripped after each. */
function run(
  results: [string, { content: string; isError: boolean }][],
  threshold: number,
): { count: number; tripped: boolean }[] {
  let state: BreakerState = initialBreakerState();
  return results.map(([toolName, result]) => {
    const step = trackToolResult(state, toolName, result, threshold);
    state = step.state;
    return { count: state.count, tripped: step.tripped !== undefined };
  });
}

const sameError = (
  times: number,
  toolName = 'shell',
  text = 'Error: command not found',
): [string, { content: string; isError: boolean }][] => Array.from({ length: times }, () => [toolName, error(text)]);

describe('trackToolResult thresholds', () => {
  test('the initial state has no error and count 0', () => {
    expect(initialBreakerState()).toEqual({ toolName: null, errorText: null, count: 0 });
  });

  test('four identical errors do not trip a threshold of 5; the fifth does', () => {
    const steps = run(sameError(5), 5);

    expect(steps.map((step) => step.count)).toEqual([1, 2, 3, 4, 5]);
    expect(steps.map((step) => step.tripped)).toEqual([false, false, false, false, true]);
  });

  test('the trip names the tool, the error text and the count', () => {
    let state = initialBreakerState();
    state = trackToolResult(state, 'shell', error('boom'), 2).state;

    expect(trackToolResult(state, 'shell', error('boom'), 2)).toEqual({
      state: { toolName: 'shell', errorText: 'boom', count: 2 },
      tripped: { toolName: 'shell', errorText: 'boom', count: 2 },
    });
  });

  test('threshold 1 trips on the first error', () => {
    expect(run(sameError(1), 1)).toEqual([{ count: 1, tripped: true }]);
  });

  test('a further identical error after the trip still reports it', () => {
    expect(run(sameError(4), 3).map((step) => step.tripped)).toEqual([false, false, true, true]);
  });

  test('the state passed in is not modified', () => {
    const state = initialBreakerState();
    trackToolResult(state, 'shell', error('boom'), 5);

    expect(state).toEqual(initialBreakerState());
  });
});

describe('trackToolResult resets', () => {
  test('a success resets the count to 0', () => {
    const steps = run([...sameError(4), ['shell', success()], ...sameError(4)], 5);

    expect(steps.map((step) => step.count)).toEqual([1, 2, 3, 4, 0, 1, 2, 3, 4]);
    expect(steps.some((step) => step.tripped)).toBe(false);
  });

  test('a success of another tool also resets', () => {
    const steps = run([...sameError(2), ['read_file', success()], ...sameError(1)], 3);

    expect(steps.map((step) => step.count)).toEqual([1, 2, 0, 1]);
  });

  test('a success returns the initial state', () => {
    let state = initialBreakerState();
    state = trackToolResult(state, 'shell', error('boom'), 5).state;

    expect(trackToolResult(state, 'shell', success(), 5)).toEqual({ state: initialBreakerState() });
  });

  test('a different error text starts a new count of 1', () => {
    const steps = run(
      [...sameError(2, 'shell', 'Error: a'), ['shell', error('Error: b')], ['shell', error('Error: b')]],
      5,
    );

    expect(steps.map((step) => step.count)).toEqual([1, 2, 1, 2]);
  });

  test('error texts are compared exactly', () => {
    const steps = run(
      [
        ['shell', error('Error: a')],
        ['shell', error('Error: a ')],
      ],
      5,
    );

    expect(steps.map((step) => step.count)).toEqual([1, 1]);
  });

  test('the same error text from a different tool starts a new count of 1', () => {
    const steps = run([...sameError(2, 'shell', 'timeout'), ['http_get', error('timeout')]], 3);

    expect(steps.map((step) => step.count)).toEqual([1, 2, 1]);
    expect(steps.some((step) => step.tripped)).toBe(false);
  });

  test('after a reset the threshold must be reached again from 1', () => {
    const steps = run([...sameError(2, 'shell', 'a'), ['shell', error('b')], ...sameError(3, 'shell', 'a')], 3);

    expect(steps.map((step) => step.tripped)).toEqual([false, false, false, false, false, true]);
  });
});
