import { decideRestriction } from '../../src/workflows/rules/restriction-rule';

describe('decideRestriction (restricted output)', () => {
  test('maxInjections 2: two injections per turn, then spent', () => {
    const policy = { maxInjections: 2 };
    expect(decideRestriction(0, policy)).toEqual({ kind: 'restrict', restrictionInjections: 1 });
    expect(decideRestriction(1, policy)).toEqual({ kind: 'restrict', restrictionInjections: 2 });
    expect(decideRestriction(2, policy)).toEqual({ kind: 'restriction_spent' });
  });

  test('maxInjections 0 means no per-turn limit', () => {
    expect(decideRestriction(1_000, { maxInjections: 0 })).toEqual({ kind: 'restrict', restrictionInjections: 1_001 });
  });

  test('maxInjections 1: one injection, then spent', () => {
    expect(decideRestriction(0, { maxInjections: 1 }).kind).toBe('restrict');
    expect(decideRestriction(1, { maxInjections: 1 }).kind).toBe('restriction_spent');
  });
});
