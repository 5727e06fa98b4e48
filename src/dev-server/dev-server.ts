import { spawn } from 'node:child_process';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { AGENT_SEARCH_ATTRIBUTE_KEYS } from '../workflow-contract/search-attributes';
import { DEFAULT_NAMESPACE } from '../shared/defaults/names';
import { LOCAL_SERVER_DEFAULTS } from '../shared/defaults/local-server';
import { formatSeconds } from '../shared/duration';
import { freePort } from '../os/ports';
import { lastLines, readLogTail } from './log-tail';
import { searchAttributeFlags } from './search-attribute-flags';
import { resolveTemporalCli, type Log } from './temporal-cli';
import { ServerExitedError } from './server-exited-error';

/** How to start `temporal server start-dev`. */
export interface DevServerOptions {
  ip?: string;
  /** gRPC port; 0 picks a free one. */
  port: number;
  /** Web UI port; 0 picks a free one. */
  uiPort: number;
  /** SQLite file: runs survive a restart. Absent: in memory. */
  dbFilename?: string;
  /** Keep running after this process exits (the demo's server); its output goes to `logFile`. */
  detached?: boolean;
  logFile?: string;
  log: Log;
  /** How long the server may take to answer. @default 5 minutes (`LOCAL_SERVER_DEFAULTS.startTimeoutMs`) */
  startTimeoutMs?: number;
  /**
   * Start the server exactly as `temporal server start-dev` does, without the project's dynamic config
   * (`LOCAL_SERVER_DEFAULTS.dynamicConfig`): the bench's stock anchor. @default false
   */
  stock?: boolean;
  /**
   * Register the agent's search attributes at start. `false` starts a namespace as a plain
   * `temporal server start-dev` has it, without them: what a worker must refuse. @default true
   */
  searchAttributes?: boolean;
  /** The web UI's remote codec endpoint (`--ui-codec-endpoint`), for example an `agent-runner codec-server`. @default none */
  uiCodecEndpoint?: string;
  /** Serve the server's Prometheus metrics (its `action` counter among them) at `http://<ip>:<port>/metrics`. @default none */
  metricsPort?: number;
  /** Namespaces to create at start besides `default`, each with the agent's search attributes. @default none */
  namespaces?: readonly string[];
}

/** A dev server this process started. */
export interface StartedDevServer {
  address: string;
  uiUrl: string;
  /** Process id when the project's own CLI runs it (absent for the SDK's download). */
  pid?: number;
  /** How the CLI was found, for the progress line. */
  source: string;
  stop(): Promise<void>;
}

/** The `temporal` arguments that start a dev server as `options` say. */
export function devServerArgs(
  options: Pick<
    DevServerOptions,
    'dbFilename' | 'stock' | 'searchAttributes' | 'uiCodecEndpoint' | 'metricsPort' | 'namespaces'
  > & {
    ip: string;
    port: number;
    uiPort: number;
  },
): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    options.ip,
    '--port',
    String(options.port),
    '--ui-port',
    String(options.uiPort),
    '--log-level',
    'warn',
    ...(options.dbFilename === undefined ? [] : ['--db-filename', options.dbFilename]),
    ...(options.uiCodecEndpoint === undefined ? [] : ['--ui-codec-endpoint', options.uiCodecEndpoint]),
    ...(options.metricsPort === undefined ? [] : ['--metrics-port', String(options.metricsPort)]),
    ...(options.namespaces ?? []).flatMap((namespace) => ['--namespace', namespace]),
    ...(options.searchAttributes === false ? [] : searchAttributeFlags()),
    ...(options.stock ? [] : dynamicConfigFlags(LOCAL_SERVER_DEFAULTS.dynamicConfig)),
  ];
}

/** `--dynamic-config-value key=value` for each entry. */
function dynamicConfigFlags(config: Readonly<Record<string, number | boolean | string>>): string[] {
  return Object.entries(config).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}

/**
 * Starts a dev server with the project's search attributes and dynamic config and waits until it answers, with the
 * resolved Temporal CLI, else the SDK's own download.
 */
export async function startDevServer(options: DevServerOptions): Promise<StartedDevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port || (await freePort(ip));
  const uiPort = options.uiPort || (await freePort(ip));
  if (options.dbFilename !== undefined) await mkdir(path.dirname(options.dbFilename), { recursive: true });
  if (options.logFile !== undefined) await mkdir(path.dirname(options.logFile), { recursive: true });

  const cli = await resolveTemporalCli(options.log);
  if (cli === undefined) return startWithSdkDownload({ ...options, ip, port, uiPort });

  const args = devServerArgs({ ...options, ip, port, uiPort });
  const logHandle = options.logFile === undefined ? undefined : await open(options.logFile, 'a');
  // The log is appended to across starts: a header tells this start's lines from an earlier one's.
  await logHandle?.write(
    `--- ${cli.path} ${args.slice(0, 2).join(' ')} on ${ip}:${port}, ${new Date().toISOString()} ---\n`,
  );
  const child = spawn(cli.path, args, {
    detached: options.detached ?? false,
    stdio: ['ignore', logHandle?.fd ?? 'pipe', logHandle?.fd ?? 'pipe'],
  });
  // Without a log file the last of the server's output is kept here, for the error should it not come up.
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null | undefined;
  child.on('exit', (code) => {
    exited = code;
  });
  await logHandle?.close();

  const address = `${ip}:${port}`;
  const serverLog: ServerLog = options.logFile === undefined ? { output: () => output } : { file: options.logFile };
  try {
    await waitForServer(address, options.startTimeoutMs ?? LOCAL_SERVER_DEFAULTS.startTimeoutMs, {
      log: options.log,
      serverLog,
      check: () => {
        if (exited !== undefined) throw new ServerExitedError(exited);
      },
    });
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  if (options.detached) child.unref();
  return {
    address,
    uiUrl: `http://localhost:${uiPort}`,
    pid: child.pid,
    source: `${cli.path} (${cli.source})`,
    stop: () => stopProcess(child.pid),
  };
}

