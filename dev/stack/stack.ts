import { randomBytes } from 'node:crypto';
import { chown, rm } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { registerSearchAttributes } from '../../src/temporal/check-search-attributes';
import { freePort } from '../../src/os/ports';
import { DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE } from '../../src/shared/defaults/names';
import { STACK_DEFAULTS } from '../../src/shared/defaults/stack';
import type { Log } from '../../src/dev-server/go-tool';
import { resolveTemporalBinaries } from './binaries';
import { clusterOwner, postgresBinDirectory, preparePostgres, type PostgresCluster } from './postgres';
import { makePrivateDirectory, PRIVATE_DIRECTORY_MODE, writePrivateFile } from './private-files';
import { serviceProcess, type ServiceProcess } from './service-process';
import { prepareTemporal, setupTemporalSchema, type StackTemporal } from './temporal-server';
import { prepareUi } from './ui-server';
import { readStackVersions, type StackVersions } from './versions';
import { recordPids, STACK_MARKER, stopLeftovers } from './leftovers';
import { waitUntil } from './wait-until';

/** The project's root: the stack runs its workers and APIs from the built `dist/`. */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** Temporal's dynamic config: the file docker-compose.yml mounts into its Temporal, so both shapes run alike. */
export const STACK_DYNAMIC_CONFIG_FILE = path.join(PROJECT_ROOT, 'deploy', 'temporal-dynamic-config.yaml');

/** What the workers' model calls go to. */
export interface StackModel {
  baseURL: string;
  apiKey?: string;
  model: string;
}

export interface StackOptions {
  /** Where the cluster, configuration and logs go. @default `<project>/.stack` */
  directory?: string;
  /** Start from an empty folder (a new database). @default false */
  fresh?: boolean;
  model: StackModel;
  log: Log;
  /** @default 2 */
  workers?: number;
  /** @default 2 */
  apis?: number;
  /** @default true */
  ui?: boolean;
  taskQueue?: string;
  /** The API's bearer token. @default a new random one, written to `<directory>/api-token` */
  apiToken?: string;
  /** More environment for every worker (the `index` is 0-based), over the stack's. */
  workerEnv?: (index: number) => NodeJS.ProcessEnv;
  /** Stops a start under way between its steps (Ctrl-C): what was started is stopped, and the start throws. */
  signal?: AbortSignal;
  /** More environment for every API process, over the stack's. */
  apiEnv?: (index: number) => NodeJS.ProcessEnv;
  /** Temporal's dynamic config file. @default `deploy/temporal-dynamic-config.yaml`, the compose file's */
  dynamicConfigFile?: string;
  /**
   * Another program as the workers (the chaos harness's worker), started with the stack's worker environment
   * (`TEMPORAL_ADDRESS`, `AGENT_TASK_QUEUE`, ... and `workerEnv`) and ready when it prints a line matching `readyLine`.
   * @default `node dist/processes/worker.js`, ready at "Worker polling task queue…"
   */
  workerCommand?: { command: string; args: string[]; readyLine: RegExp };
  /** The built code the workers and APIs run (`tsc -p tsconfig.build.json`). @default `<project>/dist` */
  dist?: string;
}

/** A worker of the stack, with the stream port it binds. */
interface StackWorker extends ServiceProcess {
  streamUrl: string;
}

/** An API process of the stack, with its URL. */
interface StackApi extends ServiceProcess {
  url: string;
}

/** The production shape, running on this machine. */
export interface Stack {
  versions: StackVersions;
  directory: string;
  postgres: PostgresCluster;
  temporal: StackTemporal;
  /** Temporal's frontend, 127.0.0.1:<port>. */
  address: string;
  namespace: string;
  taskQueue: string;
  ui?: ServiceProcess & { url: string };
  workers: StackWorker[];
  apis: StackApi[];
  apiToken: string;
  /** Writes the current pids to `<directory>/pids.json` (after a part was restarted), for a later start's cleanup. */
  savePids(): Promise<void>;
  /**
   * Starts one more worker (`worker-<n>`, appended to `workers`), with the stack's environment and `env` over it
   * (not `workerEnv`'s): a deploy's new build (`AGENT_BUILD_ID`), more capacity. `stop()` stops it too.
   */
  addWorker(env?: NodeJS.ProcessEnv): Promise<StackWorker>;
  /** Stops everything: the APIs, the workers (they drain), the UI, Temporal, then PostgreSQL. */
  stop(): Promise<void>;
}

