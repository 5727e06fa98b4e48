import { spawn } from 'node:child_process';
import { mkdir, open } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { AGENT_SEARCH_ATTRIBUTE_KEYS, DEFAULT_NAMESPACE } from '../shared';
import { searchAttributeFlags } from './search-attributes';
import { resolveTemporalCli, type Log } from './temporal-cli';

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

/**
 * Starts a dev server with the project's search attributes registered, and
 * waits until it answers. Uses the resolved Temporal CLI, else the SDK's own
 * download of it.
 */
export async function startDevServer(options: DevServerOptions): Promise<StartedDevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port || (await freePort(ip));
  const uiPort = options.uiPort || (await freePort(ip));
  if (options.dbFilename !== undefined) await mkdir(path.dirname(options.dbFilename), { recursive: true });

  const cli = await resolveTemporalCli(options.log);
  if (cli === undefined) return startWithSdkDownload({ ...options, ip, port, uiPort });

  const args = [
    'server', 'start-dev',
    '--ip', ip, '--port', String(port), '--ui-port', String(uiPort),
    '--log-level', 'warn',
    ...(options.dbFilename === undefined ? [] : ['--db-filename', options.dbFilename]),
    ...searchAttributeFlags(),
  ];
  const logHandle = options.logFile === undefined ? undefined : await open(options.logFile, 'a');
  const child = spawn(cli.path, args, {
    detached: options.detached ?? false,
    stdio: ['ignore', logHandle?.fd ?? 'ignore', logHandle?.fd ?? 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let exited: number | null | undefined;
  child.on('exit', (code) => {
    exited = code;
  });
  await logHandle?.close();

  const address = `${ip}:${port}`;
  try {
    await waitForServer(address, 60_000, () => {
      if (exited !== undefined) {
        const where = options.logFile === undefined ? stderr.trim() : `see ${options.logFile}`;
        throw new Error(`temporal server start-dev exited with code ${exited}: ${where}`);
      }
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
  const environment = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: options.ip,
      port: options.port,
      ui: true,
      uiPort: options.uiPort,
      ...(options.dbFilename === undefined ? {} : { dbFilename: options.dbFilename }),
      searchAttributes: [...AGENT_SEARCH_ATTRIBUTE_KEYS],
    },
  });
  return {
    address: `${options.ip}:${options.port}`,
    uiUrl: `http://localhost:${options.uiPort}`,
    source: "the SDK's download",
    stop: () => environment.teardown(),
  };
}

/**
 * Polls until the server answers for the default namespace. `check` runs
 * between attempts and may throw to give up early (the process died).
 */
export async function waitForServer(address: string, timeoutMs: number, check: () => void = () => {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    check();
    if (await answers(address)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`The Temporal server at ${address} did not answer within ${timeoutMs / 1000} s.`);
}

/** Whether a Temporal server answers at `address` (default namespace registered). */
export async function answers(address: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1_000 });
    await connection.workflowService.describeNamespace({ namespace: DEFAULT_NAMESPACE });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close();
  }
}

/** A port nothing listens on right now. */
export function freePort(ip = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, ip, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether nothing listens on `port` of 127.0.0.1 right now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** SIGTERM, then SIGKILL if the process is still there after five seconds. */
export async function stopProcess(pid: number | undefined): Promise<void> {
  if (pid === undefined || !isAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < 5_000; waited += 100) {
    if (!isAlive(pid)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
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
