import { NativeConnection } from '@temporalio/worker';
import type { TemporalConfig } from '../config';
import { connectionOptions, unreachable } from './connection';

/** A worker connection, with an error that says what to do when the server is not there. */
export async function connectWorker(config: TemporalConfig): Promise<NativeConnection> {
  const options = connectionOptions(config);
  try {
    return await NativeConnection.connect(options);
  } catch (error) {
    throw unreachable(config, error);
  }
}