async function startWithSdkDownload(options: DevServerOptions & { ip: string }): Promise<StartedDevServer> {
  options.log('No Temporal CLI and no Go toolchain found: using the Temporal SDK to download the CLI.');
  // Loaded here only: @temporalio/testing is an optional peer dependency, needed for this fallback alone.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const environment = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: options.ip,
      port: options.port,
      ui: true,
      uiPort: options.uiPort,
      ...(options.dbFilename === undefined ? {} : { dbFilename: options.dbFilename }),
      searchAttributes: options.searchAttributes === false ? [] : [...AGENT_SEARCH_ATTRIBUTE_KEYS],
      extraArgs: [
        ...(options.stock ? [] : dynamicConfigFlags(LOCAL_SERVER_DEFAULTS.dynamicConfig)),
        ...(options.uiCodecEndpoint === undefined ? [] : ['--ui-codec-endpoint', options.uiCodecEndpoint]),
        ...(options.metricsPort === undefined ? [] : ['--metrics-port', String(options.metricsPort)]),
        ...(options.namespaces ?? []).flatMap((namespace) => ['--namespace', namespace]),
      ],
    },
  });
  return {
    address: `${options.ip}:${options.port}`,
    uiUrl: `http://localhost:${options.uiPort}`,
    source: "the SDK's download",
    stop: () => environment.teardown(),
  };
}

/** Where a server's output goes: a file (a detached server), or a buffer of its last output. */
type ServerLog = { file: string } | { output: () => string };

/** What {@link waitForServer} does besides polling. */
export interface ServerWaitOptions {
  /** Runs between attempts; throws {@link ServerExitedError} (or anything) to give up early. */
  check?: () => void;
  /** Receives a line saying what the wait is for, every `progressEveryMs`. */
  log?: Log;
  /** @default 10 000 */
  progressEveryMs?: number;
  /** The server's output: its last lines are part of the error when the wait fails. */
  serverLog?: ServerLog;
}

/**
 * Polls until the server answers, saying every ten seconds what it waits for; a timeout or a dead process throws with
 * the log's last lines (a port in use, a locked database).
 */
export async function waitForServer(
  address: string,
  timeoutMs: number,
  options: ServerWaitOptions = {},
): Promise<void> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  const progressEveryMs = options.progressEveryMs ?? LOCAL_SERVER_DEFAULTS.progressEveryMs;
  let nextProgress = started + progressEveryMs;
  try {
    while (Date.now() < deadline) {
      options.check?.();
      if (await answers(address)) return;
      if (options.log !== undefined && Date.now() >= nextProgress) {
        const waited = Math.round((Date.now() - started) / 1000);
        options.log(
          `Waiting for the Temporal server at ${address} to answer (${waited} s; a first start after a build can take a minute)...`,
        );
        nextProgress += progressEveryMs;
      }
      await new Promise((resolve) => setTimeout(resolve, LOCAL_SERVER_DEFAULTS.pollMs));
    }
  } catch (error) {
    if (!ServerExitedError.isInstance(error)) throw error;
    throw new Error(`${error.message}${await describeServerLog(options.serverLog)}`, { cause: error });
  }
  throw new Error(
    `The Temporal server at ${address} did not answer within ${formatSeconds(timeoutMs)}.${await describeServerLog(options.serverLog)}`,
  );
}

/** The tail of the server's log as the end of an error message, or nothing when there is none to show. */
async function describeServerLog(serverLog: ServerLog | undefined): Promise<string> {
  if (serverLog === undefined) return '';
  const tail =
    'file' in serverLog
      ? await readLogTail(serverLog.file, LOCAL_SERVER_DEFAULTS.logTailLines)
      : lastLines(serverLog.output(), LOCAL_SERVER_DEFAULTS.logTailLines);
  const source = 'file' in serverLog ? `its log, ${serverLog.file}` : 'its output';
  if (tail === '') return ` Nothing in ${source}.`;
  return `\nThe last lines of ${source}:\n${tail}`;
}

/** Whether a Temporal server answers at `address` (default namespace registered). */
export async function answers(address: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: LOCAL_SERVER_DEFAULTS.connectTimeoutMs });
    await connection.workflowService.describeNamespace({ namespace: DEFAULT_NAMESPACE });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close();
  }
}

/** SIGTERM, then SIGKILL if the process is still there after five seconds. */
export async function stopProcess(pid: number | undefined): Promise<void> {
  if (pid === undefined || !isAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < LOCAL_SERVER_DEFAULTS.stopGraceMs; waited += LOCAL_SERVER_DEFAULTS.stopPollMs) {
    if (!isAlive(pid)) return;
    await new Promise((resolve) => setTimeout(resolve, LOCAL_SERVER_DEFAULTS.stopPollMs));
  }
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
