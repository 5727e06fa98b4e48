import type { DataConverter } from '@temporalio/common';
import { SimplePlugin } from '@temporalio/plugin';
import {
  Runtime,
  type BundleOptions,
  type InjectedSinks,
  type ReplayWorkerOptions,
  type Worker,
  type WorkerOptions,
} from '@temporalio/worker';
import { createActivities } from '../activities';
import type { ModelSettings } from '../shared/model-settings';
import { DeltaHub, type StreamListenerOptions } from '../activities/delta-hub';
import { ModelRequestCache, modelRequestKey } from '../activities/model-request-cache';
import { ACTIVITY_DEFAULTS } from '../shared/defaults/activities';
import { type ModelRequestSinks } from '../workflow-contract/model-request-sinks';
import type { ToolDefinition } from '../tools/define-tool';
import { createToolRegistry } from '../tools/tool-registry';
import { createRedactor } from '../redaction';
import { McpToolSet } from '../mcp/mcp-tool-set';
import { McpServerRequests } from '../mcp/server-requests';
import { samplingModel } from './sampling-model';
import { mcpSecrets, parseMcpServers, type McpServers } from '../config/mcp-servers';
import { checkAgentWorkflowsExported } from './checks/agent-workflows-exported';
import { runIfSearchAttributes } from './checks/namespace-search-attributes';
import { refuseSecondSdkCopy } from './checks/single-sdk-copy';
import { loadTracingConfig, type TracingConfig } from '../config/tracing';
import { tracingForProcess } from '../tracing/process-tracing';
import type { TracingSdk } from '../tracing/sdk';
import { withWorkerTracing } from '../tracing/worker-tracing';
import type { AgentWorkerDeployment } from '../shared/versioning';
import { withWorkerDeployment } from './deployment';
import { heartbeatSettings, type HeartbeatOptions } from '../config/heartbeat';
import { approvalRequiredTools, checkedApprovalRequired } from '../config/approval-policy';
import { withStreamUrl } from '../shared/worker-identity';
import { hostname } from 'node:os';

/**
 * The module a worker bundles for `agentWorkflow` and `conversationWorkflow`:
 * `src/workflows/index.ts` when run from source, `dist/workflows/index.js` once built
 * (the file behind `agent-runner/workflow`).
 */
export const AGENT_WORKFLOWS_PATH: string = require.resolve('../workflows');

/**
 * Modules a workflow bundle preloads once per worker thread so runs do not rebuild the schemas; pass them to
 * `bundleWorkflowCode({ preloadModules })` for a prebuilt bundle.
 */
export const AGENT_PRELOADED_MODULES: readonly string[] = [require.resolve('../shared/built-once')];

/**
 * Cap on heartbeat throttling, because a running tool hears of its cancellation only in a heartbeat's answer and
 * the SDK's default (80% of the heartbeat timeout) would let it run on for seconds.
 */
export const AGENT_MAX_HEARTBEAT_THROTTLE_INTERVAL = ACTIVITY_DEFAULTS.maxHeartbeatThrottleInterval;

/** The `service.name` of a worker's spans when `OTEL_SERVICE_NAME` is unset. */
const WORKER_SERVICE_NAME = 'agent-runner-worker';

