import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '../../dev/stack/stack';
import { PROJECT_ROOT } from '../../dev/stack/stack';
import { serviceProcess, type ServiceProcess } from '../../dev/stack/service-process';
import { startDevServer } from '../../src/dev-server/dev-server';
import { freePort } from '../../src/os/ports';
import { TEMPORAL_DATABASES } from '../../dev/stack/temporal-server';

/** A Temporal shape the scale bench drives: its server processes and two workers, started as needed. */
export interface ShapeUnderTest {
  /** `stack` (Temporal on PostgreSQL) or `dev` (`temporal server start-dev`). */
  name: 'stack' | 'dev';
  address: string;
  taskQueue: string;
  /** Two workers (`node dist/processes/worker.js`); {@link useWorkers} starts and stops them. */
  workers: ServiceProcess[];
  /** The server's processes whose CPU the bench reads: Temporal, and PostgreSQL's postmaster. */
  serverPids(): { temporal?: number; postgres?: number };
  /** Bytes on disk of Temporal's databases (the stack only). */
  databaseBytes?(): Promise<{ store: number; visibility: number }>;
  stop(): Promise<void>;
}

/** The scripted model the workers call. */
export interface ShapeModel {
  baseURL: string;
  model: string;
}

/** Exactly `count` of the shape's workers running: the first ones started, the others drained and stopped. */
export async function useWorkers(shape: ShapeUnderTest, count: number): Promise<void> {
  for (const [index, worker] of shape.workers.entries()) {
    if (index < count) await worker.start();
    else await worker.stop();
  }
}

/**
 * The production shape (`startStack`, fresh, in a temporary folder), without the web UI and the API processes:
 * the bench's client talks to Temporal directly, so what is measured is Temporal, PostgreSQL and the workers.
 * `transferProcessorMaxPollRPS`, when given, is added to the compose file's dynamic config.
 */
export async function stackShape(
  model: ShapeModel,
  taskQueue: string,
  log: (line: string) => void,
  transferProcessorMaxPollRPS?: number,
): Promise<ShapeUnderTest> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'agent-runner-scale-stack-'));
  // PostgreSQL runs as its own user (the stack runs initdb through runuser as root): it must reach its folder.
  await chmod(directory, 0o755);
  let dynamicConfigFile: string | undefined;
  if (transferProcessorMaxPollRPS !== undefined) {
    const compose = await readFile(path.join(PROJECT_ROOT, 'deploy', 'temporal-dynamic-config.yaml'), 'utf8');
    dynamicConfigFile = path.join(directory, 'dynamic-config.yaml');
    await writeFile(
      dynamicConfigFile,
      `${compose}\nhistory.transferProcessorMaxPollRPS:\n  - value: ${transferProcessorMaxPollRPS}\n`,
    );
  }
  const stack = await startStack({
    directory: path.join(directory, 'stack'),
    fresh: true,
    model: { baseURL: model.baseURL, apiKey: 'unused', model: model.model },
    log,
    workers: 2,
    apis: 0,
    ui: false,
    taskQueue,
    ...(dynamicConfigFile === undefined ? {} : { dynamicConfigFile }),
  });
  const bytes = async (database: string) =>
    Number((await stack.postgres.sql(`SELECT pg_database_size('${database}')`)).trim());
  return {
    name: 'stack',
    address: stack.address,
    taskQueue,
    workers: stack.workers,
    serverPids: () => ({ temporal: stack.temporal.pid(), postgres: stack.postgres.pid() }),
    databaseBytes: async () => ({
      store: await bytes(TEMPORAL_DATABASES.store),
      visibility: await bytes(TEMPORAL_DATABASES.visibility),
    }),
    async stop() {
      await stack.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The dev server as the project starts it (`startDevServer`: in memory, with the project's dynamic config) and two
 * workers started exactly as the stack starts its own (the built worker, the same environment).
 */
export async function devShape(
  model: ShapeModel,
  taskQueue: string,
  log: (line: string) => void,
): Promise<ShapeUnderTest> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'agent-runner-scale-dev-'));
  const dev = await startDevServer({ port: 0, uiPort: 0, log });
  const workspace = path.join(directory, 'workspace');
  await mkdir(workspace, { recursive: true });
  const workers: ServiceProcess[] = [];
  for (let index = 0; index < 2; index += 1) {
    const streamPort = await freePort();
    workers.push(
      serviceProcess(
        {
          name: `worker-${index + 1}`,
          command: process.execPath,
          args: [path.join(PROJECT_ROOT, 'dist', 'processes', 'worker.js')],
          cwd: PROJECT_ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            TEMPORAL_ADDRESS: dev.address,
            TEMPORAL_NAMESPACE: 'default',
            AGENT_TASK_QUEUE: taskQueue,
            LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
            OPENAI_BASE_URL: model.baseURL,
            OPENAI_MODEL: model.model,
            OPENAI_API_KEY: 'unused',
            AGENT_WORKSPACE: workspace,
            AGENT_STREAM_HOST: '127.0.0.1',
            AGENT_STREAM_PORT: String(streamPort),
            AGENT_STREAM_PUBLIC_URL: `http://127.0.0.1:${streamPort}`,
          },
          logFile: path.join(directory, `worker-${index + 1}.log`),
          readyLine: /^Worker polling task queue/,
        },
        log,
      ),
    );
  }
  return {
    name: 'dev',
    address: dev.address,
    taskQueue,
    workers,
    serverPids: () => ({ ...(dev.pid === undefined ? {} : { temporal: dev.pid }) }),
    async stop() {
      for (const worker of workers) await worker.stop();
      await dev.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
