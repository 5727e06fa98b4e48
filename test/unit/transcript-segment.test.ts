import type { ChatMessage } from '../../src/shared/messages';
import { modelContext } from '../../src/workflows/rules/model-context';
import {
  leaveSummarisedBehind,
  runHolding,
  segmentPage,
  transcriptIndexOf,
  transcriptTotal,
  withListedRun,
  type SegmentFields,
} from '../../src/workflows/rules/transcript-segment';

const system = (content: string): ChatMessage => ({ role: 'system', content });
const user = (content: string): ChatMessage => ({ role: 'user', content });
const answer = (content: string, iteration: number): ChatMessage => ({
  role: 'assistant',
  content,
  meta: { iteration },
});

/** Two system messages and a question from the caller, then six answers of the run. */
const transcript: ChatMessage[] = [
  system('rules'),
  user('earlier'),
  system('more rules'),
  user('go'),
  ...[1, 2, 3, 4, 5, 6].map((n) => answer(`a${n}`, n)),
];
const fields = (overrides: Partial<SegmentFields> = {}): SegmentFields => ({
  messages: transcript,
  inputMessageCount: 3,
  turn: { messageIndex: 3 },
  compaction: { throughIndex: 6, summary: 'S', iteration: 5, count: 1 },
  ...overrides,
});

describe('leaveSummarisedBehind', () => {
  test("keeps the caller's system messages and what follows the summary; the model's context is unchanged", () => {
    const before = fields();
    const after = leaveSummarisedBehind(before, 'run-1');
    expect(after.messages).toEqual([
      system('rules'),
      system('more rules'),
      answer('a4', 4),
      answer('a5', 5),
      answer('a6', 6),
    ]);
    expect(after.segment).toEqual({ base: 7, pinned: 2, runs: [{ runId: 'run-1', from: 0 }] });
    expect(after.inputMessageCount).toBe(2);
    expect(after.compaction).toEqual({ throughIndex: 1, summary: 'S', iteration: 5, count: 1 });
    expect(modelContext(after.messages, after.inputMessageCount, after.compaction, undefined).messages).toEqual(
      modelContext(before.messages, before.inputMessageCount, before.compaction, undefined).messages,
    );
  });

  test('a turn that began among the messages left behind starts after the kept copies and counts what it produced there', () => {
    const after = leaveSummarisedBehind(fields(), 'run-1');
    // The turn opened with `go` (a user message, not counted), then a1..a3 were left behind.
    expect(after.turn).toEqual({ messageIndex: 2, leftBehind: 3 });
    const later = leaveSummarisedBehind(fields({ turn: { messageIndex: 8 } }), 'run-1');
    expect(later.turn).toEqual({ messageIndex: 3, leftBehind: 0 });
  });

  test('a second hand-over keeps the copies again and moves on from its own base', () => {
    const first = leaveSummarisedBehind(fields(), 'run-1');
    const grown = {
      ...first,
      messages: [...first.messages, answer('a7', 7), answer('a8', 8)],
      compaction: { throughIndex: 4, summary: 'S2', iteration: 8, count: 2 },
    };
    const second = leaveSummarisedBehind(grown, 'run-2');
    expect(second.messages).toEqual([system('rules'), system('more rules'), answer('a7', 7), answer('a8', 8)]);
    expect(second.segment).toEqual({
      base: 10,
      pinned: 2,
      runs: [
        { runId: 'run-1', from: 0 },
        { runId: 'run-2', from: 7 },
      ],
    });
    expect(second.turn).toEqual({ messageIndex: 2, leftBehind: 6 });
    expect(transcriptTotal(second.messages, second.segment)).toBe(12);
  });

  test('unchanged without a compaction, or when it summarised nothing this run still holds', () => {
    const plain = fields({ compaction: undefined });
    expect(leaveSummarisedBehind(plain, 'run-1')).toBe(plain);
    const first = leaveSummarisedBehind(fields(), 'run-1');
    expect(leaveSummarisedBehind(first, 'run-2')).toBe(first);
  });
});