/** What {@link AgentRunnerPlugin} needs. */
export interface AgentRunnerPluginOptions {
  /** Tools runs on this worker may use (each run's `tools` input chooses among them). */
  tools: readonly ToolDefinition[];
  /** The OpenAI-compatible endpoint the `callModel` activity talks to. */
  model: ModelSettings;
  /**
   * The HTTP(S) listener that serves model deltas to followers while a call streams; the run's stream key is the
   * credential. `false`: followers see each answer once complete. Unset fields come from `AGENT_STREAM_*`.
   * @default `{ host: '127.0.0.1', port: 0 }` (this machine only, a free port)
   */
  streamListener?: StreamListenerOptions | false;
  /**
   * A payload codec for the history (`payloadCodecDataConverter(keys)` for AES-256-GCM), merged into the worker's
   * `dataConverter`; codecs or failure converters named by both are refused rather than one silently dropped.
   * @default the worker's own `dataConverter` (none: payloads in clear)
   */
  dataConverter?: DataConverter;
  /**
   * OpenTelemetry tracing over OTLP (`docs/guide/tracing.md`); unset: on when `OTEL_EXPORTER_OTLP_ENDPOINT` or
   * `OTEL_TRACES_EXPORTER=otlp` is set. Process-wide: the first plugin that turns it on sets it up.
   * @default from the environment
   */
  tracing?: TracingConfig | false;
  /**
   * MCP servers by name (`docs/guide/mcp-tools.md`): stdio `{ command, ... }` or HTTP `{ url, ... }`; server `s`'s
   * tool `t` is `s__t`. `env` and `headers` are credentials, redacted everywhere; a bad entry throws at construction.
   * @default none
   */
  mcpServers?: McpServers;
  /**
   * Worker Versioning (`docs/operations/deploys.md`): sets the worker's `workerDeploymentOptions`; a worker that sets
   * different ones itself is refused.
   * @default none: an unversioned worker, as the worker's own options say
   */
  deployment?: AgentWorkerDeployment;
  /**
   * Activity heartbeats (`docs/operations/actions.md`): `timeout` is what a dead worker costs each call in flight;
   * `interval`, at most half the timeout, costs one Temporal Cloud action per beat. Unset: `AGENT_HEARTBEAT_*`.
   * @default `{ timeout: '50 seconds', interval: '25 seconds' }`
   */
  heartbeat?: HeartbeatOptions;
  /**
   * Tools (name or `<server>__*`) whose every call waits for approval, a floor a run cannot lower
   * (`docs/guide/approvals.md`); `context_release` is refused because no worker sees its calls.
   * @default `AGENT_APPROVAL_REQUIRED_TOOLS`, else none
   */
  approvalRequired?: readonly string[];
}

/**
 * Adds the agent's activities and workflows to a worker you already run; a clash of activity names or codecs is
 * refused, and a worker with its own workflows must `export * from 'agent-runner/workflow'`.
 * Plugins are experimental in the Temporal SDK, so this API may change.
 */
export class AgentRunnerPlugin extends SimplePlugin {
  private readonly activityNames: readonly string[];
  private readonly hub: DeltaHub | false;
  /** The hub URL the last worker configured by this plugin carries in its identity, if any. */
  private readonly named: { url: string | undefined };
  private readonly tracing: TracingSdk | undefined;
  private readonly deployment: AgentWorkerDeployment | undefined;
  // A JS private field, not a TypeScript one: the SDK logs the worker's options (its plugins included) at DEBUG as
  // JSON, and the servers' configuration holds their credentials.
  readonly #mcp: McpToolSet | undefined;

  constructor(options: AgentRunnerPluginOptions) {
    const hub = options.streamListener === false ? false : DeltaHub.forProcess(options.streamListener);
    const mcpServers = parseMcpServers(options.mcpServers ?? {});
    const hasMcp = Object.keys(mcpServers).length > 0;
    const model = hasMcp ? withMcpSecrets(options.model, mcpServers) : options.model;
    const mcp = hasMcp ? mcpToolSet(mcpServers, model) : undefined;
    const heartbeat = heartbeatSettings(options.heartbeat);
    const named = { url: undefined as string | undefined };
    const activities = createActivities({
      registry: createToolRegistry(options.tools, mcp),
      model,
      hub,
      heartbeat,
      streamsInIdentity: () => named.url !== undefined,
      approvalRequired:
        options.approvalRequired === undefined
          ? approvalRequiredTools()
          : checkedApprovalRequired(options.approvalRequired, 'approvalRequired'),
    });
    const dataConverter = options.dataConverter;
    super({
      name: 'agent-runner',
      activities,
      ...(dataConverter === undefined
        ? {}
        : { dataConverter: (existing?: DataConverter) => mergeDataConverter(existing, dataConverter) }),
    });
    this.activityNames = Object.keys(activities);
    this.hub = hub;
    this.named = named;
    this.#mcp = mcp;
    this.deployment = options.deployment;
    this.tracing =
      options.tracing === false
        ? undefined
        : tracingForProcess(options.tracing ?? loadTracingConfig(WORKER_SERVICE_NAME));
  }

