import { builtOnce } from '../../src/shared/built-once';

describe('builtOnce', () => {
  test('builds a key once and hands the same value back after', () => {
    let builds = 0;
    const build = () => ({ built: ++builds });
    const first = builtOnce('unit.once', build);
    expect(builtOnce('unit.once', build)).toBe(first);
    expect(builds).toBe(1);
  });

  test('keys are apart, and a value that is undefined is still built only once', () => {
    let builds = 0;
    expect(builtOnce('unit.a', () => 'a')).toBe('a');
    expect(builtOnce('unit.b', () => 'b')).toBe('b');
    builtOnce('unit.undefined', () => void builds++);
    builtOnce('unit.undefined', () => void builds++);
    expect(builds).toBe(1);
  });
});
