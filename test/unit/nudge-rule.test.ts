import { decideNudge } from '../../src/workflows/rules/nudge-rule';

describe('decideNudge (nudging towards terminating tools)', () => {
  test('consecutiveNudges 1: the first text answer is nudged, the second in a row exceeds', () => {
    expect(decideNudge(0, { consecutiveNudges: 1 })).toEqual({ kind: 'nudge', consecutiveNudges: 1 });
    expect(decideNudge(1, { consecutiveNudges: 1 })).toEqual({ kind: 'nudges_exceeded', consecutiveNudges: 2 });
  });

  test('consecutiveNudges 0: the first text answer already exceeds', () => {
    expect(decideNudge(0, { consecutiveNudges: 0 })).toEqual({ kind: 'nudges_exceeded', consecutiveNudges: 1 });
  });

  test('consecutiveNudges 3: nudges up to and including the third, fails on the fourth', () => {
    const policy = { consecutiveNudges: 3 };
    expect([0, 1, 2, 3].map((soFar) => decideNudge(soFar, policy).kind)).toEqual([
      'nudge',
      'nudge',
      'nudge',
      'nudges_exceeded',
    ]);
  });
});
