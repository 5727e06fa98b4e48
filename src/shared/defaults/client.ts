/**
 * Clients: following and listing runs.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** How `followRunEvents`, `listRuns` and the CLI read runs when not told otherwise. */
export const CLIENT_DEFAULTS = {
  /**
   * How long a follower waits, once the run's history moved, before it asks for the new events: the workflow task
   * after a model's answer and the one after a fast tool call come tens of milliseconds apart, and one query reads
   * both. Longer costs latency (an event reaches its follower about this much later), shorter costs queries.
   */
  followSettleMs: 100,
  /**
   * Closed runs a reading process keeps the replayed state of (`src/client/run-replay.ts`): a closed history never
   * changes, and a follower, a status and an event stream of one run read it in turn; each holds a run's state and log.
   */
  replayedRunsKept: 8,
  /**
   * How recent a worker's last poll must be for it to count as running: a live worker polls again at least every
   * minute (Temporal's long poll), and Temporal lists the pollers it saw for minutes after they stopped.
   */
  recentPollerMs: 75_000,
  /** Runs `listRuns` and `agent-runner list` return. */
  listLimit: 20,
  /** Largest page asked of Temporal's visibility when listing. */
  listPageSizeMax: 1000,
  /** Temporal runs a transcript read follows back for messages a continue-as-new left behind. */
  maxTranscriptHops: 10_000,
} as const;
