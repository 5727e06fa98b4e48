import { Runtime, type Worker } from '@temporalio/worker';
import { requireSearchAttributes } from '../../temporal/check-search-attributes';

/**
 * Runs the worker (`next`) if its namespace has the agent's search attributes, and otherwise refuses with
 * `SearchAttributesMissingError`: on such a namespace every run would stall. A refused worker is still started and
 * stopped at once, because a created worker holds its connection until it has run (the connection could not be
 * closed otherwise).
 */
export async function runIfSearchAttributes(worker: Worker, next: (worker: Worker) => Promise<void>): Promise<void> {
  const connection = worker.connection;
  if (connection === undefined) return next(worker);
  const refusal = await requireSearchAttributes(connection, worker.options.namespace, (message) =>
    Runtime.instance().logger.warn(message),
  ).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (refusal === undefined) return next(worker);
  const running = next(worker);
  // A plugin after this one may start the worker after a turn of the event loop.
  while (worker.getState() === 'INITIALIZED') await new Promise((resolve) => setImmediate(resolve));
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running.catch(() => undefined);
  throw refusal;
}
