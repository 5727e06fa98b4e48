import { Runtime, type Worker } from '@temporalio/worker';
import { requireSearchAttributes } from '../../temporal/check-search-attributes';

/**
 * Runs the worker while checking its namespace has the agent's search attributes (without them every run stalls),
 * shutting it down with `SearchAttributesMissingError` if not; it starts first so `run()` then `shutdown()` still works.
 */
export async function runIfSearchAttributes(worker: Worker, next: (worker: Worker) => Promise<void>): Promise<void> {
  const connection = worker.connection;
  if (connection === undefined) return next(worker);
  const running = next(worker);
  const refusal = await requireSearchAttributes(connection, worker.options.namespace, (message) =>
    Runtime.instance().logger.warn(message),
  ).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (refusal === undefined) return running;
  // A plugin after this one may start the worker after a turn of the event loop.
  while (worker.getState() === 'INITIALIZED') await new Promise((resolve) => setImmediate(resolve));
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running.catch(() => undefined);
  throw refusal;
}
