/**
 * How deeply a JSON value nests, measured without recursion, before it reaches a recursive walker whose stack it would
 * overflow. Pure: imported by workflow code.
 */

/** One step into a JSON value: an object key or an array index. */
export type JsonPathSegment = string | number;

/**
 * Where `value` first nests deeper than `maxDepth` (`value` itself is level 1), found with an explicit stack that never
 * goes past `maxDepth + 1`; `undefined` when it does not.
 */
export function findTooDeep(value: unknown, maxDepth: number): { path: JsonPathSegment[] } | undefined {
  const pending: { value: unknown; depth: number; path: JsonPathSegment[] }[] = [{ value, depth: 1, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > maxDepth) return { path: next.path };
    const children: [JsonPathSegment, unknown][] = Array.isArray(next.value)
      ? next.value.map((child, index): [JsonPathSegment, unknown] => [index, child])
      : Object.entries(next.value);
    // Pushed in reverse, so the first child is looked at first and the path reported is the first too-deep one.
    for (let index = children.length - 1; index >= 0; index -= 1) {
      const [segment, child] = children[index] as [JsonPathSegment, unknown];
      if (typeof child === 'object' && child !== null)
        pending.push({ value: child, depth: next.depth + 1, path: [...next.path, segment] });
    }
  }
  return undefined;
}
