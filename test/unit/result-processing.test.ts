import { processToolResult, resultLimitFor, truncationMarker } from '../../src/workflows/rules/result-processing';

describe('processToolResult', () => {
  test('without any limit the content is unchanged', () => {
    const content = 'x'.repeat(100_000);

    expect(processToolResult('read_file', content, {})).toEqual({ content });
  });

  test('content exactly at the limit is unchanged', () => {
    const content = 'a'.repeat(10);

    expect(processToolResult('read_file', content, { maxResultChars: 10 })).toEqual({ content });
  });

  test('content one over the limit is cut to the limit with the marker line', () => {
    const content = `${'a'.repeat(10)}b`;

    expect(processToolResult('read_file', content, { maxResultChars: 10 })).toEqual({
      content: `${'a'.repeat(10)}\n[truncated: kept 10 of 11 characters]`,
      truncated: { originalChars: 11, keptChars: 10 },
    });
  });

  test('a long result keeps its beginning', () => {
    const content = '0123456789'.repeat(1_523) + 'abcd';
    const processed = processToolResult('read_file', content, { maxResultChars: 2_000 });

    expect(processed.content.startsWith(content.slice(0, 2_000))).toBe(true);
    expect(processed.content.endsWith('\n[truncated: kept 2000 of 15234 characters]')).toBe(true);
    expect(processed.truncated).toEqual({ originalChars: 15_234, keptChars: 2_000 });
  });

  test("a tool's own limit wins over a larger global limit", () => {
    const processed = processToolResult('shell', 'x'.repeat(50), { maxResultChars: 100, perTool: { shell: 20 } });

    expect(processed.truncated).toEqual({ originalChars: 50, keptChars: 20 });
  });

  test("a tool's own limit wins over a smaller global limit", () => {
    const content = 'x'.repeat(50);

    expect(processToolResult('read_file', content, { maxResultChars: 10, perTool: { read_file: 1_000 } })).toEqual({
      content,
    });
  });

  test('a tool without its own limit gets the global limit', () => {
    const processed = processToolResult('ls', 'x'.repeat(50), { maxResultChars: 30, perTool: { shell: 20 } });

    expect(processed.truncated).toEqual({ originalChars: 50, keptChars: 30 });
  });

  test('a per-tool limit alone leaves other tools unlimited', () => {
    const content = 'x'.repeat(50);

    expect(processToolResult('ls', content, { perTool: { shell: 20 } })).toEqual({ content });
  });

  test("a tool named like an Object.prototype member gets the global limit, not the prototype's", () => {
    expect(resultLimitFor('constructor', { maxResultChars: 30, perTool: { shell: 20 } })).toBe(30);
    expect(resultLimitFor('toString', { perTool: {} })).toBeUndefined();
  });

  test('a cut that would split a surrogate pair keeps one character less', () => {
    const content = `abc😀def`; // the emoji is two code units, at indices 3 and 4
    const processed = processToolResult('read_file', content, { maxResultChars: 4 });

    expect(processed).toEqual({
      content: 'abc\n[truncated: kept 3 of 8 characters]',
      truncated: { originalChars: 8, keptChars: 3 },
    });
  });

  test('a cut right after a surrogate pair keeps the pair', () => {
    const processed = processToolResult('read_file', `abc😀def`, { maxResultChars: 5 });

    expect(processed.content).toBe('abc😀\n[truncated: kept 5 of 8 characters]');
  });

  test('truncationMarker states kept and original characters', () => {
    expect(truncationMarker(2_000, 15_234)).toBe('[truncated: kept 2000 of 15234 characters]');
  });
});
