import type { AgentActivities } from '../shared/activity-types';
import type { ToolRegistry } from '../tools/tool-registry';
import { createConversationCompaction } from './compact-conversation';
import { createToolResultExtraction } from './extract-tool-result';
import type { DeltaHub } from './delta-hub';
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
}

/** The activities of `agentWorkflow`, bound to a tool registry and a model endpoint. */
export function createActivities({ registry, model, hub }: ActivityDependencies): AgentActivities {
  const redact = redactorFor(model);
  return {
    describeTools: (input) => describeTools(registry, input, redact),
    callModel: hub === undefined ? createModelCall(model, registry) : createModelCall(model, registry, hub),
    executeTool: createToolExecution(registry, redact),
    compactConversation: createConversationCompaction(model),
    extractToolResult: createToolResultExtraction(model),
  };
}
