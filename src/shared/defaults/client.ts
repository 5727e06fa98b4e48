/**
 * Clients: following and listing runs.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** How `followRunEvents`, `listRuns` and the CLI read runs when not told otherwise. */
export const CLIENT_DEFAULTS = {
  /** How often following a run asks it for new events. */
  followPollMs: 250,
  /** Runs `listRuns` and `agent-runner list` return. */
  listLimit: 20,
  /** Largest page asked of Temporal's visibility when listing. */
  listPageSizeMax: 1000,
  /** Temporal runs a transcript read follows back for messages a hand-over left behind. */
  maxTranscriptHops: 10_000,
} as const;
