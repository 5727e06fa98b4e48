import { cleanEnv, startScript } from './processes';
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
export function crashWorkerStarter(setup: CrashWorkerSetup): () => ReturnType<typeof startScript> {
  const env = cleanEnv({
    TEMPORAL_ADDRESS: testServerAddress(),
    AGENT_TASK_QUEUE: setup.taskQueue,
    OPENAI_BASE_URL: setup.modelBaseURL,
    AGENT_TEST_WORKFLOW_BUNDLE: process.env.AGENT_TEST_WORKFLOW_BUNDLE,
    SIDE_EFFECT_LOG: setup.sideEffects,
    AGENT_WORKSPACE: setup.workspace,
    ...setup.extraEnv,
  });
  return () => startScript('test/fixtures/crash-worker.ts', env, /crash-worker ready/);
}
