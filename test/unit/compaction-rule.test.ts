import { COMPACTION_SUMMARY_HEADING } from '../../src/shared/defaults/context-control';
import type { ChatMessage } from '../../src/shared/messages';
import {
  keptFrom,
  maxSummaryChars,
  planCompaction,
  type CompactionSubject,
} from '../../src/workflows/rules/compaction-rule';
import {
  contextTokens,
  modelContext,
  summaryMessage,
  type ConversationCompaction,
} from '../../src/workflows/rules/model-context';

/** Content of exactly `tokens` estimated tokens. */
const ofTokens = (tokens: number, letter = 'x'): string => letter.repeat(tokens * 4);

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (iteration: number, ...callIds: string[]): ChatMessage => ({
  role: 'assistant',
  content: callIds.length === 0 ? `answer ${iteration}` : null,
  ...(callIds.length === 0
    ? {}
    : {
        tool_calls: callIds.map((id) => ({
          id,
          type: 'function' as const,
          function: { name: 'read_file', arguments: '{}' },
        })),
      }),
  meta: { iteration },
});
const tool = (id: string, iteration: number, content = ofTokens(100)): ChatMessage => ({
  role: 'tool',
  tool_call_id: id,
  content,
  meta: { iteration },
});

/** A run's transcript: the task, then `iterations` iterations of one call and its result each. */
function transcript(iterations: number): ChatMessage[] {
  return [
    user('the task'),
    ...Array.from({ length: iterations }, (_, index) => [
      assistant(index + 1, `c${index + 1}`),
      tool(`c${index + 1}`, index + 1),
    ]).flat(),
  ];
}

/** The plan for the run described, with what the model would see composed as the workflow composes it. */
function plan(
  subject: Partial<CompactionSubject> & { messages: ChatMessage[] },
  maxTokens: number,
  keepRecentIterations = 2,
) {
  const full: CompactionSubject = {
    inputMessageCount: 0,
    iteration: 1,
    previous: undefined,
    instructions: undefined,
    ...subject,
  };
  return planCompaction(full, modelContext(full.messages, full.inputMessageCount, full.previous, undefined), {
    maxTokens,
    keepRecentIterations,
  });
}

describe('below the threshold', () => {
  test('nothing happens, however old the messages; the tokens are counted with the instructions', () => {
    const messages = transcript(5);
    const tokens = contextTokens(messages, 'be brief');
    expect(plan({ messages, iteration: 6, instructions: 'be brief' }, tokens)).toEqual({
      kind: 'none',
      reason: 'below-threshold',
      tokens,
    });
    expect(plan({ messages, iteration: 6, instructions: 'be brief' }, tokens - 1)).toMatchObject({
      kind: 'compact',
      tokensBefore: tokens,
    });
  });
});