  /**
   * Starts the stream listener now, so a worker created after it carries the listener's URL in its identity even on
   * a free port (port 0); a listener that cannot start is logged, and the worker goes on without streaming deltas.
   */
  async startStreamListener(): Promise<void> {
    if (this.hub !== false) await announceStreamListener(this.hub);
  }

  /** Whether this plugin's workers trace (and so carry Temporal's OpenTelemetry interceptors). */
  get tracingOn(): boolean {
    return this.tracing !== undefined;
  }

  /**
   * Adds the agent's activities, its workflows when the worker has none, the preloaded modules, the heartbeat
   * throttle and the worker deployment.
   */
  override configureWorker(options: WorkerOptions): WorkerOptions {
    refuseActivityClashes(options.activities, this.activityNames);
    const traced = withWorkerDeployment(
      this.tracing === undefined ? options : withWorkerTracing(options, this.tracing),
      this.deployment,
    );
    const url = this.hub === false ? undefined : this.hub.knownUrl;
    this.named.url = url;
    return super.configureWorker({
      ...traced,
      ...(url === undefined
        ? {}
        : { identity: withStreamUrl(options.identity ?? `${process.pid}@${hostname()}`, url) }),
      ...defaultWorkflows(options, true),
      maxHeartbeatThrottleInterval: options.maxHeartbeatThrottleInterval ?? AGENT_MAX_HEARTBEAT_THROTTLE_INTERVAL,
      sinks: { ...traced.sinks, ...modelRequestSinks() },
    });
  }

  /** Refuses a bundle with a second copy of `@temporalio/workflow` (see `checks/single-sdk-copy.ts`). */
  override configureBundler(options: BundleOptions): BundleOptions {
    refuseSecondSdkCopy(options);
    return super.configureBundler(options);
  }

  /**
   * Refuses to run on a namespace that lacks the agent's search attributes (its runs would stall); then starts the
   * stream listener and says where it listens. The listener is not awaited: the worker's own start (and a
   * `shutdown()` right after `run()`) must not wait on it; a model call that comes first waits for it itself.
   */
  override runWorker(worker: Worker, next: (worker: Worker) => Promise<void>): Promise<void> {
    return super.runWorker(worker, (started) =>
      runIfSearchAttributes(started, async (checked) => {
        if (this.hub !== false) void announceStreamListener(this.hub);
        try {
          return await next(checked);
        } finally {
          // No MCP server's process outlives the worker.
          await this.#mcp?.close();
        }
      }),
    );
  }

  /** A replay worker with no workflows of its own replays the agent's. */
  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    // Not checked for the agent's workflows: a replay may replay one of them only, from a module of the user's.
    const traced = this.tracing === undefined ? options : withWorkerTracing(options, this.tracing);
    return super.configureReplayWorker({
      ...traced,
      ...defaultWorkflows(options, false),
      sinks: { ...traced.sinks, ...modelRequestSinks() },
    });
  }
}

/**
 * The worker's MCP servers, logging through the SDK's logger with their credentials redacted: a server's last
 * stderr lines go into the log when it exits, and a server may print its own environment.
 */
function mcpToolSet(servers: McpServers, model: ModelSettings): McpToolSet {
  const redact = createRedactor(mcpSecrets(servers));
  const attributesOf = (attributes: Record<string, unknown> | undefined) =>
    attributes === undefined ? undefined : redact.value(attributes);
  const log = {
    info: (message: string, attributes?: Record<string, unknown>) =>
      Runtime.instance().logger.info(redact(message), attributesOf(attributes)),
    warn: (message: string, attributes?: Record<string, unknown>) =>
      Runtime.instance().logger.warn(redact(message), attributesOf(attributes)),
  };
  // Elicitation goes to the call's run; sampling is answered by the worker's model for servers that allow it, and counted in the call's run.
  return new McpToolSet(servers, {
    log,
    requests: new McpServerRequests(servers, { model: samplingModel(model), log }),
  });
}

/** The model settings with the MCP servers' credentials among the secrets redacted from results and failures. */
function withMcpSecrets(model: ModelSettings, servers: McpServers): ModelSettings {
  return { ...model, secrets: [...(model.secrets ?? []), ...mcpSecrets(servers)] };
}

const announcedHubs = new WeakSet<DeltaHub>();

