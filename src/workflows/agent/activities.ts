import * as wf from '@temporalio/workflow';
import { ACTIVITY_DEFAULTS, ACTIVITY_RETRY_POLICIES } from '../../shared/defaults/activities';
import { type AgentActivities } from '../../shared/activity-types';
import { type ModelRequestSinks } from '../../workflow-contract/model-request-sinks';

/**
 * The agent's activity stubs, one per kind of call, with options built only
 * from `shared/defaults/activities.ts`. At module scope, as Temporal requires. The
 * options are part of every scheduled activity's command: changing one
 * changes what running workflows replay against.
 */

/** The tool catalog as a local activity: the worker that runs the workflow describes its own tools. */
export const localCatalogActivities = wf.proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: ACTIVITY_DEFAULTS.catalogTimeout,
  retry: ACTIVITY_RETRY_POLICIES.catalog,
});

/** Hands a large conversation to the next model call in the worker's memory; not recorded in history. */
export const modelRequestSinks = wf.proxySinks<ModelRequestSinks>();

/** Model calls: retried with backoff on the provider's retryable failures. */
export const modelActivities = wf.proxyActivities<AgentActivities>({
  startToCloseTimeout: ACTIVITY_DEFAULTS.modelCallTimeout,
  heartbeatTimeout: ACTIVITY_DEFAULTS.heartbeatTimeout,
  retry: ACTIVITY_RETRY_POLICIES.modelCall,
});

/**
 * Tool calls: an attempt lost to the infrastructure is retried until the call's deadline, so a tool that ran is never
 * reported failed because a worker died; what the tool throws comes back as its result. Each call sets its own
 * timeouts from its tool (`execute-tool-call.ts`); these are the defaults.
 */
export const toolActivities = wf.proxyActivities<AgentActivities>({
  startToCloseTimeout: ACTIVITY_DEFAULTS.toolCallTimeout,
  heartbeatTimeout: ACTIVITY_DEFAULTS.heartbeatTimeout,
  retry: ACTIVITY_RETRY_POLICIES.toolCall,
});

/**
 * Tools declared `local: true`, run as local activities: in the worker that runs the workflow,
 * without a round trip through the task queue. Same retry policy as {@link toolActivities}; no
 * heartbeat timeout, since a local activity does not heartbeat (a lost one is found when its
 * workflow task times out, and runs again with it). Each call sets its own timeouts.
 */
export const localToolActivities = wf.proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: ACTIVITY_DEFAULTS.localToolCallTimeout,
  retry: ACTIVITY_RETRY_POLICIES.toolCall,
});
