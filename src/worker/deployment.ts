import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { VERSIONING_DEFAULTS, type AgentWorkerDeployment, type RunVersioning } from '../shared/versioning';

/** Temporal's spelling of a {@link RunVersioning}. */
function versioningBehavior(versioning: RunVersioning): 'PINNED' | 'AUTO_UPGRADE' {
  return versioning === 'pinned' ? 'PINNED' : 'AUTO_UPGRADE';
}

/** The worker options of a versioned worker: its deployment version, with Worker Versioning on. */
export function workerDeploymentOptions(deployment: AgentWorkerDeployment): WorkerDeploymentOptions {
  return {
    version: { deploymentName: deployment.deploymentName, buildId: deployment.buildId },
    useWorkerVersioning: true,
    defaultVersioningBehavior: versioningBehavior(
      deployment.defaultVersioning ?? VERSIONING_DEFAULTS.defaultVersioning,
    ),
  };
}

/**
 * The worker's options with the plugin's deployment: set where the worker has none; the same one is fine; a
 * different one is refused, rather than one of the two silently winning.
 */
export function withWorkerDeployment<Options extends { workerDeploymentOptions?: WorkerDeploymentOptions }>(
  options: Options,
  deployment: AgentWorkerDeployment | undefined,
): Options {
  if (deployment === undefined) return options;
  const ours = workerDeploymentOptions(deployment);
  const theirs = options.workerDeploymentOptions;
  if (theirs === undefined) return { ...options, workerDeploymentOptions: ours };
  if (
    theirs.useWorkerVersioning === ours.useWorkerVersioning &&
    theirs.version.deploymentName === ours.version.deploymentName &&
    theirs.version.buildId === ours.version.buildId &&
    theirs.defaultVersioningBehavior === ours.defaultVersioningBehavior
  ) {
    return options;
  }
  throw new Error(
    `AgentRunnerPlugin: the worker's workerDeploymentOptions (${describe(theirs)}) differ from the plugin's deployment option (${describe(ours)}). ` +
      "Give the deployment in one place: either the worker's options or the plugin's.",
  );
}

function describe(options: WorkerDeploymentOptions): string {
  return options.useWorkerVersioning
    ? `${options.version.deploymentName}:${options.version.buildId}, ${options.defaultVersioningBehavior}`
    : `${options.version.deploymentName}:${options.version.buildId}, unversioned`;
}