/** Starts `hub` and logs its address; a listener that cannot start is a warning, as it is to each model call. */
async function announceStreamListener(hub: DeltaHub): Promise<void> {
  // Once per hub: a plugin that started it before its worker was created has said where it listens.
  if (announcedHubs.has(hub)) return;
  announcedHubs.add(hub);
  const logger = Runtime.instance().logger;
  try {
    const url = await hub.start();
    logger.info(
      `agent-runner: serving streamed model deltas to followers at ${url} (AgentRunnerPlugin's streamListener)`,
    );
    if (hub.plainBeyondLoopback)
      logger.warn(
        'agent-runner: the stream listener serves plain http beyond this machine: keep its port on a private network, or give it a certificate (AGENT_STREAM_TLS_CERT and AGENT_STREAM_TLS_KEY).',
      );
  } catch (error) {
    logger.warn(
      `agent-runner: the stream listener could not start (${error instanceof Error ? error.message : String(error)}); followers see answers only once complete.`,
    );
  }
}

/** The sink the agent's workflows hand large conversations to: into this process's cache, for its next `callModel`. */
function modelRequestSinks(): InjectedSinks<ModelRequestSinks> {
  const cache = ModelRequestCache.forProcess();
  return {
    agentRunnerModelRequests: {
      offer: {
        fn: (info, iteration, messages, bytes) =>
          cache.offer(modelRequestKey(info.workflowId, info.runId, iteration), messages, bytes),
        callDuringReplay: false,
      },
    },
  };
}

/**
 * The agent's workflows for a worker with none of its own, and for any worker Temporal bundles for (no prebuilt
 * `workflowBundle`) the preloaded modules, which cost nothing in a bundle without the agent's workflows.
 */
function defaultWorkflows(
  options: Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle' | 'bundlerOptions'>,
  checkExports: boolean,
): Pick<WorkerOptions, 'workflowsPath' | 'bundlerOptions'> {
  if (options.workflowBundle !== undefined) return {};
  const preloadModules = [...new Set([...(options.bundlerOptions?.preloadModules ?? []), ...AGENT_PRELOADED_MODULES])];
  if (options.workflowsPath === undefined)
    return { workflowsPath: AGENT_WORKFLOWS_PATH, bundlerOptions: { ...options.bundlerOptions, preloadModules } };
  if (!checkExports) return { bundlerOptions: { ...options.bundlerOptions, preloadModules } };
  const webpackConfigHook = checkAgentWorkflowsExported(
    options.workflowsPath,
    options.bundlerOptions?.webpackConfigHook,
  );
  return { bundlerOptions: { ...options.bundlerOptions, preloadModules, webpackConfigHook } };
}

function refuseActivityClashes(activities: object | undefined, agentActivityNames: readonly string[]): void {
  if (activities === undefined) return;
  const clashes = agentActivityNames.filter((name) => Object.hasOwn(activities, name));
  if (clashes.length > 0) {
    throw new Error(
      `AgentRunnerPlugin: the worker already has activities named ${clashes.join(', ')}, which the agent's workflows call. ` +
        'Rename yours, or run the agent on a worker of its own.',
    );
  }
}

/**
 * `ours` over the worker's own data converter: its fields win where the worker left them out; a worker with payload
 * codecs or a failure converter of its own and a plugin with them too is refused (with which), rather than losing one.
 */
function mergeDataConverter(existing: DataConverter | undefined, ours: DataConverter): DataConverter {
  if (existing === undefined || existing === ours) return ours;
  const clashes = (['payloadCodecs', 'failureConverterPath', 'payloadConverterPath'] as const).filter(
    (field) =>
      existing[field] !== undefined &&
      ours[field] !== undefined &&
      existing[field] !== ours[field] &&
      !(field === 'payloadCodecs' && existing.payloadCodecs?.length === 0),
  );
  if (clashes.length > 0) {
    throw new Error(
      `AgentRunnerPlugin: the worker's dataConverter already sets ${clashes.join(', ')}, and so does the plugin's dataConverter option. ` +
        "Give the codec in one place: either the worker's options or the plugin's.",
    );
  }
  return { ...existing, ...Object.fromEntries(Object.entries(ours).filter(([, value]) => value !== undefined)) };
}
