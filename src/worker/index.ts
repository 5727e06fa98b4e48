import { Runtime, Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { ModelSettings } from '../shared/model-settings';
import { ConfigError, configuredSecrets, loadWorkerConfig } from '../config';
import { describeTemporalSource } from '../config/temporal';
import { describePayloadEncryption, loadPayloadEncryption } from '../config/payload-codec';
import { AgentRunnerPlugin, type AgentRunnerPluginOptions } from './plugin';
import { isHttpServer, type McpServers } from '../config/mcp-servers';
import { createRedactor } from '../redaction';
import { requireSearchAttributes } from '../temporal/check-search-attributes';
import { connectWorker } from '../temporal/worker-connection';
import { AGENT_WORKER_MAX_CONCURRENT_ACTIVITIES } from '../shared/defaults/worker';
import { createBuiltinTools } from '../tools/builtin';
import type { ToolDefinition } from '../tools/define-tool';
import { runnerLogger } from './runner-logger';
import { VERSIONING_DEFAULTS, type AgentWorkerDeployment } from '../shared/versioning';
import { loadMetricsConfig } from '../config/tracing';
import { metricsExposureWarning } from '../config/metrics-exposure';
import { tracingForProcess } from '../tracing/process-tracing';
import { describeModelEndpoints } from './describe-endpoints';

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
export { AgentRunnerError } from '../shared/agent-runner-error';
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
export { AesGcmPayloadCodec } from '../codec/aes-gcm-codec';
export { PayloadKeyError } from '../codec/payload-key-error';
export { parseCodecKeys, readCodecKeyFile, type CodecKey } from '../codec/codec-keys';
export { CodecKeyError } from '../codec/codec-key-error';
export { loadCodecKeys } from '../config/payload-codec';

/** What a worker for `agentWorkflow` needs. */
export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** Tools runs on this worker may use (their `tools` input chooses among them). */
  tools: readonly ToolDefinition[];
  /** The OpenAI-compatible endpoint model calls go to. */
  model: ModelSettings;
  /** The HTTP listener for streaming model deltas: {@link AgentRunnerPluginOptions.streamListener}. */
  streamListener?: AgentRunnerPluginOptions['streamListener'];
  /**
   * The worker's data converter: a payload codec that encrypts what the agent writes to the history
   * (`payloadCodecDataConverter(keys)`, or one of your own); {@link AgentRunnerPluginOptions.dataConverter}.
   * Clients that read the runs need the same codec (`connectAgentClient(config, { dataConverter })`).
   * @default none: payloads in clear
   */
  dataConverter?: AgentRunnerPluginOptions['dataConverter'];
  /**
   * A prebuilt workflow bundle (tests bundle once); by default the workflows are bundled at start. With a
   * `dataConverter` that has a `failureConverterPath`, bundle with it (`bundleWorkflowCode({ ..., failureConverterPath })`)
   * so the failures workflows raise are encrypted too.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** MCP servers whose tools runs may use: {@link AgentRunnerPluginOptions.mcpServers}. @default none */
  mcpServers?: AgentRunnerPluginOptions['mcpServers'];
  /**
   * Worker Versioning: the worker deployment and build this worker runs ({@link AgentRunnerPluginOptions.deployment}).
   * @default none: an unversioned worker
   */
  deployment?: AgentRunnerPluginOptions['deployment'];
  /** How the agent's activities heartbeat: {@link AgentRunnerPluginOptions.heartbeat}. @default from the environment */
  heartbeat?: AgentRunnerPluginOptions['heartbeat'];
  /** Tools whose every call waits for approval: {@link AgentRunnerPluginOptions.approvalRequired}. @default from the environment */
  approvalRequired?: AgentRunnerPluginOptions['approvalRequired'];
  /** Extra worker options (concurrency limits, identity, more plugins, ...). */
  overrides?: Partial<WorkerOptions>;
}

