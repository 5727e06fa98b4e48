/*
 * `agent-runner/worker`: what a process that runs agents imports. Workflow code imports `agent-runner/workflow`
 * instead, backend services `agent-runner`.
 */
export { defineTool, type ToolContext, type ToolDefinition, type ToolOutput } from '../tools/define-tool';
export { defineAgentTool, type AgentToolDefinition } from '../tools/define-agent-tool';
export { outputSchema, type OutputSpec } from '../shared/typed-output';
export { TerminateResponse } from '../tools/terminate-response';
export { WaitForInput } from '../tools/wait-for-input';
export { RetryableToolError } from '../tools/retryable-tool-error';
export { createBuiltinTools } from '../tools/builtin';
export {
  AGENT_MAX_HEARTBEAT_THROTTLE_INTERVAL,
  AGENT_PRELOADED_MODULES,
  AGENT_WORKFLOWS_PATH,
  AgentRunnerPlugin,
  type AgentRunnerPluginOptions,
} from './plugin';
export type { ModelSettings } from '../shared/model-settings';
export type { AgentWorkerDeployment, RunVersioning } from '../shared/versioning';
export type { StreamListenerOptions } from '../activities/delta-hub';
export { registerSearchAttributes } from '../temporal/check-search-attributes';
export { SearchAttributesMissingError } from '../temporal/search-attributes-missing-error';
export { SecondSdkCopyError } from './checks/second-sdk-copy-error';
export { ENCODED_FAILURE_CONVERTER_PATH, payloadCodecDataConverter } from '../codec/data-converter';
export { AesGcmPayloadCodec, PayloadKeyError } from '../codec/aes-gcm-codec';
export { CodecKeyError, parseCodecKeys, readCodecKeyFile, type CodecKey } from '../codec/codec-keys';
export { loadCodecKeys } from '../config/payload-codec';
export { createAgentWorker, type AgentWorkerOptions } from './create-agent-worker';
