import { Runtime, Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { ModelSettings } from '../shared/model-settings';
import { AGENT_WORKER_MAX_CONCURRENT_ACTIVITIES } from '../shared/defaults/worker';
import { requireSearchAttributes } from '../temporal/check-search-attributes';
import type { ToolDefinition } from '../tools/define-tool';
import { AgentRunnerPlugin, type AgentRunnerPluginOptions } from './plugin';

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
   * The history's payload codec ({@link AgentRunnerPluginOptions.dataConverter}); clients that read the runs need the same.
   * @default none: payloads in clear
   */
  dataConverter?: AgentRunnerPluginOptions['dataConverter'];
  /**
   * A prebuilt workflow bundle, else one is bundled at start; bundle it with the codec's `failureConverterPath` so
   * workflow failures are encrypted too.
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
 * A worker with only an {@link AgentRunnerPlugin}, `maxConcurrentActivityTaskExecutions` at
 * {@link AGENT_WORKER_MAX_CONCURRENT_ACTIVITIES} unless `overrides` says otherwise; a namespace without the agent's
 * search attributes is refused with {@link SearchAttributesMissingError} (see {@link registerSearchAttributes}).
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
