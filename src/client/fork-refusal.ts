/** Why a fork was refused before it started: each maps to one answer of `POST /runs/:run_id/fork` and the CLI. */
export type ForkRefusal =
  /** `atIteration` is before 1, before the source's first iteration, or past the last one it reached. */
  | 'iteration'
  /** An edit names a tool call the conversation at the fork point does not hold. */
  | 'call'
  /** The edited input is not a valid run input. */
  | 'input'
  /** The Temporal run that holds the iteration has no history any more (the namespace's retention removed it). */
  | 'history-gone'
  /** The source's history does not replay against this build's workflow code (recorded by another build). */
  | 'history-not-replayed';
