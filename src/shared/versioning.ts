/**
 * Worker Versioning (Temporal's worker deployments): the names a worker's deployment and a run's versioning
 * behaviour go by in this package. Pure values; the Temporal spelling is made from them in `src/temporal/`.
 */

/**
 * How a run moves between builds of the workers (`docs/operations/deploys.md`):
 * - `pinned`: the run stays on the build it started on, to its end; a deploy never changes its code.
 * - `auto-upgrade`: the run moves to the deployment's current build at its next workflow task; its workflow code
 *   must replay on the newer build (`wf.patched` for any change of commands).
 */
export type RunVersioning = 'pinned' | 'auto-upgrade';

/** Every {@link RunVersioning}, for schemas and help texts. */
export const RUN_VERSIONINGS = ['pinned', 'auto-upgrade'] as const satisfies readonly RunVersioning[];

/** A versioned worker: the deployment it belongs to and the build it runs. */
export interface AgentWorkerDeployment {
  /** The worker deployment's name: one per task queue's fleet of workers, the same across builds. */
  deploymentName: string;
  /** This worker's build: a new one for every deploy of changed code (a git sha, a release tag). */
  buildId: string;
  /**
   * The behaviour of runs started without a `versioning` of their own.
   * @default 'auto-upgrade' (`VERSIONING_DEFAULTS.defaultVersioning`)
   */
  defaultVersioning?: RunVersioning;
}

/** What applies when a worker deployment leaves something unset. */
export const VERSIONING_DEFAULTS = {
  /**
   * `AGENT_VERSIONING_DEFAULT`: agent runs may wait days for a person, so by default they follow the deploys
   * (the workflow code's changes go behind `wf.patched`), and old builds drain as soon as their pinned runs end.
   */
  defaultVersioning: 'auto-upgrade',
} as const satisfies { defaultVersioning: RunVersioning };

/**
 * The memo field a run's chosen {@link RunVersioning} is kept in (set by `startAgentRun`). Continue-as-new carries
 * the memo to the next Temporal run, where the workflow declares the behaviour again: Temporal 1.29 passes a pinned
 * override on to the next run's first workflow task only, after which the worker's default behaviour would apply.
 */
export const VERSIONING_MEMO_KEY = 'agentVersioning';

/** The behaviour a run chose, in Temporal's spelling, from its memo; undefined for none (the worker's default). */
export function versioningBehaviorOf(
  memo: Readonly<Record<string, unknown>> | undefined,
): 'PINNED' | 'AUTO_UPGRADE' | undefined {
  const chosen = memo?.[VERSIONING_MEMO_KEY];
  if (chosen === 'pinned') return 'PINNED';
  if (chosen === 'auto-upgrade') return 'AUTO_UPGRADE';
  return undefined;
}
