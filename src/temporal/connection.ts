import { readFile } from 'node:fs/promises';
import { Connection, type TLSConfig } from '@temporalio/client';
import type { TemporalConfig } from '../config';

/*
 * Client connections only: this module is part of the client entry (`agent-runner`), which must not load
 * `@temporalio/worker` and its native core bridge. The worker's connection is in `worker-connection.ts`.
 */

/** TLS and API-key options shared by client and worker connections. */
export async function securityOptions(config: TemporalConfig): Promise<{ tls?: TLSConfig | boolean; apiKey?: string }> {
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

/** The error for a server that did not answer: where it was looked for, and how to start one. */
export function unreachable(config: TemporalConfig, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(
    `Cannot reach the Temporal server at ${config.address}: ${reason}. ` +
      'Start one with `npm run server` (or `temporal server start-dev`), or set TEMPORAL_ADDRESS to a running server.',
    { cause: error },
  );
}
