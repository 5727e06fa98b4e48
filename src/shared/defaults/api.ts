/**
 * The HTTP API.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** What the HTTP API uses when a variable or option is not set, and the limits it holds requests to. */
export const API_DEFAULTS = {
  /** `AGENT_API_HOST`. */
  host: '127.0.0.1',
  /** `AGENT_API_PORT`; 0 picks a free port. */
  port: 3000,
  /** `AGENT_API_AUTH`: `token`, or `none` for local use only. */
  auth: 'token',
  /** `AGENT_API_BODY_LIMIT`: largest request body. */
  bodyLimitBytes: 1024 * 1024,
  /** Longest path parameter the router accepts: a run id of a conversation turn with room to spare. */
  pathParameterChars: 1200,
  /** Longest `run_id` a route takes. */
  runIdChars: 1000,
  /** Longest `Idempotency-Key` header. */
  idempotencyKeyChars: 200,
  /** Most runs one `GET /runs` lists (`limit`). */
  listLimitMax: 1000,
  /** Keep-alive comments on idle event streams, so proxies keep them open. */
  keepAliveMs: 15_000,
  /** How long requests in progress get to finish when the API stops. */
  closeGraceMs: 10_000,
} as const;

/**
 * Deepest nesting of arrays and objects the HTTP API parses in a JSON body; deeper bodies get 400 `invalid_body`
 * before they are parsed. Every legitimate body (a `stopWhen` tree, tool arguments) fits with room to spare,
 * while thousands of levels would exhaust the stack of whatever walks the tree later.
 */
export const API_MAX_JSON_DEPTH = 64;

/**
 * How long the HTTP API waits for Temporal's answer to a call only the server answers (start, describe, signal,
 * list, the readiness probe) before it answers 503 `temporal_unavailable`. The client's own retries of an
 * unreachable server would otherwise take about 20 s.
 */
export const API_TEMPORAL_DEADLINE_MS = 2_000;

/**
 * How long `GET /runs/:run_id` waits for the run's state query, which a worker answers (also for an ended run, which
 * that worker replays), before it answers 503 `temporal_unavailable`. Longer than {@link API_TEMPORAL_DEADLINE_MS}: a
 * busy worker may take seconds. Unbounded, a request waited on a Temporal that died under it, or on a pinned run's
 * build whose workers are gone, for the query's own timeout (about 30 s) or longer.
 */
export const API_QUERY_DEADLINE_MS = 10_000;

/**
 * How long `POST /runs` waits for the worker to check a new run's tools against its catalog (the run's first
 * workflow task, no model call) before it answers 202 anyway: long enough for a worker on a loaded machine, short
 * enough that a caller whose worker is down hears back soon (the run then waits for a worker).
 */
export const API_ADMISSION_WAIT_MS = 5_000;

/**
 * How long `POST /runs/:run_id/fork` waits to read the source and start the fork before it answers 503
 * `temporal_unavailable`: it fetches each Temporal run of the source's chain and replays one in the API process
 * (the first replay in a process bundles the workflow code, a few seconds).
 */
export const API_FORK_DEADLINE_MS = 30_000;
