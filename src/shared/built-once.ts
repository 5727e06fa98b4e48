/**
 * Values every run would otherwise build again: the zod schemas.
 *
 * A worker runs its workflows in one reused V8 context per thread, but it
 * evaluates the workflow bundle's modules again for each run (Temporal keeps
 * module state apart between runs), so every run of `agentWorkflow` built
 * every schema of `src/shared/` at its start: about 40 ms of CPU on the
 * worker before the first model call, for every run, every chat turn, every
 * continue-as-new and every nested agent.
 *
 * The agent's bundle preloads this module (`AGENT_PRELOADED_MODULES` in
 * `src/plugin.ts`): Temporal evaluates it once per worker thread and shares
 * it between runs, so the first run on a thread builds each value and the
 * runs after it take that one. Where the module is not preloaded (a bundle
 * made without the option, the client, the HTTP API) it is an ordinary
 * module and each value is built once per evaluation, as a constant would be.
 *
 * Only for values no run can change and that hold no run's state: a zod
 * schema is immutable apart from zod's own memoised internals, and parsing
 * is pure. The shared map is held in this module's closure, which Temporal's
 * freezing of preloaded modules does not reach (it freezes exports only).
 */
const built = new Map<string, unknown>();

/** The value built under `key`, building it with `build` the first time. Keys are `<module>.<name>`. */
export function builtOnce<T>(key: string, build: () => T): T {
  if (built.has(key)) return built.get(key) as T;
  const value = build();
  built.set(key, value);
  return value;
}
