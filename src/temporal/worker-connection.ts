import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import type { TemporalConfig } from '../config';
import { securityOptions, unreachable } from './connection';

/** A worker connection, with an error that says what to do when the server is not there. */
export async function connectWorker(config: TemporalConfig): Promise<NativeConnection> {
  try {
    const options: NativeConnectionOptions = { address: config.address, ...(await securityOptions(config)) };
    return await NativeConnection.connect(options);
  } catch (error) {
    throw unreachable(config, error);
  }
}
