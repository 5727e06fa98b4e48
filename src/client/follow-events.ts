import type { Client } from '@temporalio/client';
import { eventsQuery } from '../workflow-contract/definitions';
import { closedRunEvents } from '../shared/closed-run';
import { CLIENT_DEFAULTS } from '../shared/defaults/client';
import { MAX_EVENTS_PER_PAGE } from '../shared/defaults/event-log';
import { type EventPage, type RunEvent } from '../shared/run-events';
import { explainedBySearchAttributes } from '../temporal/check-search-attributes';
import { hasRunEnded } from '../temporal/run-ended';
import { sleep } from './abortable-sleep';
import { readClosedRun } from './closed-run-reader';
import { HistoryWatch } from '../temporal/history-watch';
import { notFoundOr } from './run-errors';
import { nobodyPolls } from './worker-presence';

/** Options of {@link followDurableEvents}. */
export interface DurableFollowOptions {
  /** Start after this event (`seq`); 0 reads from the beginning. @default 0 */
  after?: number;
  /** Stops following (the generator returns) when aborted. */
  signal?: AbortSignal;
  /**
   * Called when events after the cursor are no longer kept (the run continued
   * as new since, and carried only its newest events); following goes on
   * from the oldest one kept.
   */
  onMissed?: (missed: number) => void;
  /**
   * How long to wait, once the run's history moved, before reading its events: a burst of workflow tasks (a
   * model's answer, then a fast tool's result) is read with one query. @default 100 ms (`CLIENT_DEFAULTS.followSettleMs`)
   */
  settleMs?: number;
  /**
   * Called once, with the run's task queue, when no worker polls it as following starts: the run (and its events)
   * wait until one does, and a query would not be answered meanwhile.
   */
  onNoWorker?: (taskQueue: string) => void;
}

/**
 * The run's durable events in order, each once, across continue-as-new, ending after `run-end` or when Temporal closes
 * the run. Long-polls the history (not billed) and asks the `events` query only after a workflow task finished; an
 * ended run is read from its history.
 */
export async function* followDurableEvents(
  client: Client,
  workflowId: string,
  options: DurableFollowOptions,
): AsyncGenerator<RunEvent> {
  const { signal } = options;
  const aborted = () => signal?.aborted === true;
  const settleMs = options.settleMs ?? CLIENT_DEFAULTS.followSettleMs;
  let cursor = options.after ?? 0;
  let description = await describe(client, workflowId);
  const watch = new HistoryWatch(client, workflowId, description.runId);
  let ended = hasRunEnded(description.status.name);
  // A live run whose queue no worker polls: said at once, and its events wait for its history to move (a worker).
  let awaitingWorker = !ended && (await nobodyPolls(client, description));
  if (awaitingWorker) options.onNoWorker?.(description.taskQueue);
  while (!aborted()) {
    if (!ended) watch.readAt(description.runId, description.historyLength);
    const read = ended ? await closedReader(client, workflowId) : (after: number) => query(client, workflowId, after);
    for (let full = !awaitingWorker; full && !aborted();) {
      const page = await read(cursor);
      if (page.missed !== undefined && page.events.length > 0) options.onMissed?.(page.missed);
      for (const event of page.events) {
        if (aborted()) return;
        cursor = event.seq;
        yield event;
        if (event.type === 'run-end') return;
      }
      full = page.events.length >= MAX_EVENTS_PER_PAGE;
    }
    if (ended) return;
    awaitingWorker = false;
    const move = await waitForMove(watch, signal);
    if (move === undefined) return;
    if (move.closed === 'ended') {
      ended = true;
      // Closed by Temporal with every finished task read already: nothing more was written.
      if (move.recorded !== true && !move.appended) return;
      continue;
    }
    await sleep(settleMs, signal);
    description = await describe(client, workflowId);
  }
}

/** The watch's next move; undefined once `signal` aborted (a long poll it cut short is no error). */
async function waitForMove(watch: HistoryWatch, signal: AbortSignal | undefined) {
  try {
    return await watch.next(signal);
  } catch (error) {
    if (signal?.aborted === true) return undefined;
    throw error;
  }
}

async function describe(client: Client, workflowId: string) {
  try {
    return await client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    throw notFoundOr(error, workflowId);
  }
}

async function query(client: Client, workflowId: string, after: number): Promise<EventPage> {
  try {
    return await client.workflow.getHandle(workflowId).query(eventsQuery, { after });
  } catch (error) {
    const mapped = notFoundOr(error, workflowId);
    // A run on a namespace without the agent's search attributes never answers: say that, not FAILED_PRECONDITION.
    throw mapped === error
      ? await explainedBySearchAttributes(client.connection, client.options.namespace, error)
      : mapped;
  }
}

/** How an ended run's events are read: from its history (`readClosedRun`), or (when that cannot) the query. */
async function closedReader(client: Client, workflowId: string): Promise<(after: number) => Promise<EventPage>> {
  const closed = await readClosedRun(client, workflowId);
  if (closed === undefined) return (after) => query(client, workflowId, after);
  return (after) => Promise.resolve(closedRunEvents(closed.record, after));
}
