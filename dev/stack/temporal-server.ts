import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { freeLowPort } from './ports';
import { STACK_DEFAULTS } from '../../src/shared/defaults/stack';
import { stopChild } from '../../src/os/stop-child';
import type { Log } from '../../src/dev-server/go-tool';
import type { TemporalBinaries } from './binaries';
import type { PostgresCluster } from './postgres';
import { makePrivateDirectory, openPrivateLog, writePrivateFile } from './private-files';
import { serviceEnvironment } from './service-environment';
import { waitUntil } from './wait-until';

const run = promisify(execFile);

/** Temporal's SQL plugin for PostgreSQL 12 and newer (the compose file's `DB`). */
export const TEMPORAL_SQL_PLUGIN = 'postgres12';

/** The databases Temporal uses on the cluster: its store and its SQL visibility store. */
export const TEMPORAL_DATABASES = { store: 'temporal', visibility: 'temporal_visibility' } as const;

/** How often a start picks other internal ports after one was taken before the server bound it. */
const PORT_ATTEMPTS = 3;

/** The line the stack writes to the server's log before each start. */
const START_MARKER = '--- temporal-server start, ';

/** Free ports for every service but the frontend, whose address the stack's users keep. */
async function internalPorts() {
  return {
    frontendHttp: await freeLowPort(),
    frontendMembership: await freeLowPort(),
    history: await freeLowPort(),
    historyMembership: await freeLowPort(),
    matching: await freeLowPort(),
    matchingMembership: await freeLowPort(),
    worker: await freeLowPort(),
    workerMembership: await freeLowPort(),
  };
}

/** The last 20 lines the server wrote since the stack last started it. */
async function lastStartLines(logFile: string): Promise<string> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  return text.slice(text.lastIndexOf(START_MARKER)).split('\n').slice(1).filter(Boolean).slice(-20).join('\n');
}

/** A Temporal server (all four services in one process) on the stack's PostgreSQL. */
export interface StackTemporal {
  /** The frontend's gRPC address, 127.0.0.1:<port>. */
  address: string;
  start(): Promise<void>;
  /** SIGTERM, then SIGKILL after the grace time. */
  stop(): Promise<void>;
  kill(): Promise<void>;
  pid(): number | undefined;
  logFile: string;
}

/**
 * Creates Temporal's two databases and brings their schema to this version with Temporal's SQL tool, as the
 * compose file's `auto-setup` image does at start: safe to run on every start (it only applies what is missing).
 */
export async function setupTemporalSchema(
  binaries: TemporalBinaries,
  postgres: PostgresCluster,
  log: Log,
): Promise<void> {
  for (const [kind, database] of Object.entries(TEMPORAL_DATABASES)) {
    const folder = kind === 'store' ? 'temporal' : 'visibility';
    const base = [
      '--plugin',
      TEMPORAL_SQL_PLUGIN,
      '--ep',
      '127.0.0.1',
      '-p',
      String(postgres.port),
      '-u',
      postgres.user,
      '--db',
      database,
    ];
    const exists = await postgres.sql(`SELECT 1 FROM pg_database WHERE datname = '${database}'`);
    if (exists !== '1') {
      log(`Creating the ${database} database and its schema with temporal-sql-tool.`);
      await sqlTool(binaries.sqlTool, [...base, 'create-database'], postgres.password);
      await sqlTool(binaries.sqlTool, [...base, 'setup-schema', '-v', '0.0'], postgres.password);
    }
    await sqlTool(
      binaries.sqlTool,
      [...base, 'update-schema', '-d', path.join(binaries.schema, folder, 'versioned')],
      postgres.password,
    );
  }
}

/** Runs temporal-sql-tool with the password in its environment (`SQL_PASSWORD`), not on its command line. */
async function sqlTool(tool: string, args: string[], password: string): Promise<void> {
  try {
    await run(tool, args, { maxBuffer: 8 << 20, env: serviceEnvironment({ SQL_PASSWORD: password }) });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    const tail = `${stdout ?? ''}${stderr ?? ''}`.split('\n').slice(-15).join('\n');
    throw new Error(`temporal-sql-tool ${args.slice(-3).join(' ')} failed:\n${tail}`, { cause: error });
  }
}

