/**
 * Values every run would otherwise build again (the zod schemas, ~40 ms a run): the bundle preloads this module, so
 * each worker thread builds them once. Only for values no run changes; the map lives in the closure, which Temporal's
 * freezing of preloaded exports does not reach.
 */
const built = new Map<string, unknown>();

/** The value built under `key`, building it with `build` the first time. Keys are `<module>.<name>`. */
export function builtOnce<T>(key: string, build: () => T): T {
  if (built.has(key)) return built.get(key) as T;
  const value = build();
  built.set(key, value);
  return value;
}
