import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { AGENT_PRELOADED_MODULES } from '../../src/worker/plugin';
import { CHAOS_MODEL, chaosAgent } from './chaos-agent';
import type { ChaosWorkerEnvironment } from './worker-contract';

/** What both forms of the chaos run (the dev server's and the stack's) prepare before their workers start. */
export interface ChaosSetup {
  /** The chaos model, answering each call after `modelWork` ms. */
  model: ScriptedModelServer;
  /** The chaos workers' environment, but for the Temporal address (the dev server's, or the stack's own). */
  workerEnvironment: ChaosWorkerEnvironment;
  sideEffectLog: string;
  mcpPidLog: string;
}

/**
 * Starts the chaos model, bundles the workflows once into `directory` (every worker start reads that file instead of
 * bundling again), and names the side-effect and MCP pid logs the workers write.
 */
export async function prepareChaosWorkers(
  directory: string,
  taskQueue: string,
  options: { modelWork: number; toolWork: number; resultBytes: number },
  say: (line: string) => void,
): Promise<ChaosSetup> {
  const sideEffectLog = path.join(directory, 'side-effects.jsonl');
  const mcpPidLog = path.join(directory, 'mcp-servers.txt');
  const model = await ScriptedModelServer.start();
  model.respond(CHAOS_MODEL, (request) => ({ ...chaosAgent(request), delayMs: options.modelWork }));
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../src/workflows'),
    preloadModules: [...AGENT_PRELOADED_MODULES],
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: (message) => say(message), log() {} },
  });
  const bundleFile = path.join(directory, 'workflows.js');
  await writeFile(bundleFile, bundle.code);
  return {
    model,
    sideEffectLog,
    mcpPidLog,
    workerEnvironment: {
      CHAOS_TASK_QUEUE: taskQueue,
      CHAOS_BUNDLE: bundleFile,
      CHAOS_MODEL_URL: model.baseURL,
      CHAOS_SIDE_EFFECT_LOG: sideEffectLog,
      CHAOS_TOOL_WORK_MS: String(options.toolWork),
      CHAOS_RESULT_BYTES: String(options.resultBytes),
      CHAOS_MCP_PID_LOG: mcpPidLog,
      AGENT_HEARTBEAT_TIMEOUT: '10 seconds',
      AGENT_HEARTBEAT_INTERVAL: '5 seconds',
    },
  };
}
