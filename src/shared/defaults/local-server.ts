/**
 * The local Temporal server (demo, tests, `npm run server`).
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** How the project finds, starts, waits for and stops a local `temporal server start-dev`. */
export const LOCAL_SERVER_DEFAULTS = {
  /** gRPC port tried first (Temporal's own default). */
  port: 7233,
  /** Web UI port tried first (Temporal's own default). */
  uiPort: 8233,
  /**
   * How long a new dev server may take to answer. A warm start takes seconds, but the first start
   * after the CLI was built, on a cold machine, has taken over a minute (the binary and SQLite paged
   * in from disk, the namespace created): the wait must outlast that.
   */
  startTimeoutMs: 5 * 60_000,
  /** How often the wait asks whether the server answers. */
  pollMs: 250,
  /**
   * Dynamic config of every dev server the project starts. Stock `start-dev` reads its task queues at most 20 times a
   * second (`history.transferProcessorMaxPollRPS`), most of an iteration with a fast model, and starts no activity
   * eagerly; `npm run bench` measures both. Stock, a workflow task lost with its worker four or more times in a row
   * backs off up to 10 minutes (`history.workflowTaskRetryMaxInterval`): capped at 10 s it runs again within 20 s.
   */
  dynamicConfig: {
    'history.transferProcessorMaxPollRPS': 1000,
    'system.enableActivityEagerExecution': true,
    'history.workflowTaskRetryMaxInterval': '10s',
  } as Readonly<Record<string, number | boolean | string>>,
  /** How long one such question may take to connect. */
  connectTimeoutMs: 1_000,
  /** How often a wait for a server, or a build of the CLI, says it is still waiting. */
  progressEveryMs: 10_000,
  cliBuildProgressEveryMs: 30_000,
  /** Lines of the server's log shown when it did not come up. */
  logTailLines: 30,
  /** How long a stopped server gets after SIGTERM before SIGKILL, looked at this often. */
  stopGraceMs: 5_000,
  stopPollMs: 100,
} as const;
