import { findTooDeep } from '../../src/shared/json-depth';

/** `{ a: { a: ... leaf } }`, `levels` objects deep. */
function nested(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let level = 0; level < levels; level += 1) value = { a: value };
  return value;
}

describe('findTooDeep', () => {
  test('scalars and values within the limit pass; the value itself is level 1', () => {
    expect(findTooDeep('text', 1)).toBeUndefined();
    expect(findTooDeep(null, 1)).toBeUndefined();
    expect(findTooDeep({}, 1)).toBeUndefined();
    expect(findTooDeep(nested(3), 3)).toBeUndefined();
    expect(findTooDeep([[1], { b: [2] }], 3)).toBeUndefined();
  });

  test('one level past the limit is reported with the path to it', () => {
    expect(findTooDeep(nested(4), 3)).toEqual({ path: ['a', 'a', 'a'] });
    expect(findTooDeep({ tools: [], stopWhen: { any: [{ any: [{ maxMessages: 1 }] }] } }, 5)).toEqual({
      path: ['stopWhen', 'any', 0, 'any', 0],
    });
  });

  test('arrays count as levels, and the first too-deep branch is the one reported', () => {
    expect(findTooDeep([1, [2, [3]]], 2)).toEqual({ path: [1, 1] });
    expect(findTooDeep({ first: { x: {} }, second: { y: {} } }, 2)).toEqual({ path: ['first', 'x'] });
  });

  test('a value 100,000 levels deep is measured without overflowing the stack (recursion would)', () => {
    const deep = nested(100_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(findTooDeep(deep, 32)?.path).toHaveLength(32);
  });
});
