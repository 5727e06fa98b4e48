import type { WorkflowDefinitionOptions } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import { versioningBehaviorOf } from '../../shared/versioning';

/**
 * The run's versioning behaviour, declared by the workflow from the run's memo (`startAgentRun`'s `versioning`):
 * each Temporal run of a run reads it before its code runs, so a pinned run stays pinned across continue-as-new,
 * and a run that chose none follows the worker's `AGENT_VERSIONING_DEFAULT`. Declared only when a versioned worker
 * runs the Temporal run's first task (Temporal refuses a behaviour from an unversioned worker: the task would fail
 * and retry forever). Adds no command, so histories replay.
 */
export function runVersioningOptions(): WorkflowDefinitionOptions {
  const info = wf.workflowInfo();
  if (!info.currentDeploymentVersion?.deploymentName) return {};
  const versioningBehavior = versioningBehaviorOf(info.memo);
  return versioningBehavior === undefined ? {} : { versioningBehavior };
}