describe('where the cut falls', () => {
  test('just before the model answer of the oldest kept iteration: the last keepRecentIterations stay whole', () => {
    const messages = transcript(5);
    // Before iteration 6, keeping 2: iterations 4 and 5 stay, the task and iterations 1 to 3 are summarised.
    const decided = plan({ messages, iteration: 6 }, 100);
    expect(decided).toMatchObject({ kind: 'compact', throughIndex: 6, newlySummarised: 7 });
    expect(messages[7]).toMatchObject({ role: 'assistant', meta: { iteration: 4 } });
    expect(decided.kind === 'compact' && decided.summarise).toEqual(messages.slice(0, 7));
    expect(plan({ messages, iteration: 6 }, 100, 1)).toMatchObject({ throughIndex: 8 });
  });

  test('never between an assistant message and its tool results, parallel calls included', () => {
    const messages: ChatMessage[] = [user('go')];
    for (let iteration = 1; iteration <= 6; iteration += 1) {
      messages.push(assistant(iteration, `a${iteration}`, `b${iteration}`, `c${iteration}`));
      messages.push(
        tool(`a${iteration}`, iteration),
        tool(`b${iteration}`, iteration),
        tool(`c${iteration}`, iteration),
      );
      if (iteration % 2 === 0)
        messages.push({ role: 'system', content: 'a loop warning', meta: { injected: 'loop_warning', iteration } });
    }
    for (const keep of [1, 2, 3, 4, 5]) {
      const decided = plan({ messages, iteration: 7 }, 50, keep);
      if (decided.kind !== 'compact') throw new Error(`keeping ${keep}: no compaction`);
      const summarised = messages.slice(0, decided.throughIndex + 1);
      const kept = messages.slice(decided.throughIndex + 1);
      expect(kept[0]).toMatchObject({ role: 'assistant', meta: { iteration: 7 - keep } });
      // Every call summarised has its result summarised with it; every call kept, its result kept.
      const callIds = (part: ChatMessage[]) =>
        part.flatMap((message) =>
          message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [],
        );
      const resultIds = (part: ChatMessage[]) =>
        part.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : []));
      expect(resultIds(summarised).sort()).toEqual(callIds(summarised).sort());
      expect(resultIds(kept).sort()).toEqual(callIds(kept).sort());
    }
  });

  test("a person's message that arrived after the last iteration is kept", () => {
    const messages = [...transcript(3), user('also check the second file')];
    const decided = plan({ messages, iteration: 4 }, 10, 1);
    expect(decided).toMatchObject({ kind: 'compact', throughIndex: 4 });
    expect(messages.slice(5)).toEqual([assistant(3, 'c3'), tool('c3', 3), user('also check the second file')]);
  });

  test('with fewer iterations than it keeps, only the caller’s prior conversation can be summarised', () => {
    const messages = transcript(1);
    expect(keptFrom(messages, 0, 2, 2)).toBe(0);
    expect(plan({ messages, iteration: 2 }, 10)).toEqual({
      kind: 'none',
      reason: 'nothing-to-summarise',
      tokens: contextTokens(messages, undefined),
    });

    const prior: ChatMessage[] = [user(ofTokens(200)), { role: 'assistant', content: ofTokens(200) }];
    const withPrior = [...prior, user('now this'), assistant(1, 'c1'), tool('c1', 1)];
    const decided = plan({ messages: withPrior, inputMessageCount: 2, iteration: 2 }, 100);
    expect(decided).toMatchObject({ kind: 'compact', throughIndex: 1 });
    expect(decided.kind === 'compact' && decided.summarise).toEqual(prior);
  });

  test('an input message that claims an iteration in its meta does not move the cut', () => {
    const forged: ChatMessage = { role: 'assistant', content: ofTokens(300), meta: { iteration: 99 } };
    const messages = [user('earlier'), forged, user('go'), ...transcript(3).slice(1)];
    expect(keptFrom(messages, 2, 4, 2)).toBe(5);
    expect(plan({ messages, inputMessageCount: 2, iteration: 4 }, 100)).toMatchObject({
      kind: 'compact',
      throughIndex: 4,
    });
  });

  test("the caller's system messages are never summarised; the runner's injected ones are", () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'developer', content: 'Answer in French.' },
      user('go'),
      assistant(1, 'c1'),
      tool('c1', 1),
      { role: 'system', content: 'Call a tool.', meta: { injected: 'nudge', iteration: 1 } },
      assistant(2, 'c2'),
      tool('c2', 2),
      assistant(3, 'c3'),
      tool('c3', 3),
    ];
    const decided = plan({ messages, inputMessageCount: 2, iteration: 4 }, 50);
    expect(decided).toMatchObject({ kind: 'compact', throughIndex: 5, newlySummarised: 4 });
    expect(decided.kind === 'compact' && decided.summarise.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'system',
    ]);

    // Only the caller's system messages before the cut: nothing to summarise.
    const onlySystem: ChatMessage[] = [{ role: 'system', content: ofTokens(500) }, assistant(1)];
    expect(plan({ messages: onlySystem, inputMessageCount: 1, iteration: 2 }, 100, 1)).toMatchObject({
      kind: 'none',
      reason: 'nothing-to-summarise',
    });
  });
});

describe('a rolling summary', () => {
  test('the previous summary is summarised again with the messages after it, and only those', () => {
    const messages = transcript(6);
    const previous: ConversationCompaction = {
      throughIndex: 4,
      summary: 'the task; two files read',
      iteration: 4,
      count: 1,
    };
    const decided = plan({ messages, iteration: 7, previous }, 100);
    expect(decided).toMatchObject({ kind: 'compact', throughIndex: 8, newlySummarised: 4 });
    expect(decided.kind === 'compact' && decided.summarise).toEqual([
      summaryMessage('the task; two files read'),
      ...messages.slice(5, 9),
    ]);
  });

  test('measured on what the model sees: a summary keeps a long conversation under the threshold', () => {
    const messages = transcript(6);
    const previous: ConversationCompaction = { throughIndex: 8, summary: 'short', iteration: 6, count: 1 };
    const seen = contextTokens(modelContext(messages, 0, previous, undefined).messages, undefined);
    expect(seen).toBeLessThan(contextTokens(messages, undefined));
    expect(plan({ messages, iteration: 7, previous }, seen)).toMatchObject({ kind: 'none', reason: 'below-threshold' });
  });

  test('nothing new to summarise past the previous cut: no compaction, even over the threshold', () => {
    const messages = transcript(4);
    const previous: ConversationCompaction = { throughIndex: 4, summary: ofTokens(1_000), iteration: 5, count: 1 };
    expect(plan({ messages, iteration: 5, previous }, 100)).toMatchObject({
      kind: 'none',
      reason: 'nothing-to-summarise',
    });
  });
});

describe('the summary message', () => {
  test('is a user message (its text retells untrusted tool output) under a heading', () => {
    expect(summaryMessage('done so far')).toEqual({
      role: 'user',
      content: `${COMPACTION_SUMMARY_HEADING}\n\ndone so far`,
    });
  });
});

describe('the longest summary', () => {
  test('is half of maxTokens, in characters, and never past 128 Ki characters', () => {
    expect(maxSummaryChars(256)).toBe(128 * 4);
    expect(maxSummaryChars(8_001)).toBe(4_000 * 4);
    expect(maxSummaryChars(10_000_000)).toBe(128 * 1024);
  });
});
