import { cleanEnv, startScript } from './processes';
import { testServerAddress } from './test-env';

/** The worker program, run with tsx as `npm run worker` runs it. */
export const WORKER_PROGRAM = 'src/processes/worker.ts';

/** What the worker program prints once it polls its task queue. */
const WORKER_READY = /Worker polling task queue/;

/** Where a worker process works: its task queue and model, the server (the suite's unless given) and the rest. */
export interface WorkerProcessSetup {
  taskQueue: string;
  modelBaseURL: string;
  address?: string;
  /** More of its environment (`OPENAI_MODEL`, `AGENT_CODEC_KEY_FILE`, `LOG_LEVEL`, ...). */
  extraEnv?: NodeJS.ProcessEnv;
}

/** A worker process's environment: a fresh shell's, pointed at its server, task queue and model, plus `extraEnv`. */
export function workerProcessEnv(setup: WorkerProcessSetup): NodeJS.ProcessEnv {
  return cleanEnv({
    TEMPORAL_ADDRESS: setup.address ?? testServerAddress(),
    AGENT_TASK_QUEUE: setup.taskQueue,
    OPENAI_BASE_URL: setup.modelBaseURL,
    ...setup.extraEnv,
  });
}

/**
 * Starts a worker process in a process group of its own (stop it with `stopChild`): the worker program, or `script`
 * (a test's own worker, with its own `readyLine`); resolves once it is ready.
 */
export function startWorkerProcess(
  setup: WorkerProcessSetup,
  program: { script?: string; readyLine?: RegExp; timeoutMs?: number } = {},
): ReturnType<typeof startScript> {
  return startScript(
    program.script ?? WORKER_PROGRAM,
    workerProcessEnv(setup),
    program.readyLine ?? WORKER_READY,
    program.timeoutMs,
  );
}
