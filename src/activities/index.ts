import type { AgentActivities } from '../shared/activity-types';
import type { ToolRegistry } from '../tools/tool-registry';
import { createConversationCompaction } from './compact-conversation';
import { createToolResultExtraction } from './extract-tool-result';
import type { DeltaHub } from './delta-hub';
import type { HeartbeatSettings } from '../config/heartbeat';
import { createModelCall } from './model-call';
import type { ModelSettings } from '../shared/model-settings';
import { redactorFor } from './model-client';
import { createToolExecution } from './tool-execution';
import { describeTools } from './describe-tools';

/** Everything the activities need from the worker's configuration. */
export interface ActivityDependencies {
  registry: ToolRegistry;
  model: ModelSettings;
  /** Where model calls publish their deltas for followers; false: nowhere. @default the process's hub, `DeltaHub.forProcess()` */
  hub?: DeltaHub | false;
  /** The worker's heartbeat timeout and interval. @default `heartbeatSettings()`'s defaults: 50 s and 25 s */
  heartbeat?: HeartbeatSettings;
  /**
   * Whether the worker's identity carries the hub's URL (`shared/worker-identity.ts`), so model calls need not
   * announce their streams in a heartbeat. @default never
   */
  streamsInIdentity?: () => boolean;
  /** Tools whose every call waits for approval whatever a run's input says (`AGENT_APPROVAL_REQUIRED_TOOLS`). @default none */
  approvalRequired?: readonly string[];
}

/** The activities of `agentWorkflow`, bound to a tool registry and a model endpoint. */
export function createActivities({
  registry,
  model,
  hub,
  heartbeat,
  streamsInIdentity,
  approvalRequired,
}: ActivityDependencies): AgentActivities {
  const redact = redactorFor(model);
  const intervalMs = heartbeat?.intervalMs;
  const calls = { heartbeatIntervalMs: intervalMs, streamsInIdentity };
  return {
    describeTools: (input) => describeTools(registry, input, redact, heartbeat?.timeoutMs, approvalRequired),
    callModel:
      hub === undefined
        ? createModelCall(model, registry, undefined, calls)
        : createModelCall(model, registry, hub, calls),
    executeTool: createToolExecution(registry, redact, intervalMs),
    compactConversation: createConversationCompaction(model, intervalMs),
    extractToolResult: createToolResultExtraction(model, intervalMs),
  };
}
