import type { ChatMessage } from '../../src/shared';
import { modelContext } from '../../src/workflows/rules/model-context';
import { leaveSummarisedBehind, segmentPage, transcriptIndexOf, transcriptTotal, type SegmentFields } from '../../src/workflows/rules/transcript-segment';

const system = (content: string): ChatMessage => ({ role: 'system', content });
const user = (content: string): ChatMessage => ({ role: 'user', content });
const answer = (content: string, iteration: number): ChatMessage => ({ role: 'assistant', content, meta: { iteration } });

/** Two system messages and a question from the caller, then six answers of the run. */
const transcript: ChatMessage[] = [system('rules'), user('earlier'), system('more rules'), user('go'), ...[1, 2, 3, 4, 5, 6].map((n) => answer(`a${n}`, n))];
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
    const after = leaveSummarisedBehind(before);
    expect(after.messages).toEqual([system('rules'), system('more rules'), answer('a4', 4), answer('a5', 5), answer('a6', 6)]);
    expect(after.segment).toEqual({ base: 7, pinned: 2 });
    expect(after.inputMessageCount).toBe(2);
    expect(after.compaction).toEqual({ throughIndex: 1, summary: 'S', iteration: 5, count: 1 });
    expect(modelContext(after.messages, after.inputMessageCount, after.compaction, undefined).messages).toEqual(
      modelContext(before.messages, before.inputMessageCount, before.compaction, undefined).messages,
    );
  });

  test('a turn that began among the messages left behind starts after the kept copies and counts what it produced there', () => {
    const after = leaveSummarisedBehind(fields());
    // The turn opened with `go` (a user message, not counted), then a1..a3 were left behind.
    expect(after.turn).toEqual({ messageIndex: 2, leftBehind: 3 });
    const later = leaveSummarisedBehind(fields({ turn: { messageIndex: 8 } }));
    expect(later.turn).toEqual({ messageIndex: 3, leftBehind: 0 });
  });

  test('a second hand-over keeps the copies again and moves on from its own base', () => {
    const first = leaveSummarisedBehind(fields());
    const grown = { ...first, messages: [...first.messages, answer('a7', 7), answer('a8', 8)], compaction: { throughIndex: 4, summary: 'S2', iteration: 8, count: 2 } };
    const second = leaveSummarisedBehind(grown);
    expect(second.messages).toEqual([system('rules'), system('more rules'), answer('a7', 7), answer('a8', 8)]);
    expect(second.segment).toEqual({ base: 10, pinned: 2 });
    expect(second.turn).toEqual({ messageIndex: 2, leftBehind: 6 });
    expect(transcriptTotal(second.messages, second.segment)).toBe(12);
  });

  test('unchanged without a compaction, or when it summarised nothing this run still holds', () => {
    const plain = fields({ compaction: undefined });
    expect(leaveSummarisedBehind(plain)).toBe(plain);
    const first = leaveSummarisedBehind(fields());
    expect(leaveSummarisedBehind(first)).toBe(first);
  });
});

describe('segmentPage', () => {
  const after = leaveSummarisedBehind(fields());

  test('pages of the messages this run holds use transcript indexes; the copies are not repeated', () => {
    expect(segmentPage(after.messages, after.segment, 7, 10, 'run-1')).toEqual({ total: 10, from: 7, messages: [answer('a4', 4), answer('a5', 5), answer('a6', 6)] });
    expect(segmentPage(after.messages, after.segment, 8, 1, 'run-1')).toEqual({ total: 10, from: 8, messages: [answer('a5', 5)] });
    expect(transcriptIndexOf(2, after.segment)).toBe(7);
  });

  test('a page from before the segment points to the earlier Temporal run', () => {
    expect(segmentPage(after.messages, after.segment, 3, 10, 'run-1')).toEqual({ total: 10, from: 3, messages: [], earlierRunId: 'run-1' });
    expect(segmentPage(after.messages, after.segment, 'junk', 10, 'run-1')).toMatchObject({ from: 0, earlierRunId: 'run-1' });
  });

  test('a run that holds everything pages as before', () => {
    expect(segmentPage(transcript, undefined, 2, 2, undefined)).toEqual({ total: 10, from: 2, messages: transcript.slice(2, 4) });
  });
});