/** Writes the server's configuration under `directory` and returns the server, not started. */
export async function prepareTemporal(options: {
  binaries: TemporalBinaries;
  postgres: PostgresCluster;
  directory: string;
  /** The frontend's gRPC port; 0 picks a free one. */
  port: number;
  /** The dynamic config file (the compose file's `deploy/temporal-dynamic-config.yaml`). */
  dynamicConfigFile: string;
  log: Log;
  /** More environment for the server, over the allow-listed part of this process's (the stack's marker). */
  env?: NodeJS.ProcessEnv;
}): Promise<StackTemporal> {
  const { binaries, directory, log } = options;
  const configDirectory = path.join(directory, 'config');
  await makePrivateDirectory(configDirectory);
  const port = options.port || (await freeLowPort());
  let ports = { frontend: port, ...(await internalPorts()) };
  // It holds PostgreSQL's password.
  const writeConfig = () =>
    writePrivateFile(
      path.join(configDirectory, 'stack.yaml'),
      serverConfig(options.postgres, ports, options.dynamicConfigFile),
    );
  await writeConfig();
  const logFile = path.join(directory, 'temporal.log');
  const address = `127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const startOnce = async (): Promise<number | undefined> => {
    const out = await openPrivateLog(logFile);
    await out.write(`${START_MARKER}${new Date().toISOString()} ---\n`);
    child = spawn(
      binaries.server,
      ['--root', directory, '--config', 'config', '--env', 'stack', '--allow-no-auth', 'start'],
      {
        stdio: ['ignore', out.fd, out.fd],
        env: serviceEnvironment(options.env),
        detached: true,
      },
    );
    await out.close();
    const started = child;
    let exitCode: number | undefined;
    await waitUntil(`the Temporal server on ${address}`, STACK_DEFAULTS.startTimeoutMs, log, async () => {
      if (started.exitCode === null) return answersSystem(address);
      exitCode = started.exitCode;
      return true;
    });
    return exitCode;
  };
  const server: StackTemporal = {
    address,
    logFile,
    async start() {
      for (let attempt = 1; ; attempt += 1) {
        const exitCode = await startOnce();
        if (exitCode === undefined) return;
        const lastLines = await lastStartLines(logFile);
        // Another process may take an internal port between its pick and the server's bind: pick others.
        if (attempt < PORT_ATTEMPTS && /address already in use/i.test(lastLines)) {
          log(`temporal-server found one of its ports taken; starting it again on others (attempt ${attempt + 1}).`);
          ports = { frontend: port, ...(await internalPorts()) };
          await writeConfig();
          continue;
        }
        throw new Error(`temporal-server exited (${exitCode}); see ${logFile}. Its last lines:\n${lastLines}`);
      }
    },
    stop: async () => {
      if (child !== undefined) await stopChild(child, STACK_DEFAULTS.stopGraceMs);
    },
    async kill() {
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    pid: () => (child?.exitCode === null && child.signalCode === null ? child.pid : undefined),
  };
  return server;
}

/** Whether the frontend answers (the system namespace; `default` may not exist yet). */
async function answersSystem(address: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1_000 });
    await connection.workflowService.getSystemInfo({});
    await connection.workflowService.describeNamespace({ namespace: 'temporal-system' });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close();
  }
}

function serverConfig(
  postgres: PostgresCluster,
  ports: Record<
    | 'frontend'
    | 'frontendHttp'
    | 'frontendMembership'
    | 'history'
    | 'historyMembership'
    | 'matching'
    | 'matchingMembership'
    | 'worker'
    | 'workerMembership',
    number
  >,
  dynamicConfigFile: string,
): string {
  const datastore = (database: string, maxConns: number) => `      sql:
        pluginName: ${TEMPORAL_SQL_PLUGIN}
        databaseName: ${database}
        connectAddr: "${postgres.address}"
        connectProtocol: tcp
        user: ${postgres.user}
        password: "${postgres.password}"
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const service = (grpc: number, membership: number, http?: number) => `    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnIP: 127.0.0.1${http === undefined ? '' : `\n      httpPort: ${http}`}`;
  return `# Written by npm run stack: the compose file's Temporal (auto-setup) on the stack's PostgreSQL.
log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: ${STACK_DEFAULTS.numHistoryShards}
  datastores:
    default:
${datastore(TEMPORAL_DATABASES.store, 20)}
    visibility:
${datastore(TEMPORAL_DATABASES.visibility, 10)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
  frontend:
${service(ports.frontend, ports.frontendMembership, ports.frontendHttp)}
  history:
${service(ports.history, ports.historyMembership)}
  matching:
${service(ports.matching, ports.matchingMembership)}
  worker:
${service(ports.worker, ports.workerMembership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:${ports.frontend}
      httpAddress: 127.0.0.1:${ports.frontendHttp}
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${JSON.stringify(dynamicConfigFile)}
  pollInterval: 10s
`;
}
