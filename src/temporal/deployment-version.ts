import type { Client } from '@temporalio/client';
import type { VersioningOverride, WorkerDeploymentVersion } from '@temporalio/common';
import type { RunVersioning } from '../shared/versioning';
import { NoCurrentVersionError } from './no-current-version-error';

/**
 * A run's versioning behaviour as Temporal's `versioningOverride`: `auto-upgrade` follows the current version at each
 * workflow task; `pinned` stays on the task queue's current version, looked up now, whatever `AGENT_VERSIONING_DEFAULT`
 * says and through continue-as-new; unset leaves the worker's default.
 */
export async function versioningOverrideFor(
  client: Client,
  taskQueue: string,
  versioning: RunVersioning | undefined,
): Promise<VersioningOverride | undefined> {
  if (versioning === undefined) return undefined;
  if (versioning === 'auto-upgrade') return 'AUTO_UPGRADE';
  const current = await currentDeploymentVersion(client, taskQueue);
  if (current === undefined) throw new NoCurrentVersionError(taskQueue);
  return { pinnedTo: current };
}

/** The deployment version new workflow tasks on `taskQueue` go to; undefined when its workers are unversioned. */
export async function currentDeploymentVersion(
  client: Client,
  taskQueue: string,
): Promise<WorkerDeploymentVersion | undefined> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
  });
  const info = response.versioningInfo;
  const version = info?.currentDeploymentVersion;
  if (version?.deploymentName && version.buildId) {
    return { deploymentName: version.deploymentName, buildId: version.buildId };
  }
  // Servers before the structured field send `deploymentName.buildId` (`__unversioned__` for none).
  return parseCanonicalVersion(info?.currentVersion ?? undefined);
}

/** `deploymentName.buildId` as a version; the deployment name holds no dot, the build id may. */
function parseCanonicalVersion(text: string | undefined): WorkerDeploymentVersion | undefined {
  if (!text || text === '__unversioned__') return undefined;
  const dot = text.indexOf('.');
  if (dot <= 0 || dot === text.length - 1) return undefined;
  return { deploymentName: text.slice(0, dot), buildId: text.slice(dot + 1) };
}
