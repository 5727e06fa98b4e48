import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { ChannelLine } from '../shared/model-stream-events';
import { sleep } from './abortable-sleep';
import { AsyncQueue } from './async-queue';
import { MODEL_STREAM_DEFAULTS } from '../shared/defaults/model-stream';
import {
  deltaEvent,
  type ModelStreamAnnouncement,
  type ModelStreamEvent,
  type ModelStreamSource,
} from '../shared/model-stream-events';
import { type RunEvent } from '../shared/run-events';

/**
 * Follows a run's model deltas next to its durable events. While a model
 * call runs (after `iteration-start`, until `model-response`), the run is
 * described every `MODEL_STREAM_DEFAULTS.discoverPollMs`: the pending
 * `callModel` activity heartbeats where its attempt's deltas are served (the
 * worker's delta server); they are read from there, from the attempt's first
 * delta, and put in the feed before the call's `model-response`. An attempt
 * that fails, or whose stream breaks off, is followed by `model-delta-reset`.
 * Nothing here touches the run's history.
 */

/** A stream found on a running model call. */
interface FoundStream extends ModelStreamSource {
  url: string;
  /** The run's iteration the call belongs to, when the worker announced it. */
  iteration?: number;
  /** Which attempt of which call of which Temporal run: each is read once. */
  key: string;
}

/** `events` with the model deltas of `workflowId` merged in, in order. Ends when `events` ends. */
export async function* withModelDeltas(
  client: Client,
  workflowId: string,
  events: (signal: AbortSignal) => AsyncGenerator<RunEvent>,
  signal?: AbortSignal,
  resumed = false,
): AsyncGenerator<RunEvent | ModelStreamEvent> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) stop.abort();
  const queue = new AsyncQueue<RunEvent | ModelStreamEvent>();
  const state = {
    modelCallRunning: false,
    /** The iteration of the last `iteration-start` read, so a later call's stream is not put under it. */
    iteration: undefined as number | undefined,
    generation: 0,
    reading: undefined as Promise<void> | undefined,
    wake: () => {},
  };
  // The delta follower waits for an iteration-start, or for the end.
  stop.signal.addEventListener('abort', () => state.wake(), { once: true });
  const read = new Set<string>();

  const followDurable = async () => {
    for await (const event of events(stop.signal)) {
      if (event.type === 'iteration-start') {
        state.modelCallRunning = true;
        state.iteration = event.iteration;
        state.wake();
      } else if (event.type === 'model-response' || event.type === 'run-end' || event.type === 'run-hand-over') {
        state.modelCallRunning = false;
        // The call has ended, so its stream has too: let its last deltas in first, then nothing more of it.
        if (state.reading !== undefined) await within(state.reading, MODEL_STREAM_DEFAULTS.drainWaitMs);
        state.generation += 1;
      }
      queue.push(event);
    }
  };

  const followDeltas = async () => {
    // A follower that resumes after the call's `iteration-start` still finds the call running: look once at the start.
    // (Not one that reads from the beginning: the call's deltas would come before the events that lead to it.)
    let first = resumed;
    while (!stop.signal.aborted) {
      if (!state.modelCallRunning && !first) {
        await new Promise<void>((resolve) => (state.wake = resolve));
        continue;
      }
      const generation = state.generation;
      const found = await findModelStream(client, workflowId).catch(() => undefined);
      const looking = state.modelCallRunning || first;
      first = false;
      // The durable events may lag the run: a stream of a later iteration than the one read so far waits for its own
      // `iteration-start` (its key is not marked read, so it is found again then).
      const ahead =
        found?.iteration !== undefined && state.iteration !== undefined && found.iteration !== state.iteration;
      if (found !== undefined && !ahead && !read.has(found.key) && generation === state.generation && looking) {
        read.add(found.key);
        const current = (push: ModelStreamEvent) => generation === state.generation && queue.push(push);
        state.reading = readStream(found, current, stop.signal);
        await state.reading;
        state.reading = undefined;
        continue;
      }
      if (state.modelCallRunning) await sleep(MODEL_STREAM_DEFAULTS.discoverPollMs, stop.signal);
    }
  };

  const durable = followDurable().then(
    () => queue.close(),
    (error: unknown) => queue.fail(error),
  );
  const deltas = followDeltas().catch(() => undefined);
  try {
    yield* queue;
  } finally {
    stop.abort();
    signal?.removeEventListener('abort', onAbort);
    await Promise.all([durable, deltas]);
  }
}

/** The stream of the run's running model call, if it announced one. */
async function findModelStream(client: Client, workflowId: string): Promise<FoundStream | undefined> {
  const description = await client.workflow.getHandle(workflowId).describe();
  for (const activity of description.raw.pendingActivities ?? []) {
    if (activity.activityType?.name !== 'callModel' || !activity.heartbeatDetails?.payloads?.length) continue;
    const details = await decodeFromPayloadsAtIndex<unknown>(
      client.options.loadedDataConverter,
      0,
      activity.heartbeatDetails.payloads,
    );
    const stream = (details as Partial<ModelStreamAnnouncement> | null)?.modelStream;
    if (typeof stream?.url !== 'string' || typeof stream.attempt !== 'number') continue;
    const activityId = activity.activityId ?? '';
    return {
      url: stream.url,
      attempt: stream.attempt,
      ...(typeof stream.iteration === 'number' ? { iteration: stream.iteration } : {}),
      activityId,
      key: `${description.runId}/${activityId}/${stream.attempt}`,
    };
  }
  return undefined;
}

/**
 * Reads one attempt's stream into `push`, to its end line. Anything but a
 * completed end (a failed attempt, a broken connection, a worker that is
 * gone) is followed by `model-delta-reset`.
 */
async function readStream(
  found: FoundStream,
  push: (event: ModelStreamEvent) => unknown,
  signal: AbortSignal,
): Promise<void> {
  const source = { activityId: found.activityId, attempt: found.attempt };
  let shown = false;
  let ending: string;
  try {
    const response = await fetch(found.url, { signal });
    if (!response.ok || response.body === null) {
      // Ended and forgotten already, or another worker's address we cannot read: the recorded answer will say it.
      return;
    }
    ending = 'the stream from the worker broke off';
    for await (const line of ndjsonLines(response.body)) {
      if ('end' in line) {
        if (line.end === 'completed') return;
        ending = 'the attempt failed; it is retried or the run fails';
        break;
      }
      shown = true;
      push(deltaEvent(source, line.index, line.delta));
    }
  } catch {
    if (signal.aborted) return;
    ending = 'the stream from the worker broke off';
  }
  if (shown || ending !== 'the stream from the worker broke off')
    push({ type: 'model-delta-reset', ...source, reason: ending });
}

async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<ChannelLine> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() !== '') yield JSON.parse(line) as ChannelLine;
    }
  }
}

/** Waits for `work`, for `ms` at most; the timer is cleared either way. */
export async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
