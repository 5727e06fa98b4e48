import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import * as tls from 'node:tls';
import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { loadModelStreamFollowerCa } from '../config/model-stream';
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
import { modelStreamPath } from '../shared/model-stream-path';
import { streamUrlOf } from '../shared/worker-identity';
import { ScheduledCalls } from './scheduled-calls';

/**
 * Follows a run's model deltas beside its durable events, polling to find each attempt's delta server; the
 * credential is only ever sent as a bearer token.
 */

/** What a follower trusts a worker's https delta server with. */
export interface StreamTrust {
  /**
   * PEM certificate authorities trusted in addition to Node's own (for a self-signed or private-CA certificate).
   * @default the file named by `AGENT_STREAM_TLS_CA`, else none
   */
  ca?: string | Buffer;
}

/** A stream found on a running model call. */
interface FoundStream extends ModelStreamSource {
  url: string;
  /** The attempt's credential; absent from a worker that predates it. */
  token?: string;
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
  trust?: StreamTrust,
): AsyncGenerator<RunEvent | ModelStreamEvent> {
  // Read before anything is followed: a CA file that cannot be read is an error of the follow, naming the variable.
  const connect = connectOptions(trust ?? { ca: loadModelStreamFollowerCa() });
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
  const calls = new ScheduledCalls(client, workflowId);
  // Said once: every call of the run is as unreachable as the first (the network between here and the workers).
  let toldUnreachable = false;
  // Workers whose stream port answered nothing within the timeout: not waited for again in this follow, so the
  // follower does not hold each later `model-response` back for them.
  const silentOrigins = new Set<string>();
  const unreachable = (source: ModelStreamSource, reason: string, origin?: string) => {
    if (origin !== undefined) silentOrigins.add(origin);
    if (toldUnreachable || stop.signal.aborted) return;
    toldUnreachable = true;
    queue.push({ type: 'model-stream-unreachable', ...source, reason });
  };

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
      const found = await findModelStream(client, workflowId, calls).catch(() => undefined);
      const looking = state.modelCallRunning || first;
      first = false;
      // The durable events may lag the run: a stream of a later iteration than the one read so far waits for its own
      // `iteration-start` (its key is not marked read, so it is found again then).
      const ahead =
        found?.iteration !== undefined && state.iteration !== undefined && found.iteration !== state.iteration;
      if (found !== undefined && !ahead && !read.has(found.key) && generation === state.generation && looking) {
        read.add(found.key);
        if (silentOrigins.has(new URL(found.url).origin)) continue;
        const current = (push: ModelStreamEvent) => generation === state.generation && queue.push(push);
        state.reading = readStream(found, connect, current, unreachable, stop.signal);
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

/**
 * The stream of the run's running model call: at the path its worker's identity and the run's stream key give
 * (`shared/worker-identity.ts`, `shared/model-stream-path.ts`), or as the attempt announced it in a heartbeat
 * (workers whose identity names no stream listener, runs without a stream key).
 */
async function findModelStream(
  client: Client,
  workflowId: string,
  calls: ScheduledCalls,
): Promise<FoundStream | undefined> {
  const description = await client.workflow.getHandle(workflowId).describe();
  for (const activity of description.raw.pendingActivities ?? []) {
    if (activity.activityType?.name !== 'callModel') continue;
    const activityId = activity.activityId ?? '';
    const announced = await announcedStream(client, activity.heartbeatDetails?.payloads);
    if (announced !== undefined) {
      return { ...announced, activityId, key: `${description.runId}/${activityId}/${announced.attempt}` };
    }
    const base = streamUrlOf(activity.lastWorkerIdentity);
    const attempt = activity.attempt ?? 0;
    if (base === undefined || activity.state !== STARTED || attempt < 1) continue;
    const scheduled = await calls.find(description.runId, activityId);
    if (scheduled?.streamKey === undefined) continue;
    return {
      url: `${base}/model-streams/${modelStreamPath({ runId: description.runId, activityId, attempt })}`,
      token: scheduled.streamKey,
      attempt,
      ...(scheduled.iteration === undefined ? {} : { iteration: scheduled.iteration }),
      activityId,
      key: `${description.runId}/${activityId}/${attempt}`,
    };
  }
  return undefined;
}

/** `PENDING_ACTIVITY_STATE_STARTED` of Temporal's API enums: the attempt runs on the worker its identity names. */
const STARTED = 2;

/** A stream an attempt announced in its heartbeat details, if they hold one. */
async function announcedStream(
  client: Client,
  payloads: Parameters<typeof decodeFromPayloadsAtIndex>[2] | null | undefined,
): Promise<Omit<FoundStream, 'activityId' | 'key'> | undefined> {
  if (!payloads?.length) return undefined;
  const details = await decodeFromPayloadsAtIndex<unknown>(client.options.loadedDataConverter, 0, payloads);
  const stream = (details as Partial<ModelStreamAnnouncement> | null)?.modelStream;
  if (typeof stream?.url !== 'string' || typeof stream.attempt !== 'number') return undefined;
  return {
    url: stream.url,
    ...(typeof stream.token === 'string' ? { token: stream.token } : {}),
    attempt: stream.attempt,
    ...(typeof stream.iteration === 'number' ? { iteration: stream.iteration } : {}),
  };
}

/**
 * Reads one attempt's stream into `push` to its end line; anything but a completed end is followed by
 * `model-delta-reset`, and a stream never reached goes to `unreachable` with the reason.
 */
async function readStream(
  found: FoundStream,
  connect: tls.ConnectionOptions,
  push: (event: ModelStreamEvent) => unknown,
  unreachable: (source: ModelStreamSource, reason: string, silentOrigin?: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const source = { activityId: found.activityId, attempt: found.attempt };
  let shown = false;
  let ending: string;
  let response: IncomingMessage;
  try {
    response = await get(found, connect, signal);
  } catch (error) {
    if (signal.aborted) return;
    const silent = (error as NodeJS.ErrnoException).code === CONNECT_TIMEOUT;
    unreachable(source, unreachableReason(error), silent ? new URL(found.url).origin : undefined);
    return;
  }
  try {
    if (response.statusCode === 404) {
      // Ended and forgotten already (or a worker that is not the one announced): the recorded answer will say it.
      response.resume();
      return;
    }
    if (response.statusCode !== 200) {
      // Something else answered at the announced address (a proxy, a worker that wants a credential it was not given).
      response.resume();
      unreachable(source, `the worker's stream port answered HTTP ${response.statusCode}`);
      return;
    }
    ending = 'the stream from the worker broke off';
    for await (const line of ndjsonLines(response)) {
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

/** The code of the error a stream that answers nothing within the connect timeout fails with. */
const CONNECT_TIMEOUT = 'STREAM_CONNECT_TIMEOUT';

/**
 * Why a stream could not be reached, in words a caller can act on. Node's messages name the address
 * ("connect ECONNREFUSED 10.0.0.7:7300"); only the error's code is kept, so an API caller learns nothing of the
 * workers' network.
 */
function unreachableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === CONNECT_TIMEOUT)
    return `the worker's stream port did not answer within ${MODEL_STREAM_DEFAULTS.connectTimeoutMs / 1000} s`;
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return `the worker's stream port cannot be reached (${code})`;
  if (code === 'ECONNREFUSED') return "the connection to the worker's stream port was refused (ECONNREFUSED)";
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the worker's stream host name does not resolve (${code})`;
  if (code !== undefined && /CERT|SELF_SIGNED|SSL|TLS|VERIFY/.test(code))
    return `the worker's certificate is not trusted (${code}); see AGENT_STREAM_TLS_CA`;
  return `the worker's stream port cannot be reached (${code ?? 'no connection'})`;
}

/** TLS options for `trust`: Node's certificate authorities (with the system's, where Node uses them) plus its own. */
function connectOptions(trust: StreamTrust): tls.ConnectionOptions {
  if (trust.ca === undefined) return {};
  // An explicit `ca` replaces Node's list rather than adding to it: the default list goes first.
  const defaults =
    typeof tls.getCACertificates === 'function' ? tls.getCACertificates('default') : tls.rootCertificates;
  return { ca: [...defaults, trust.ca] };
}

/**
 * GETs the stream with its credential. Node's own client rather than `fetch`, whose built-in dispatcher takes no
 * certificate authorities per request; redirects are not followed, so the credential goes to the announced URL only.
 */
function get(found: FoundStream, connect: tls.ConnectionOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const url = new URL(found.url);
  const headers = found.token === undefined ? {} : { authorization: `Bearer ${found.token}` };
  return new Promise((resolve, reject) => {
    const request =
      url.protocol === 'https:'
        ? httpsRequest(url, { headers, signal, ...connect }, resolve)
        : httpRequest(url, { headers, signal }, resolve);
    request.on('error', reject);
    // A port behind a firewall that drops packets answers nothing at all; the worker sends its headers at once.
    const timer = setTimeout(
      () => request.destroy(Object.assign(new Error('the stream did not answer in time'), { code: CONNECT_TIMEOUT })),
      MODEL_STREAM_DEFAULTS.connectTimeoutMs,
    );
    request.once('response', () => clearTimeout(timer));
    request.once('close', () => clearTimeout(timer));
    request.end();
  });
}

async function* ndjsonLines(body: AsyncIterable<Buffer>): AsyncGenerator<ChannelLine> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
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
