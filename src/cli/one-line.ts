/** Longest argument or result text printed on one line. */
const MAX_LINE_TEXT = 160;

/** `value` as one short line: whitespace collapsed, cut with `…`; non-strings as compact JSON. */
export function oneLine(value: unknown, max: number = MAX_LINE_TEXT): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
