import { MESSAGE_PAGES } from '../../shared/defaults/sizes';
import { type ChatMessage } from '../../shared/messages';
import { type MessagePage, type TranscriptRun } from '../../shared/transcript';
import { messagePage, wholeNumber } from './message-pages';
import { isPinned, type ConversationCompaction } from './model-context';

/**
 * Where a Temporal run's messages sit in the whole transcript: after a compaction, continue-as-new leaves the
 * summarised messages in the earlier run (which the `transcript` query points to) and carries the caller's system
 * messages on.
 */
export interface TranscriptSegment {
  /** The transcript index of `messages[pinned]`: how many transcript messages come before this run's own. */
  base: number;
  /** How many of `messages`, at their start, are copies of the caller's system messages, kept for the model. */
  pinned: number;
  /**
   * The earlier Temporal runs that hold messages left behind, oldest first, each with the transcript index its
   * own messages start at (the newest `MESSAGE_PAGES.maxListedRuns`). Absent in older continue-as-new states.
   */
  runs?: TranscriptRun[];
}

/** The segment of a run that holds its whole transcript. */
const WHOLE_TRANSCRIPT: TranscriptSegment = { base: 0, pinned: 0 };

/** The number of messages in the whole transcript. */
export function transcriptTotal(
  messages: readonly ChatMessage[],
  segment: TranscriptSegment = WHOLE_TRANSCRIPT,
): number {
  return segment.base + messages.length - segment.pinned;
}

/** The transcript index of `messages[index]`, for an index past the pinned copies. */
export function transcriptIndexOf(index: number, segment: TranscriptSegment = WHOLE_TRANSCRIPT): number {
  return segment.base + index - segment.pinned;
}

/**
 * A page of the whole transcript from this Temporal run; a page starting before `segment.base` holds no messages and
 * names the earlier run that has them (`earlierRunId`).
 */
export function segmentPage(
  messages: readonly ChatMessage[],
  segment: TranscriptSegment | undefined,
  from: unknown,
  limit: unknown,
  previousRunId: string | undefined,
): MessagePage {
  if (segment === undefined || (segment.base === 0 && segment.pinned === 0)) return messagePage(messages, from, limit);
  const total = transcriptTotal(messages, segment);
  const start = wholeNumber(from, 0);
  if (start < segment.base) {
    const runs = segment.runs ?? [];
    const earlierRunId = (runHolding(runs, start) ?? runs[0])?.runId ?? previousRunId;
    if (earlierRunId !== undefined)
      return { total, from: start, messages: [], earlierRunId, ...(runs.length === 0 ? {} : { runs }) };
  }
  const own = messagePage(messages.slice(segment.pinned), Math.max(0, start - segment.base), limit);
  return { total, from: segment.base + own.from, messages: own.messages };
}

/** The newest of `runs` (oldest first) whose messages start at or before `index`: the one that holds it. */
export function runHolding(runs: readonly TranscriptRun[], index: number): TranscriptRun | undefined {
  return runs.findLast((run) => run.from <= index);
}

/** `runs` (oldest first) with `run` after them, the oldest dropped past `MESSAGE_PAGES.maxListedRuns`. */
export function withListedRun(runs: readonly TranscriptRun[] | undefined, run: TranscriptRun): TranscriptRun[] {
  return [...(runs ?? []), run].slice(-MESSAGE_PAGES.maxListedRuns);
}

/** What a continue-as-new carries that indexes into the messages. */
export interface SegmentFields {
  messages: ChatMessage[];
  inputMessageCount: number;
  compaction?: ConversationCompaction;
  turn: { messageIndex: number; leftBehind?: number };
  segment?: TranscriptSegment;
}

/** Whether a compaction summarised messages these fields still hold (beyond the kept copies): what a continue-as-new can leave behind. */
export function hasSummarisedToLeave({
  messages,
  compaction,
  segment,
}: Pick<SegmentFields, 'messages' | 'compaction' | 'segment'>): boolean {
  if (compaction === undefined) return false;
  return Math.min(compaction.throughIndex + 1, messages.length) > (segment ?? WHOLE_TRANSCRIPT).pinned;
}

/**
 * The fields with the summarised messages left behind (the caller's system messages among them kept, every index
 * moved), so the model's context is the same before and after; `turn.leftBehind` keeps the turn's count and the
 * segment's `runs` the Temporal run that holds them.
 */
export function leaveSummarisedBehind<T extends SegmentFields>(fields: T, runId: string): T {
  const { messages, compaction } = fields;
  const segment = fields.segment ?? WHOLE_TRANSCRIPT;
  if (compaction === undefined || !hasSummarisedToLeave(fields)) return fields;
  const cut = Math.min(compaction.throughIndex + 1, messages.length);
  const pinned = messages.slice(0, cut).filter((message, index) => isPinned(message, index, fields.inputMessageCount));
  const kept = [...pinned, ...messages.slice(cut)];
  const shift = (index: number) => (index >= cut ? index - cut + pinned.length : pinned.length);
  const turnStart = fields.turn.messageIndex;
  const producedLeftBehind =
    turnStart >= cut ? 0 : messages.slice(turnStart, cut).filter((message) => message.role !== 'user').length;
  return {
    ...fields,
    messages: kept,
    inputMessageCount: pinned.length + Math.max(0, fields.inputMessageCount - cut),
    compaction: { ...compaction, throughIndex: pinned.length - 1 },
    turn: {
      ...fields.turn,
      messageIndex: shift(turnStart),
      leftBehind: (fields.turn.leftBehind ?? 0) + producedLeftBehind,
    },
    segment: {
      base: transcriptIndexOf(cut, segment),
      pinned: pinned.length,
      runs: withListedRun(segment.runs, { runId, from: segment.base }),
    },
  };
}