/**
 * A worker that runs only the agent: `agentWorkflow`, `conversationWorkflow` and their activities, with
 * `maxHeartbeatThrottleInterval` at {@link AGENT_MAX_HEARTBEAT_THROTTLE_INTERVAL} and `maxConcurrentActivityTaskExecutions`
 * at {@link AGENT_WORKER_MAX_CONCURRENT_ACTIVITIES} unless `overrides` says otherwise.
 * It is a worker with an {@link AgentRunnerPlugin}; to add the agent to a worker of your own, use the plugin.
 * A namespace that lacks the agent's search attributes is refused with {@link SearchAttributesMissingError}
 * (register them with {@link registerSearchAttributes}).
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const { plugins = [], ...overrides } = options.overrides ?? {};
  // The plugin checks again when the worker runs; checked here first, a namespace without them fails before the bundle is built.
  await requireSearchAttributes(options.connection, options.namespace, (message) =>
    Runtime.instance().logger.warn(message),
  );
  const plugin = new AgentRunnerPlugin({
    tools: options.tools,
    model: options.model,
    ...(options.streamListener === undefined ? {} : { streamListener: options.streamListener }),
    ...(options.dataConverter === undefined ? {} : { dataConverter: options.dataConverter }),
    ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
    ...(options.deployment === undefined ? {} : { deployment: options.deployment }),
    ...(options.heartbeat === undefined ? {} : { heartbeat: options.heartbeat }),
    ...(options.approvalRequired === undefined ? {} : { approvalRequired: options.approvalRequired }),
  });
  // Listening before the worker exists, the listener's URL goes in the worker's identity, where followers find it.
  await plugin.startStreamListener();
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle === undefined ? {} : { workflowBundle: options.workflowBundle }),
    // Agents' activities mostly wait on the model: slots, not CPU, would cap the runs in flight. A tuner excludes the option.
    ...(overrides.tuner === undefined
      ? { maxConcurrentActivityTaskExecutions: AGENT_WORKER_MAX_CONCURRENT_ACTIVITIES }
      : {}),
    ...overrides,
    plugins: [plugin, ...plugins],
  });
}

/** `npm run worker`: a worker with the built-in tools, configured from the environment. */
async function main(secrets: readonly string[]): Promise<void> {
  const { temporal, model: configured, logLevel, mcpServers, deployment } = loadWorkerConfig();
  const encryption = loadPayloadEncryption(process.env, temporal);
  // Signals are handled below, not by the SDK: Ctrl-C reaches tsx and node both and tsx relays it once more,
  // and a second SIGINT after the SDK's handler has run would kill the worker in the middle of draining.
  // A provider may echo the key in an error: no log line of the worker prints a configured secret.
  const metrics = loadMetricsConfig();
  Runtime.install({
    logger: runnerLogger(logLevel, secrets),
    shutdownSignals: [],
    // Temporal's own SDK metrics (its Rust core serves or pushes them): AGENT_METRICS_PROMETHEUS or AGENT_METRICS_OTLP_URL.
    ...(metrics === undefined ? {} : { telemetryOptions: { metrics } }),
  });
  const exposure = metricsExposureWarning(metrics);
  if (exposure !== undefined) Runtime.instance().logger.warn(exposure);
  const connection = await connectWorker(temporal);
  // Loaded only offline: the package's worker entry does not carry the scripted model's server otherwise.
  const served =
    configured.offline === undefined
      ? undefined
      : await (await import('../scripted-model/offline-model')).serveOfflineModel(configured);
  const model = served?.model ?? configured;
  if (served?.notice !== undefined) console.log(served.notice);
  const worker = await createAgentWorker({
    connection,
    namespace: temporal.namespace,
    taskQueue: temporal.taskQueue,
    tools: createBuiltinTools({ workspace: model.workspace }),
    model: { ...model, secrets },
    dataConverter: encryption.dataConverter,
    mcpServers,
    ...(deployment === undefined ? {} : { deployment }),
  });
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      console.log(
        `${signal}: stopping; tasks in progress finish first, runs continue on other workers or after a restart.`,
      );
      worker.shutdown();
    });
  }
  // Announced only once the handlers are in place: a Ctrl-C right after this line must already drain.
  console.log(
    `Worker polling task queue "${temporal.taskQueue}" in namespace "${temporal.namespace}" at ${temporal.address} (${describeTemporalSource(temporal)}); ` +
      `${describeModelEndpoints(model)}; workspace ${model.workspace}; ${describePayloadEncryption(encryption)}; ${describeMcpServers(mcpServers)}; ${describeDeployment(deployment)}. Ctrl-C stops it.`,
  );
  try {
    await worker.run();
  } finally {
    await served?.close();
    await connection.close();
    // The spans still buffered, among them the last runs' workflow spans.
    await tracingForProcess(undefined)?.shutdown();
  }
}

/** The MCP servers' names and transports for the start line; never their commands, URLs or credentials. */
function describeMcpServers(servers: McpServers): string {
  const names = Object.entries(servers).map(([name, server]) => `${name} (${isHttpServer(server) ? 'http' : 'stdio'})`);
  return names.length === 0 ? 'no MCP servers' : `MCP servers ${names.join(', ')}`;
}

/** The worker's deployment version and default behaviour for the start line; `unversioned` without one. */
function describeDeployment(deployment: AgentWorkerDeployment | undefined): string {
  if (deployment === undefined) return 'unversioned';
  const behaviour = deployment.defaultVersioning ?? VERSIONING_DEFAULTS.defaultVersioning;
  return `deployment ${deployment.deploymentName}, build ${deployment.buildId} (runs ${behaviour} by default)`;
}

if (require.main === module) {
  const secrets = configuredSecrets();
  main(secrets).catch((error: unknown) => {
    console.error(
      createRedactor(secrets)(ConfigError.isInstance(error) || error instanceof Error ? error.message : String(error)),
    );
    process.exit(1);
  });
}
