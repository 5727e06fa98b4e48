/*
 * `agent-runner/worker`: what a process that runs agents imports. Workflow code imports `agent-runner/workflow`
 * instead, backend services `agent-runner`. Each group below is a row of docs/guide/package.md's table for this
 * entry (test/unit/package-entries.test.ts).
 */

// The agent on a worker: one of its own, or the plugin on yours.
export { createAgentWorker, type AgentWorkerOptions } from './create-agent-worker';
export {
  AGENT_MAX_HEARTBEAT_THROTTLE_INTERVAL,
  AGENT_PRELOADED_MODULES,
  AGENT_WORKFLOWS_PATH,
  AgentRunnerPlugin,
  type AgentRunnerPluginOptions,
} from './plugin';
export type { ModelSettings } from '../shared/model-settings';
export type { StreamListenerOptions } from '../activities/delta-hub';
export type { AgentWorkerDeployment, RunVersioning } from '../shared/versioning';
export { SecondSdkCopyError } from './checks/second-sdk-copy-error';
export { AgentRunnerError } from '../shared/agent-runner-error';

// Tools: defining them, what they may return or throw, and the built-in ones.
export { defineTool, type ToolContext, type ToolDefinition, type ToolOutput } from '../tools/define-tool';
export { defineAgentTool, type AgentToolDefinition } from '../tools/define-agent-tool';
export { outputSchema, type OutputSpec } from '../shared/typed-output';
export { TerminateResponse } from '../tools/terminate-response';
export { WaitForInput } from '../tools/wait-for-input';
export { RetryableToolError } from '../tools/retryable-tool-error';
export { createBuiltinTools } from '../tools/builtin';

// Search attributes: the helper that registers them on a namespace, and the error when they are missing.
export { registerSearchAttributes } from '../temporal/check-search-attributes';
export { SearchAttributesMissingError } from '../temporal/search-attributes-missing-error';

// Payload encryption: the codec's data converter for this worker and the clients, its keys, and its errors.
export { ENCODED_FAILURE_CONVERTER_PATH, payloadCodecDataConverter } from '../codec/data-converter';
export { AesGcmPayloadCodec } from '../codec/aes-gcm-codec';
export { PayloadKeyError } from '../codec/payload-key-error';
export { parseCodecKeys, type CodecKey } from '../codec/codec-keys';
export { CodecKeyError } from '../codec/codec-key-error';
export { loadCodecKeys } from '../config/payload-codec';
