import type { WorkflowDefinitionOptions } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import { versioningBehaviorOf } from '../../shared/versioning';

/**
 * The run's versioning behaviour, declared from its memo before each Temporal run's code, so a pinned run stays pinned
 * across continue-as-new; declared only on a versioned worker (an unversioned one's task would fail forever). Adds no
 * command, so histories replay.
 */
export function runVersioningOptions(): WorkflowDefinitionOptions {
  const info = wf.workflowInfo();
  if (!info.currentDeploymentVersion?.deploymentName) return {};
  const versioningBehavior = versioningBehaviorOf(info.memo);
  return versioningBehavior === undefined ? {} : { versioningBehavior };
}
