import type { WorkflowDefinitionOptions } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import { versioningBehaviorOf } from '../../shared/versioning';

/**
 * The run's versioning behaviour, declared by the workflow from the run's memo (`startAgentRun`'s `versioning`):
 * each Temporal run of a run reads it before its code runs, so a pinned run stays pinned across continue-as-new,
 * and a run that chose none follows the worker's `AGENT_VERSIONING_DEFAULT`. Declares nothing on an unversioned
 * worker's runs that Temporal would act on, and adds no command: histories replay as before.
 */
export function runVersioningOptions(): WorkflowDefinitionOptions {
  const versioningBehavior = versioningBehaviorOf(wf.workflowInfo().memo);
  return versioningBehavior === undefined ? {} : { versioningBehavior };
}