/**
 * Starts the production shape of `docker-compose.yml` on this machine, without Docker: PostgreSQL (a cluster of its
 * own), the Temporal server built from source at the compose file's version with its schema applied by Temporal's
 * SQL tool and SQL visibility, the `default` namespace with the agent's search attributes, the web UI, and the
 * workers and API processes from the built `dist/`. On failure, whatever was started is stopped again.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const { log } = options;
  const dist = options.dist ?? path.join(PROJECT_ROOT, 'dist');
  const directory = options.directory ?? path.join(PROJECT_ROOT, STACK_DEFAULTS.directory);
  const leftovers = await stopLeftovers(directory);
  if (leftovers.length > 0) log(`Stopped what an earlier stack in ${directory} left running: ${leftovers.join(', ')}.`);
  if (options.fresh) await rm(directory, { recursive: true, force: true });
  await makeStackDirectory(directory);
  const versions = await readStackVersions();
  log(`Stack: Temporal ${versions.temporal} on PostgreSQL, web UI ${versions.ui} (versions from docker-compose.yml).`);
  // PostgreSQL first: a missing server is named before a first build of Temporal (minutes) begins.
  await postgresBinDirectory();
  const binaries = await resolveTemporalBinaries(versions, log);

  const started: Array<{ name?: string; stop(): Promise<void>; pid(): number | undefined }> = [];
  const remember = async (part: (typeof started)[number], name: string) => {
    // Remembered before the abort check: a part that came up as Ctrl-C arrived is stopped with the rest.
    started.push(Object.assign(part, { name }));
    await recordPids(directory, Object.fromEntries(started.map((each) => [each.name, each.pid()])));
    options.signal?.throwIfAborted();
  };
  const stopAll = async () => {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
    started.length = 0;
  };
  try {
    const postgres = await preparePostgres(path.join(directory, 'postgres'), await freePort(), log);
    if (postgres.majorVersion !== versions.postgres) {
      log(
        `Note: this machine's PostgreSQL is ${postgres.majorVersion}; docker-compose.yml runs postgres:${versions.postgres}.`,
      );
    }
    await postgres.start();
    await remember(postgres, 'postgres');
    log(`PostgreSQL ${postgres.majorVersion} on ${postgres.address}.`);
    await setupTemporalSchema(binaries, postgres, log);

    const temporal = await prepareTemporal({
      binaries,
      postgres,
      directory: path.join(directory, 'temporal'),
      port: 0,
      dynamicConfigFile: options.dynamicConfigFile ?? STACK_DYNAMIC_CONFIG_FILE,
      log,
      env: { [STACK_MARKER]: directory },
    });
    await temporal.start();
    await remember(temporal, 'temporal');
    const namespace = DEFAULT_NAMESPACE;
    await ensureNamespace(temporal.address, namespace, log);
    log(`Temporal ${versions.temporal} on ${temporal.address}, namespace "${namespace}" with the search attributes.`);

    let ui: Stack['ui'];
    if (options.ui !== false) {
      ui = await prepareUi({
        binary: binaries.ui,
        directory,
        temporalAddress: temporal.address,
        port: await freePort(),
        log,
      });
      await ui.start();
      await remember(ui, 'temporal-ui');
      log(`Web UI at ${ui.url}.`);
    }

    const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    const apiToken = options.apiToken ?? randomBytes(24).toString('hex');
    await writePrivateFile(path.join(directory, 'api-token'), `${apiToken}\n`);
    const common = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: namespace,
      AGENT_TASK_QUEUE: taskQueue,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      // Not read by the package: marks the stack's processes, so a later start can find what this one left running.
      [STACK_MARKER]: directory,
    };
    const workspace = path.join(directory, 'workspace');
    await makePrivateDirectory(workspace);

    const workers: StackWorker[] = [];
    const workerProcess = async (env: NodeJS.ProcessEnv | undefined): Promise<StackWorker> => {
      const number = workers.length + 1;
      const streamPort = await freePort();
      const streamUrl = `http://127.0.0.1:${streamPort}`;
      const worker = Object.assign(
        serviceProcess(
          {
            name: `worker-${number}`,
            command: options.workerCommand?.command ?? process.execPath,
            args: options.workerCommand?.args ?? [path.join(dist, 'processes', 'worker.js')],
            cwd: PROJECT_ROOT,
            env: {
              ...common,
              OPENAI_BASE_URL: options.model.baseURL,
              OPENAI_MODEL: options.model.model,
              ...(options.model.apiKey === undefined ? {} : { OPENAI_API_KEY: options.model.apiKey }),
              AGENT_WORKSPACE: workspace,
              AGENT_STREAM_HOST: '127.0.0.1',
              AGENT_STREAM_PORT: String(streamPort),
              AGENT_STREAM_PUBLIC_URL: streamUrl,
              ...env,
            },
            logFile: path.join(directory, `worker-${number}.log`),
            readyLine: options.workerCommand?.readyLine ?? /^Worker polling task queue/,
          },
          log,
        ),
        { streamUrl },
      );
      workers.push(worker);
      return worker;
    };
    for (let index = 0; index < (options.workers ?? STACK_DEFAULTS.workers); index += 1) {
      await workerProcess(options.workerEnv?.(index));
    }
    // At once: each bundles its workflows as it starts, the longest step of a start.
    await startTogether(workers, remember);
    log(`${workers.length} workers polling "${taskQueue}".`);

    const apis: StackApi[] = [];
    for (let index = 0; index < (options.apis ?? STACK_DEFAULTS.apis); index += 1) {
      const port = await freePort();
      const api = Object.assign(
        serviceProcess(
          {
            name: `api-${index + 1}`,
            command: process.execPath,
            args: [path.join(dist, 'api', 'main.js')],
            cwd: PROJECT_ROOT,
            env: {
              ...common,
              AGENT_API_HOST: '127.0.0.1',
              AGENT_API_PORT: String(port),
              AGENT_API_TOKEN: apiToken,
              ...options.apiEnv?.(index),
            },
            logFile: path.join(directory, `api-${index + 1}.log`),
            readyLine: /^Agent API at /,
          },
          log,
        ),
        { url: `http://127.0.0.1:${port}` },
      );
      apis.push(api);
    }
    await startTogether(apis, remember);
    log(`${apis.length} API processes: ${apis.map((api) => api.url).join(', ')}.`);

    const parts = [...started];
    return {
      versions,
      directory,
      postgres,
      temporal,
      address: temporal.address,
      namespace,
      taskQueue,
      ...(ui === undefined ? {} : { ui }),
      workers,
      apis,
      apiToken,
      savePids: () => recordPids(directory, Object.fromEntries(parts.map((each) => [each.name, each.pid()]))),
      async addWorker(env) {
        const worker = await workerProcess(env);
        await worker.start();
        parts.push(Object.assign(worker, { name: worker.name }));
        await recordPids(directory, Object.fromEntries(parts.map((each) => [each.name, each.pid()])));
        return worker;
      },
      async stop() {
        for (const part of [...parts].reverse()) {
          const stopping = Date.now();
          await part.stop().catch((error: unknown) => log(`  ${part.name} did not stop cleanly: ${String(error)}`));
          log(`Stopped ${part.name} (${((Date.now() - stopping) / 1000).toFixed(1)} s).`);
        }
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * Creates the stack's folder, its user's alone (0700). As root, PostgreSQL runs as the `postgres` user, which must
 * pass through it to its cluster: then the folder is 0710 with the `postgres` group (no listing, and every file in it
 * is 0600 root's).
 */
