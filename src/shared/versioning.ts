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