describe('segmentPage', () => {
  const after = leaveSummarisedBehind(fields(), 'run-1');

  test('pages of the messages this run holds use transcript indexes; the copies are not repeated', () => {
    expect(segmentPage(after.messages, after.segment, 7, 10, 'run-1')).toEqual({
      total: 10,
      from: 7,
      messages: [answer('a4', 4), answer('a5', 5), answer('a6', 6)],
    });
    expect(segmentPage(after.messages, after.segment, 8, 1, 'run-1')).toEqual({
      total: 10,
      from: 8,
      messages: [answer('a5', 5)],
    });
    expect(transcriptIndexOf(2, after.segment)).toBe(7);
  });

  test('a page from before the segment points to the earlier Temporal run, and lists the runs it knows', () => {
    const runs = [{ runId: 'run-1', from: 0 }];
    expect(segmentPage(after.messages, after.segment, 3, 10, 'run-1')).toEqual({
      total: 10,
      from: 3,
      messages: [],
      earlierRunId: 'run-1',
      runs,
    });
    expect(segmentPage(after.messages, after.segment, 'junk', 10, 'run-1')).toMatchObject({
      from: 0,
      earlierRunId: 'run-1',
    });
  });

  test('down a chain, a page points straight to the run that holds its first message, not to the previous run', () => {
    const first = leaveSummarisedBehind(fields(), 'run-1');
    const grown = {
      ...first,
      messages: [...first.messages, answer('a7', 7), answer('a8', 8)],
      compaction: { throughIndex: 4, summary: 'S2', iteration: 8, count: 2 },
    };
    const second = leaveSummarisedBehind(grown, 'run-2');
    // The third Temporal run's previous run is run-2; messages 0..6 are in run-1, 7..9 in run-2.
    expect(segmentPage(second.messages, second.segment, 2, 10, 'run-2')).toMatchObject({
      messages: [],
      earlierRunId: 'run-1',
    });
    expect(segmentPage(second.messages, second.segment, 8, 10, 'run-2')).toMatchObject({
      messages: [],
      earlierRunId: 'run-2',
    });
    expect(segmentPage(second.messages, second.segment, 10, 10, 'run-2')).toEqual({
      total: 12,
      from: 10,
      messages: [answer('a7', 7), answer('a8', 8)],
    });
  });

  test('a hand-over from before the list points to the previous run, as it did', () => {
    const unlisted = { base: after.segment?.base ?? 0, pinned: after.segment?.pinned ?? 0 };
    expect(segmentPage(after.messages, unlisted, 3, 10, 'run-1')).toEqual({
      total: 10,
      from: 3,
      messages: [],
      earlierRunId: 'run-1',
    });
  });

  test('the list keeps the newest runs; a page before the oldest listed goes to it, which knows the runs before', () => {
    let runs = withListedRun(undefined, { runId: 'r0', from: 0 });
    for (let index = 1; index <= 1_000; index += 1)
      runs = withListedRun(runs, { runId: `r${index}`, from: index * 10 });
    expect(runs).toHaveLength(1_000);
    expect(runs[0]).toEqual({ runId: 'r1', from: 10 });
    expect(runHolding(runs, 5)).toBeUndefined();
    expect(runHolding(runs, 10)).toEqual({ runId: 'r1', from: 10 });
    expect(runHolding(runs, 25)).toEqual({ runId: 'r2', from: 20 });
    const segment = { base: 10_010, pinned: 0, runs };
    expect(segmentPage([answer('last', 1)], segment, 5, 10, 'r1000')).toMatchObject({ earlierRunId: 'r1' });
  });

  test('a run that holds everything pages as before', () => {
    expect(segmentPage(transcript, undefined, 2, 2, undefined)).toEqual({
      total: 10,
      from: 2,
      messages: transcript.slice(2, 4),
    });
  });
});
