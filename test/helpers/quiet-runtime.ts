import { DefaultLogger, Runtime } from '@temporalio/worker';

/**
 * Keeps the SDK's worker logs to errors. The runtime is one per process and
 * jest may run several test files in one process, so a second install is
 * expected and ignored.
 */
export function installQuietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch (error) {
    if (!(error instanceof Error) || !/already been (installed|instantiated)/.test(error.message)) throw error;
  }
}
