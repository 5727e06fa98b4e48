import { Client, Connection } from '@temporalio/client';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { startWorkerProcess } from './worker-process';
import { testServerAddress } from './test-env';

/** Where a crash-worker process (test/fixtures/crash-worker.ts) works: its task queue, model and files. */
export interface CrashWorkerSetup {
  taskQueue: string;
  modelBaseURL: string;
  /** The file its tools append their side effects to. */
  sideEffects: string;
  workspace: string;
  /** More of its environment (`FAULT_SERVER_LOG` for an MCP fault server). */
  extraEnv?: NodeJS.ProcessEnv;
}

/** Returns a function that starts a crash worker in a process group of its own (SIGKILL it with `-pid`). */
export function crashWorkerStarter(setup: CrashWorkerSetup): () => ReturnType<typeof startWorkerProcess> {
  const worker = {
    taskQueue: setup.taskQueue,
    modelBaseURL: setup.modelBaseURL,
    extraEnv: {
      AGENT_TEST_WORKFLOW_BUNDLE: process.env.AGENT_TEST_WORKFLOW_BUNDLE,
      SIDE_EFFECT_LOG: setup.sideEffects,
      AGENT_WORKSPACE: setup.workspace,
      ...setup.extraEnv,
    },
  };
  return () => startWorkerProcess(worker, { script: 'test/fixtures/crash-worker.ts', readyLine: /crash-worker ready/ });
}

/** A test file's scripted model and Temporal client for its crash workers: {@link useCrashWorld}. */
export interface CrashWorld {
  readonly model: ScriptedModelServer;
  readonly client: Client;
}

/** Starts a scripted model and connects a client before the file's tests, and closes both after; read inside tests. */
export function useCrashWorld(): CrashWorld {
  let started: { model: ScriptedModelServer; connection: Connection; client: Client } | undefined;
  beforeAll(async () => {
    const model = await ScriptedModelServer.start();
    const connection = await Connection.connect({ address: testServerAddress() });
    started = { model, connection, client: new Client({ connection }) };
  });
  afterAll(async () => {
    await started?.connection.close();
    await started?.model.close();
  });
  const current = () => {
    if (started === undefined) throw new Error('the crash world is started in beforeAll: use it inside a test');
    return started;
  };
  return {
    get model() {
      return current().model;
    },
    get client() {
      return current().client;
    },
  };
}
