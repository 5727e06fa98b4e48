import type { Client } from '@temporalio/client';
import { followDurableEvents } from '../client/follow-events';
import { type RunEvent } from '../shared/run-events';

/** One run followed once for all the event streams of this process that read it. */
interface Subscription {
  /** The run's events as read so far, from its first kept one, in order. */
  readonly events: RunEvent[];
  /** Followers of this subscription now open. */
  clients: number;
  done: boolean;
  failure?: { error: unknown };
  /** The run's task queue, when no worker polled it as the follow started. */
  noWorker?: string;
  /** Woken when events were appended, or the follow ended. */
  waiters: Set<() => void>;
  readonly stop: AbortController;
}

/**
 * The API process's follows of runs, one per run however many clients: each run's log is read once and fanned out to
 * every stream with its own cursor, from the start, so any `Last-Event-ID` resumes. It lives while a stream reads it.
 */
export class RunSubscriptions {
  private readonly runs = new Map<string, Subscription>();

  constructor(private readonly client: Client) {}

  /**
   * The run's events after `after`, each once, in order, ending after `run-end` or when the run closed; throws what
   * the shared follow threw. `onMissed` says how many after the cursor are no longer kept (as the `events` query's
   * `missed`), before the first event after them. `onNoWorker` says, once, that no worker polls the run's task queue.
   */
  async *follow(
    workflowId: string,
    after: number,
    signal: AbortSignal,
    onMissed?: (missed: number) => void,
    onNoWorker?: (taskQueue: string) => void,
  ): AsyncGenerator<RunEvent> {
    const subscription = this.acquire(workflowId);
    try {
      let cursor = after;
      let index = 0;
      let toldNoWorker = false;
      while (!signal.aborted) {
        if (subscription.noWorker !== undefined && !toldNoWorker && index >= subscription.events.length) {
          toldNoWorker = true;
          onNoWorker?.(subscription.noWorker);
        }
        for (; index < subscription.events.length; index += 1) {
          const event = subscription.events[index] as RunEvent;
          if (event.seq <= cursor) continue;
          // Numbers run without a gap: one is a gap in what the run kept since the cursor.
          if (event.seq > cursor + 1) onMissed?.(event.seq - cursor - 1);
          cursor = event.seq;
          yield event;
          if (signal.aborted || event.type === 'run-end') return;
        }
        if (subscription.failure !== undefined) throw subscription.failure.error;
        if (subscription.done) return;
        await changed(subscription, signal);
      }
    } finally {
      this.release(workflowId, subscription);
    }
  }

  private acquire(workflowId: string): Subscription {
    let subscription = this.runs.get(workflowId);
    if (subscription === undefined) {
      subscription = { events: [], clients: 0, done: false, waiters: new Set(), stop: new AbortController() };
      this.runs.set(workflowId, subscription);
      void this.read(workflowId, subscription);
    }
    subscription.clients += 1;
    return subscription;
  }

  private release(workflowId: string, subscription: Subscription): void {
    subscription.clients -= 1;
    if (subscription.clients > 0) return;
    subscription.stop.abort();
    if (this.runs.get(workflowId) === subscription) this.runs.delete(workflowId);
  }

  private async read(workflowId: string, subscription: Subscription): Promise<void> {
    try {
      const onNoWorker = (taskQueue: string) => {
        subscription.noWorker = taskQueue;
        wake(subscription);
      };
      for await (const event of followDurableEvents(this.client, workflowId, {
        signal: subscription.stop.signal,
        onNoWorker,
      })) {
        subscription.events.push(event);
        wake(subscription);
      }
    } catch (error) {
      subscription.failure = { error };
    }
    subscription.done = true;
    // An ended follow serves the streams still on it; a new stream starts a new one (a failed read is tried again).
    if (this.runs.get(workflowId) === subscription) this.runs.delete(workflowId);
    wake(subscription);
  }
}

function wake(subscription: Subscription): void {
  const waiters = [...subscription.waiters];
  subscription.waiters.clear();
  for (const waiter of waiters) waiter();
}

/** Resolves when the subscription changed, or `signal` aborted. */
function changed(subscription: Subscription, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      subscription.waiters.delete(done);
      resolve();
    };
    subscription.waiters.add(done);
    signal.addEventListener('abort', done, { once: true });
  });
}