export async function makeStackDirectory(directory: string): Promise<void> {
  const owner = await clusterOwner();
  if (owner === undefined) return makePrivateDirectory(directory);
  await makePrivateDirectory(directory, PRIVATE_DIRECTORY_MODE | 0o010);
  await chown(directory, 0, owner.gid);
}

/**
 * Starts the processes at once; each is remembered (for stopping, and in pids.json) as soon as it is up. Throws the
 * first failure once all have settled, so none is left starting unremembered.
 */
async function startTogether(
  parts: ServiceProcess[],
  remember: (part: ServiceProcess, name: string) => Promise<void>,
): Promise<void> {
  const results = await Promise.allSettled(
    parts.map(async (part) => {
      try {
        await part.start();
      } finally {
        // Also when it failed: it may still run (a timeout), and stopping a stopped process is a no-op.
        await remember(part, part.name);
      }
    }),
  );
  const failed = results.find((result) => result.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

/**
 * Registers `namespace` (one day of retention, as the compose image's auto-setup does) and the agent's search
 * attributes, then waits until the frontend serves it: a new namespace reaches every service within seconds.
 */
async function ensureNamespace(address: string, namespace: string, log: Log): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(STACK_DEFAULTS.retentionMs),
      });
      log(`Registered the "${namespace}" namespace.`);
    } catch (error) {
      if (!/already exists|AlreadyExists/i.test(String(error))) throw error;
    }
    await waitUntil(`the "${namespace}" namespace`, STACK_DEFAULTS.startTimeoutMs, log, async () => {
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return true;
      } catch {
        return false;
      }
    });
    await waitUntil('the search attributes', STACK_DEFAULTS.startTimeoutMs, log, async () => {
      try {
        await registerSearchAttributes(connection, namespace);
        return true;
      } catch (error) {
        log(`  search attributes not registered yet: ${String(error).slice(0, 200)}`);
        return false;
      }
    });
  } finally {
    await connection.close();
  }
}
