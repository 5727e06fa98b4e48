import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import type { TemporalConfig } from '../config';
import { loadLocalServerConfig, type LocalServerConfig } from '../config/local-server';
import { describeTemporalSource } from '../config/temporal';
import { LOCAL_SERVER_DEFAULTS } from '../shared/defaults/local-server';
import { registerSearchAttributes } from '../temporal/check-search-attributes';
import { connectClient } from '../temporal/connection';
import { answers, isAlive, startDevServer, stopProcess } from './dev-server';
import { freePort, portIsFree } from '../os/ports';
import type { Log } from './temporal-cli';
import { connectWorker } from '../temporal/worker-connection';

/** Where the demo's persistent dev server keeps its SQLite file, log and process record. */
const LOCAL_SERVER_DIRECTORY = path.resolve('.temporal');
const RECORD_FILE = path.join(LOCAL_SERVER_DIRECTORY, 'server.json');

/** A Temporal server the demo can use. */
export interface LocalServer {
  address: string;
  /** The web UI, when known. */
  uiUrl?: string;
  /** How it was found or started, for the progress line. */
  description: string;
  /** Present when the server lives only as long as this process (the SDK's download). */
  stop?: () => Promise<void>;
  /** The connection settings of a server named by TEMPORAL_ADDRESS or a profile (TLS, API key, headers). */
  temporal?: TemporalConfig;
}

interface ServerRecord {
  pid: number;
  address: string;
  uiUrl: string;
}

/**
 * A server for the demo: the one `TEMPORAL_ADDRESS` or a profile names, else the dev server an earlier run left
 * running, else a new one in the background on SQLite, so runs and the web UI outlive the demo.
 */
export async function ensureLocalServer(
  log: Log,
  configured: LocalServerConfig = loadLocalServerConfig(),
): Promise<LocalServer> {
  if (configured.address !== undefined) {
    const temporal = configured.temporal;
    return {
      address: configured.address,
      ...(configured.uiUrl === undefined ? {} : { uiUrl: configured.uiUrl }),
      description:
        temporal?.source === undefined ? `TEMPORAL_ADDRESS=${configured.address}` : describeTemporalSource(temporal),
      ...(temporal === undefined ? {} : { temporal }),
    };
  }
  const record = await readRecord();
  if (record !== undefined && isAlive(record.pid) && (await answers(record.address))) {
    return {
      address: record.address,
      uiUrl: record.uiUrl,
      description: `the dev server started earlier (pid ${record.pid})`,
    };
  }
  const preferred = `127.0.0.1:${LOCAL_SERVER_DEFAULTS.port}`;
  if (await answers(preferred)) {
    return {
      address: preferred,
      uiUrl: `http://localhost:${LOCAL_SERVER_DEFAULTS.uiPort}`,
      description: `the Temporal server already running at ${preferred}`,
    };
  }

  log(
    'Starting a Temporal dev server in the background (SQLite in .temporal/, so runs survive a restart; its log is .temporal/server.log)...',
  );
  const port = (await portIsFree(LOCAL_SERVER_DEFAULTS.port)) ? LOCAL_SERVER_DEFAULTS.port : 0;
  const uiPort = (await portIsFree(LOCAL_SERVER_DEFAULTS.uiPort)) ? LOCAL_SERVER_DEFAULTS.uiPort : await freePort();
  const server = await startDevServer({
    port,
    uiPort,
    dbFilename: path.join(LOCAL_SERVER_DIRECTORY, 'dev.sqlite'),
    detached: true,
    logFile: path.join(LOCAL_SERVER_DIRECTORY, 'server.log'),
    log,
  });
  if (server.pid === undefined) {
    return {
      address: server.address,
      uiUrl: server.uiUrl,
      description: `a dev server from ${server.source}`,
      stop: server.stop,
    };
  }
  await writeFile(
    RECORD_FILE,
    JSON.stringify({ pid: server.pid, address: server.address, uiUrl: server.uiUrl }, null, 2),
  );
  return {
    address: server.address,
    uiUrl: server.uiUrl,
    description: `a new dev server (pid ${server.pid}, CLI ${server.source})`,
  };
}

/** Stops the background dev server `ensureLocalServer` started. Its runs stay in `.temporal/dev.sqlite`. */
export async function stopLocalServer(): Promise<string> {
  const record = await readRecord();
  if (record === undefined || !isAlive(record.pid)) {
    await rm(RECORD_FILE, { force: true });
    return 'No dev server started by this project is running.';
  }
  await stopProcess(record.pid);
  await rm(RECORD_FILE, { force: true });
  return `Stopped the dev server (pid ${record.pid}). Its runs are kept in .temporal/dev.sqlite.`;
}

async function readRecord(): Promise<ServerRecord | undefined> {
  try {
    return JSON.parse(await readFile(RECORD_FILE, 'utf8')) as ServerRecord;
  } catch {
    return undefined;
  }
}

/** A client and a worker connection to a local server, for the demo and `npm start`. */
export interface LocalConnections {
  client: Client;
  clientConnection: Connection;
  workerConnection: NativeConnection;
}

/**
 * Connects to `server` and registers the search attributes its namespace
 * lacks: a server this project did not start may not have them, and runs
 * would stall on their first update. `dataConverter` is the client's (the payload codec).
 */
export async function connectToLocalServer(
  server: LocalServer,
  namespace: string,
  log: Log,
  dataConverter?: DataConverter,
): Promise<LocalConnections> {
  const clientConnection =
    server.temporal === undefined
      ? await Connection.connect({ address: server.address })
      : await connectClient(server.temporal);
  const registered = await registerSearchAttributes(clientConnection, namespace);
  if (registered.length > 0)
    log(`Registered the search attributes ${registered.join(', ')} on namespace "${namespace}".`);
  const workerConnection =
    server.temporal === undefined
      ? await NativeConnection.connect({ address: server.address })
      : await connectWorker(server.temporal);
  const client = new Client({
    connection: clientConnection,
    namespace,
    ...(dataConverter === undefined ? {} : { dataConverter }),
  });
  return { client, clientConnection, workerConnection };
}
