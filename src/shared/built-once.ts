/**
 * Values every run would otherwise build again (the zod schemas, ~40 ms of CPU a run): the agent's bundle preloads
 * this module (`AGENT_PRELOADED_MODULES` in `src/worker/plugin.ts`), so Temporal evaluates it once per worker thread
 * and every run on that thread shares what it built; elsewhere it is an ordinary module.
 *
 * Only for values no run can change and that hold no run's state. The map lives in the module's closure, which
 * Temporal's freezing of preloaded modules (exports only) does not reach.
 */
const built = new Map<string, unknown>();

/** The value built under `key`, building it with `build` the first time. Keys are `<module>.<name>`. */
export function builtOnce<T>(key: string, build: () => T): T {
  if (built.has(key)) return built.get(key) as T;
  const value = build();
  built.set(key, value);
  return value;
}
