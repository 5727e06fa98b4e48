import { setTimeout as sleep } from 'node:timers/promises';

/** One Server-Sent Event with an id: an event of the run's log (`id` is its `seq`). */
export interface FollowedEvent {
  id: number;
  type: string;
  /** The event's JSON, as the API sent it. */
  data: string;
}

/** A stream that ended before the run did, and where the follower went on. */
interface Reconnect {
  /** The API the stream was lost on, and why. */
  from: string;
  reason: string;
  /** The API the follower resumed on, with `Last-Event-ID: lastEventId`. */
  to: string;
  lastEventId: number;
  /** Milliseconds from losing the stream to the next stream's 200 (or 204: the run had ended with nothing more). */
  gapMs: number;
}

/** What a follower of `GET /runs/:id/events` received. */
export interface FollowResult {
  events: FollowedEvent[];
  reconnects: Reconnect[];
  /** It saw the stream's `end` event (or a 204 after the last event): the run ended and it read to the end. */
  ended: boolean;
  /** Frames without an id other than keep-alives and `end`: `events-missed` (the log skipped ahead) or `error`. */
  otherFrames: string[];
}

/**
 * Follows a run's events over the HTTP API as an EventSource would: one stream at a time, and when a stream is lost
 * (its API process died, or it said `error`), again on the next API of `apis`, with `Last-Event-ID` set to the last
 * event's id, until the stream's `end` event or the deadline (a `performance.now()` time). Written here rather than
 * with an EventSource package so the harness sees every reconnect and the header it sent.
 */
export async function followOverApis(options: {
  apis: readonly string[];
  token: string;
  runId: string;
  deadline: number;
  /** Called with each event as it arrives. */
  onEvent?: (event: FollowedEvent) => void;
}): Promise<FollowResult> {
  const result: FollowResult = { events: [], reconnects: [], ended: false, otherFrames: [] };
  let current = 0;
  let lost: { from: string; reason: string; at: number } | undefined;
  while (performance.now() < options.deadline && !result.ended) {
    const api = options.apis[current % options.apis.length] ?? '';
    const lastEventId = result.events.at(-1)?.id ?? 0;
    try {
      const response = await fetch(`${api}/runs/${encodeURIComponent(options.runId)}/events`, {
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'text/event-stream',
          ...(lastEventId > 0 ? { 'last-event-id': String(lastEventId) } : {}),
        },
        signal: AbortSignal.timeout(Math.max(1, Math.ceil(options.deadline - performance.now()))),
      });
      if (response.status !== 200 && response.status !== 204) {
        throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 200)}`);
      }
      if (lost !== undefined) {
        result.reconnects.push({
          from: lost.from,
          reason: lost.reason,
          to: api,
          lastEventId,
          gapMs: performance.now() - lost.at,
        });
        lost = undefined;
      }
      if (response.status === 204) {
        result.ended = true;
        break;
      }
      await readStream(response, result, options.onEvent);
      if (!result.ended) throw new Error('the stream closed before the run ended');
    } catch (error) {
      lost ??= { from: api, reason: error instanceof Error ? error.message : String(error), at: performance.now() };
      current += 1;
      await sleep(250);
    }
  }
  return result;
}

async function readStream(
  response: Response,
  result: FollowResult,
  onEvent: ((event: FollowedEvent) => void) | undefined,
): Promise<void> {
  const reader = response.body?.getReader();
  if (reader === undefined) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const fields = parseFrame(frame);
      if (fields === undefined) continue;
      if (fields.id !== undefined) {
        const event = { id: Number(fields.id), type: fields.event ?? 'message', data: fields.data ?? '' };
        result.events.push(event);
        onEvent?.(event);
      } else if (fields.event === 'end') {
        result.ended = true;
        await reader.cancel();
        return;
      } else {
        result.otherFrames.push(`${fields.event ?? 'message'}: ${fields.data ?? ''}`);
        // The API ends the stream after an error; the follower resumes elsewhere.
        if (fields.event === 'error') return;
      }
    }
  }
}

/** A frame's fields (`id`, `event`, `data`), or nothing for a comment (a keep-alive). */
function parseFrame(frame: string): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  for (const line of frame.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields[name] = name in fields ? `${fields[name]}\n${value}` : value;
  }
  return Object.keys(fields).length === 0 ? undefined : fields;
}

/**
 * The problems of a follower that lost its API against one that never did, on the same run: ids not contiguous
 * from 1, a set of events that differs, a stream that did not reach the run's end.
 */
export function compareFollowers(resumed: FollowResult, crashFree: FollowResult): string[] {
  const problems: string[] = [];
  for (const [name, follower] of [
    ['resumed', resumed],
    ['crash-free', crashFree],
  ] as const) {
    if (!follower.ended) problems.push(`the ${name} follower did not reach the run's end`);
    const gap = follower.events.findIndex((event, index) => event.id !== index + 1);
    if (gap >= 0) {
      problems.push(
        `the ${name} follower's ids are not contiguous from 1: event ${gap + 1} has id ${follower.events[gap]?.id}`,
      );
    }
    if (follower.otherFrames.some((frame) => frame.startsWith('events-missed'))) {
      problems.push(`the ${name} follower was told events were missed`);
    }
  }
  if (resumed.events.length !== crashFree.events.length) {
    problems.push(`${resumed.events.length} events resumed, ${crashFree.events.length} crash-free`);
  }
  const differing = resumed.events.findIndex(
    (event, index) => crashFree.events[index]?.data !== event.data || crashFree.events[index]?.type !== event.type,
  );
  if (differing >= 0) problems.push(`event id ${resumed.events[differing]?.id} differs from the crash-free follower's`);
  return problems;
}
