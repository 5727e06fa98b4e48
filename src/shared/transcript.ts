import type { ChatMessage } from './messages';

/**
 * Reading a run's conversation in pages, without it travelling in history:
 * the `transcript` query (callers) and the `modelRequest` query (the
 * `callModel` activity reading the request its workflow prepared).
 */

/** A page of messages: `messages` are those from index `from` on, of `total` in all. */
export interface MessagePage {
  total: number;
  from: number;
  messages: ChatMessage[];
  /**
   * Set, with no messages, when the messages from `from` were left behind in
   * an earlier Temporal run of the run (a continue-as-new after compaction): that
   * run, queried with the same page, answers them. The client follows it.
   */
  earlierRunId?: string;
  /**
   * With `earlierRunId`: the earlier Temporal runs that hold messages left
   * behind, oldest first, each with the transcript index its messages start
   * at. A reader goes straight to the run that holds a message, and from one
   * run to the next, without walking the chain back one run at a time.
   */
  runs?: TranscriptRun[];
}

/** An earlier Temporal run of a run, which holds the transcript's messages from `from` on (up to where the next one's start, at least). */
export interface TranscriptRun {
  runId: string;
  from: number;
}

/** The `transcript` query's argument: a page from `from` (default 0), at most `limit` messages. */
export interface TranscriptQueryInput {
  from?: number;
  limit?: number;
}

/**
 * Where a model call's conversation is, when it is too large to travel in the
 * activity's input: in its own workflow run, prepared for `iteration`, with
 * `count` messages.
 */
export interface ModelRequestReference {
  iteration: number;
  count: number;
}

/** The `modelRequest` query's argument: the request of `iteration`, from message `from`. */
export interface ModelRequestQueryInput {
  iteration: number;
  from?: number;
}

/**
 * Where a result's `messages` start when the conversation was too large to
 * carry whole: they are the newest, from index `from` of `total`; the rest is
 * read with the `transcript` query (`GET /runs/:run_id/messages`).
 */
export interface ResultTranscript {
  total: number;
  from: number;
}
