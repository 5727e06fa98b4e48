import { readFile } from 'node:fs/promises';
import { Connection, type TLSConfig } from '@temporalio/client';
import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import type { TemporalConfig } from '../config';

/** TLS and API-key options shared by client and worker connections. */
async function securityOptions(config: TemporalConfig): Promise<{ tls?: TLSConfig | boolean; apiKey?: string }> {
  if (config.tls !== undefined) {
    const [crt, key] = await Promise.all([readFile(config.tls.certPath), readFile(config.tls.keyPath)]);
    return { tls: { clientCertPair: { crt, key } }, ...(config.apiKey ? { apiKey: config.apiKey } : {}) };
  }
  if (config.apiKey !== undefined) return { tls: true, apiKey: config.apiKey };
  return {};
}

/** A client connection, with an error that says what to do when the server is not there. */
export async function connectClient(config: TemporalConfig): Promise<Connection> {
  try {
    return await Connection.connect({ address: config.address, ...(await securityOptions(config)) });
  } catch (error) {
    throw unreachable(config, error);
  }
}

/** A worker connection, with an error that says what to do when the server is not there. */
export async function connectWorker(config: TemporalConfig): Promise<NativeConnection> {
  try {
    const options: NativeConnectionOptions = { address: config.address, ...(await securityOptions(config)) };
    return await NativeConnection.connect(options);
  } catch (error) {
    throw unreachable(config, error);
  }
}

function unreachable(config: TemporalConfig, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(
    `Cannot reach the Temporal server at ${config.address}: ${reason}. ` +
      'Start one with `npm run server` (or `temporal server start-dev`), or set TEMPORAL_ADDRESS to a running server.',
    { cause: error },
  );
}
