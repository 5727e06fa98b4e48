import type { McpServers } from '../../src/config/mcp-servers';
import type { StreamListenerOptions } from '../../src/activities/delta-hub';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, type DataConverter } from '@temporalio/common';
import { NativeConnection, bundleWorkflowCode, type Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import type { ScriptStep } from '../../src/scripted-model/script';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { type AgentInput } from '../../src/shared/agent-input';
import { type AgentResult } from '../../src/shared/agent-result';
import { type AgentWorkflowResult, withAnswerRestored } from '../../src/shared/result-answer';
import { type PriceTable } from '../../src/shared/prices';
import type { ModelSettings } from '../../src/shared/model-settings';
import { createBuiltinTools } from '../../src/tools/builtin';
import type { ToolDefinition } from '../../src/tools/define-tool';
import { AGENT_PRELOADED_MODULES, AGENT_WORKFLOWS_PATH } from '../../src/worker/plugin';
import { createAgentWorker } from '../../src/worker';
import { installQuietRuntime } from './quiet-runtime';

/** The suite's server, from global setup. A missing server is an error, never a skip. */
export function testServerAddress(): string {
  const address = process.env.TEMPORAL_TEST_ADDRESS;
  if (!address)
    throw new Error(
      'TEMPORAL_TEST_ADDRESS is not set: run the tests with `npm test` (jest global setup starts the server).',
    );
  return address;
}

/**
 * A test file's world: the suite's Temporal server, its own scripted model
 * server, and its own worker on its own task queue with the built-in tools
 * (file tools in a temporary workspace) plus `extraTools`.
 */
export class TestEnv {
  private workerRun?: Promise<void>;
  private scenarioCount = 0;

  private constructor(
    readonly client: Client,
    readonly model: ScriptedModelServer,
    private worker: Worker,
    private readonly createWorker: (dataConverter?: DataConverter) => Promise<Worker>,
    readonly taskQueue: string,
    readonly workspace: string,
    private readonly connections: { client: Connection; worker: NativeConnection },
  ) {}

  /**
   * @param options.workflowsPath a workflows module of the test's own (bundled here, once) instead of the suite's bundle
   * @param options.prices the worker's price table (`model.prices`)
   * @param options.modelSettings the worker's sampling settings and token-cap field (`model.sampling`, `model.maxTokensField`)
   * @param options.dataConverter the worker's and the client's data converter (a payload codec); one with a
   *   `failureConverterPath` gets a bundle of its own with that converter, as a deployment's worker would
   */
  static async create(
    options: {
      extraTools?: ToolDefinition[];
      workflowsPath?: string;
      prices?: PriceTable;
      dataConverter?: DataConverter;
      /** MCP servers the worker offers tools from. */
      mcpServers?: McpServers;
      /** Tools whose every call waits for approval, the operator's floor (`approvalRequired`). */
      approvalRequired?: string[];
      modelSettings?: Pick<ModelSettings, 'sampling' | 'maxTokensField' | 'stream'>;
      /** The worker's stream listener (`streamListener`): where it binds, and the URL it gives out. */
      streamListener?: StreamListenerOptions;
      /** False: no worker polls the task queue until {@link startWorker}. @default true */
      workerStarted?: boolean;
    } = {},
  ): Promise<TestEnv> {
    installQuietRuntime();
    const address = testServerAddress();
    const bundlePath = process.env.AGENT_TEST_WORKFLOW_BUNDLE;
    if (!bundlePath) throw new Error('AGENT_TEST_WORKFLOW_BUNDLE is not set: run the tests with `npm test`.');
    const model = await ScriptedModelServer.start();
    const workspace = await mkdtemp(path.join(os.tmpdir(), 'agent-workspace-'));
    const taskQueue = `test-${randomUUID()}`;
    const workerConnection = await NativeConnection.connect({ address });
    const clientConnection = await Connection.connect({ address });
    const failureConverterPath = options.dataConverter?.failureConverterPath;
    const ownBundle =
      options.workflowsPath === undefined && failureConverterPath === undefined
        ? undefined
        : await bundleWorkflowCode({
            workflowsPath: options.workflowsPath ?? AGENT_WORKFLOWS_PATH,
            preloadModules: [...AGENT_PRELOADED_MODULES],
            ...(failureConverterPath === undefined ? {} : { failureConverterPath }),
            logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
          });
    const createWorker = (dataConverter = options.dataConverter) =>
      createAgentWorker({
        connection: workerConnection,
        namespace: 'default',
        taskQueue,
        tools: [...createBuiltinTools({ workspace }), ...(options.extraTools ?? [])],
        model: {
          baseURL: model.baseURL,
          apiKey: 'test-key',
          defaultModel: 'unused-default',
          ...(options.prices === undefined ? {} : { prices: options.prices }),
          ...options.modelSettings,
        },
        workflowBundle: ownBundle ?? { codePath: bundlePath },
        ...(dataConverter === undefined ? {} : { dataConverter }),
        ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
        ...(options.approvalRequired === undefined ? {} : { approvalRequired: options.approvalRequired }),
        ...(options.streamListener === undefined ? {} : { streamListener: options.streamListener }),
      });
    const worker = await createWorker();
    const env = new TestEnv(
      new Client({
        connection: clientConnection,
        namespace: 'default',
        ...(options.dataConverter === undefined ? {} : { dataConverter: options.dataConverter }),
      }),
      model,
      worker,
      createWorker,
      taskQueue,
      workspace,
      {
        client: clientConnection,
        worker: workerConnection,
      },
    );
    if (options.workerStarted !== false) env.workerRun = worker.run();
    return env;
  }

  /** A model name of its own for one scenario, with its script queued. */
  scenario(steps: ScriptStep[]): string {
    const name = `scenario-${++this.scenarioCount}-${randomUUID().slice(0, 8)}`;
    this.model.script(name, steps);
    return name;
  }

  /** Starts `agentWorkflow` with `input` exactly as given (no client-side validation). */
  async start(input: AgentInput | Record<string, unknown>): Promise<WorkflowHandle> {
    return this.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: this.taskQueue,
      workflowId: `test-${randomUUID()}`,
      args: [input],
    });
  }

  /** Runs to the end and returns the result. */
  async run(input: AgentInput | Record<string, unknown>): Promise<AgentResult> {
    return withAnswerRestored((await (await this.start(input)).result()) as AgentWorkflowResult);
  }

  /** Runs to the end, expecting failure; returns the workflow's `ApplicationFailure`. */
  async runExpectingFailure(input: AgentInput | Record<string, unknown>): Promise<ApplicationFailure> {
    const handle = await this.start(input);
    try {
      await handle.result();
    } catch (error) {
      if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure) return error.cause;
      throw error;
    }
    throw new Error(`workflow ${handle.workflowId} completed; a failure was expected`);
  }

  /**
   * Shuts the worker down (its cached workflows are gone with it) and starts a
   * new one on the same task queue: what a crash and redeploy look like to a run.
   */
  async restartWorker(options: { dataConverter?: DataConverter } = {}): Promise<void> {
    await this.stopWorker();
    await this.startWorker(options);
  }

  /** Shuts the worker down: the task queue has no worker until {@link startWorker}. */
  async stopWorker(): Promise<void> {
    this.worker.shutdown();
    await this.workerRun;
  }

  /**
   * Starts a worker after {@link stopWorker}; `dataConverter` replaces the one the test env was created with (keys
   * rotated, a key missing), on the same workflow bundle.
   */
  async startWorker(options: { dataConverter?: DataConverter } = {}): Promise<void> {
    if (this.worker.getState() !== 'INITIALIZED' || options.dataConverter !== undefined)
      this.worker = await this.createWorker(options.dataConverter);
    this.workerRun = this.worker.run();
  }

  /** A client of this env's server and namespace with a data converter of its own (other keys, or none). */
  clientWith(dataConverter?: DataConverter): Client {
    return new Client({
      connection: this.connections.client,
      namespace: 'default',
      ...(dataConverter === undefined ? {} : { dataConverter }),
    });
  }

  async close(): Promise<void> {
    // A worker created but never run is run for a moment, the only way to release it.
    if (this.worker.getState() === 'INITIALIZED') this.workerRun = this.worker.run();
    this.worker.shutdown();
    await this.workerRun;
    await this.connections.client.close();
    await this.connections.worker.close();
    await this.model.close();
  }
}
