import { Connection } from '@temporalio/client';
import { toClientOptions } from '@temporalio/envconfig';
import type { TemporalConfig } from '../config';
import { describeTemporalSource } from '../config/temporal';

/*
 * Client connections only: this module is part of the client entry (`agent-runner`), which must not load
 * `@temporalio/worker` and its native core bridge. The worker's connection is in `worker-connection.ts`.
 */

type EnvconfigOptions = ReturnType<typeof toClientOptions>['connectionOptions'];

/** What both `Connection.connect` and `NativeConnection.connect` take from a {@link TemporalConfig}. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: NonNullable<EnvconfigOptions['tls']>;
  apiKey?: string;
  metadata?: Record<string, string>;
}

/**
 * The connection options of `config`, as envconfig builds them (TLS files read here): an API key turns TLS on, a
 * `tls` block turns it on unless it says `disabled`. A TLS file that cannot be read fails with its path.
 */
export function connectionOptions(config: TemporalConfig): TemporalConnectionOptions {
  let options: EnvconfigOptions;
  try {
    options = toClientOptions({
      address: config.address,
      ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
      ...(config.tls === undefined ? {} : { tls: config.tls }),
      ...(config.grpcMetadata === undefined ? {} : { grpcMeta: config.grpcMetadata }),
    }).connectionOptions;
  } catch (error) {
    throw new Error(
      `Cannot read the TLS files of the Temporal connection (${describeTemporalSource(config)}): ${messageOf(error)}`,
      { cause: error },
    );
  }
  return {
    address: config.address,
    ...(options.tls === undefined || options.tls === null ? {} : { tls: options.tls }),
    ...(typeof options.apiKey === 'string' ? { apiKey: options.apiKey } : {}),
    ...(config.grpcMetadata === undefined ? {} : { metadata: config.grpcMetadata }),
  };
}

/** A client connection, with an error that says what to do when the server is not there. */
export async function connectClient(config: TemporalConfig): Promise<Connection> {
  const options = connectionOptions(config);
  try {
    return await Connection.connect(options);
  } catch (error) {
    throw unreachable(config, error);
  }
}

/** The error for a server that did not answer: where it was looked for, and how to start one. */
export function unreachable(config: TemporalConfig, error: unknown): Error {
  return new Error(
    `Cannot reach the Temporal server at ${config.address} (${describeTemporalSource(config)}): ${messageOf(error)}. ` +
      'Start one with `npm run server` (or `temporal server start-dev`), or point TEMPORAL_ADDRESS ' +
      '(or a profile: TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) at a running server.',
    { cause: error },
  );
}

function messageOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error);
}
