import { shouldContinueAsNew } from '../../src/workflows/run-continuation';

describe('shouldContinueAsNew', () => {
  test.each([
    // iterations this Temporal run, iterationsPerRun, Temporal suggests it, hand over?
    [0, undefined, true, false], // never before the run has done one iteration of its own
    [0, 1, false, false],
    [1, undefined, false, false],
    [1, undefined, true, true],
    [1, 1, false, true],
    [1, 2, false, false],
    [2, 2, false, true],
    [5, 10, true, true],
  ])('%i iterations, every %s, suggested %s: %s', (iterations, perRun, suggested, expected) => {
    expect(shouldContinueAsNew(iterations, perRun, suggested)).toBe(expected);
  });
});
