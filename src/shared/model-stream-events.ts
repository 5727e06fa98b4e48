/**
 * What a model call streams while it runs. Not run events: no `seq`, never in the history or the `events` query;
 * followers get them live, a later reader only the durable `model-response`.
 */

/** One fragment of a model call's answer, as the worker publishes it. */
export type ModelDelta =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  /** A tool call's fragment: `id` and `name` come first (once), then `arguments` in pieces; `toolIndex` says which call. */
  | { kind: 'tool-call'; toolIndex: number; id?: string; name?: string; arguments?: string };

/**
 * One line of an attempt's delta channel, as the worker serves it and a
 * follower reads it (newline-delimited JSON): a delta, or the attempt's end.
 */
export type ChannelLine = { index: number; delta: ModelDelta } | { end: 'completed' | 'failed' };

/** Which attempt of which model call a delta belongs to. */
export interface ModelStreamSource {
  /** The model-call activity's id within its Temporal run. */
  activityId: string;
  /** The attempt (1, 2, ...): a retried call streams again from the start under the next attempt. */
  attempt: number;
}

/** What every delta event carries: its source and its place in the attempt's stream (0, 1, 2, ...). */
interface DeltaEnvelope extends ModelStreamSource {
  index: number;
}

/** Text the model is writing. */
export interface ModelTextDeltaEvent extends DeltaEnvelope {
  type: 'model-text-delta';
  text: string;
}

/** Reasoning the provider streams (`reasoning_content` or `reasoning`); never part of the recorded message. */
export interface ModelReasoningDeltaEvent extends DeltaEnvelope {
  type: 'model-reasoning-delta';
  text: string;
}

/** A fragment of a tool call: its id and name first, then its arguments' JSON text in pieces. */
export interface ModelToolCallDeltaEvent extends DeltaEnvelope {
  type: 'model-tool-call-delta';
  toolIndex: number;
  id?: string;
  name?: string;
  arguments?: string;
}

/**
 * Discard every delta of this attempt shown so far: the attempt failed (its
 * stream broke, the provider failed, the worker was lost) and Temporal will
 * retry the call, or the run will fail. The next attempt streams from the start.
 */
export interface ModelDeltaResetEvent extends ModelStreamSource {
  type: 'model-delta-reset';
  /** Why, in words: "the attempt failed", "the stream from the worker broke off". */
  reason: string;
}

/**
 * This follower cannot reach the worker's delta stream (refused, timed out, an untrusted certificate, something else
 * answering). Said once per follow; the durable events go on. Every follower must reach every worker's stream port.
 */
export interface ModelStreamUnreachableEvent extends ModelStreamSource {
  type: 'model-stream-unreachable';
  /** Why, in words, without the worker's address or the credential: "the connection was refused (ECONNREFUSED)". */
  reason: string;
}

/** An ephemeral event of a streaming model call. */
export type ModelStreamEvent =
  | ModelTextDeltaEvent
  | ModelReasoningDeltaEvent
  | ModelToolCallDeltaEvent
  | ModelDeltaResetEvent
  | ModelStreamUnreachableEvent;

/** The `type` of every ephemeral model-stream event. */
export const MODEL_STREAM_EVENT_TYPES = [
  'model-text-delta',
  'model-reasoning-delta',
  'model-tool-call-delta',
  'model-delta-reset',
  'model-stream-unreachable',
] as const;

/** Whether `event` is an ephemeral model-stream event (rather than a durable run event). */
export function isModelStreamEvent(event: { type: string }): event is ModelStreamEvent {
  return (MODEL_STREAM_EVENT_TYPES as readonly string[]).includes(event.type);
}

/** The event a delta of `source` at `index` is delivered as. */
export function deltaEvent(source: ModelStreamSource, index: number, delta: ModelDelta): ModelStreamEvent {
  const envelope = { activityId: source.activityId, attempt: source.attempt, index };
  switch (delta.kind) {
    case 'text':
      return { type: 'model-text-delta', ...envelope, text: delta.text };
    case 'reasoning':
      return { type: 'model-reasoning-delta', ...envelope, text: delta.text };
    case 'tool-call':
      return {
        type: 'model-tool-call-delta',
        ...envelope,
        toolIndex: delta.toolIndex,
        ...(delta.id === undefined ? {} : { id: delta.id }),
        ...(delta.name === undefined ? {} : { name: delta.name }),
        ...(delta.arguments === undefined ? {} : { arguments: delta.arguments }),
      };
  }
}

/**
 * Where an attempt publishes its deltas and the credential to read them, heartbeated as its (codec-encrypted) details
 * so a follower finds it by describing the run; never shown to API callers.
 */
export interface ModelStreamAnnouncement {
  modelStream: {
    url: string;
    /**
     * The attempt's credential, sent as `Authorization: Bearer <token>`. Absent from an announcement of a worker
     * that predates it, whose URL is read without one.
     */
    token?: string;
    attempt: number;
    /** The run's iteration the call belongs to (absent from calls scheduled before it was carried). */
    iteration?: number;
  };
}
