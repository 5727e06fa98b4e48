import { nestsDeeperThan } from '../../src/http/json-body';

describe('nestsDeeperThan', () => {
  test('counts arrays and objects opened inside each other, up to the limit and no further', () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    expect(nestsDeeperThan(nested(64), 64)).toBe(false);
    expect(nestsDeeperThan(nested(65), 64)).toBe(true);
    expect(nestsDeeperThan('{"a":{"b":[1,{"c":2}]}}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":{"b":[1,{"c":2}]}}', 3)).toBe(true);
    // Siblings do not add up: depth is how far inside, not how many.
    expect(nestsDeeperThan(`[${'[],'.repeat(1000)}[]]`, 2)).toBe(false);
  });

  test('brackets inside strings, escaped quotes included, do not count', () => {
    expect(nestsDeeperThan(JSON.stringify({ text: '[[[[{{{{' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ text: 'say \\"[[[[\\" and "{{{{"' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify(['\\', [[]]]), 2)).toBe(true);
  });

  test('a million levels are measured without recursion', () => {
    expect(nestsDeeperThan('['.repeat(1_000_000), 64)).toBe(true);
  });
});
