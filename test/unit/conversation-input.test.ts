import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { CONVERSATION_INPUT_VERSION, type ConversationInput } from '../../src/shared/conversation';
import { conversationInputSchema, readConversationInput } from '../../src/workflows/conversation/conversation-input';

const history = [
  { role: 'user' as const, content: 'hi' },
  { role: 'assistant' as const, content: 'hello', meta: { iteration: 1 } },
];

const answer = {
  response: 'hello',
  savedAiMessages: true,
  turn: 1,
  runId: 'conversation:c1:abcd1234:turn-1',
  terminationReason: { type: 'complete' as const },
  usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
};

/** A continue-as-new input of the current version, as a conversation hands itself over. */
const current: ConversationInput = {
  schemaVersion: CONVERSATION_INPUT_VERSION,
  contextId: 'c1',
  messages: history,
  turns: 8,
  recentTurns: [{ kind: 'messageRange', updateId: 'key-1', answer, messages: { from: 1, to: 2 } }],
  generation: 'abcd1234',
  turnsPerRun: 2,
};

describe('the current version', () => {
  test('reads as itself, with its remembered turns', () => {
    expect(CONVERSATION_INPUT_VERSION).toBe(2);
    expect(readConversationInput(current, [])).toEqual({ ok: true, input: current });
    expect(conversationInputSchema.safeParse(current).success).toBe(true);
  });

  test('a client starts a conversation with its id, generation and version', () => {
    const start = { schemaVersion: CONVERSATION_INPUT_VERSION, contextId: 'c1', generation: 'abcd1234' };
    expect(readConversationInput(start, [])).toEqual({ ok: true, input: start });
  });
});

describe('the recorded history', () => {
  test('the input recorded in conversation.json is of the current version, and read', () => {
    const json: unknown = JSON.parse(
      readFileSync(path.join(__dirname, '..', 'replay', 'histories', 'conversation.json'), 'utf8'),
    );
    const started = historyFromJSON(json).events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const recorded = started === undefined ? undefined : defaultPayloadConverter.fromPayload<object>(started);
    expect(recorded).toEqual({
      schemaVersion: CONVERSATION_INPUT_VERSION,
      contextId: 'recorded',
      generation: expect.any(String),
    });
    expect(readConversationInput(recorded, [])).toEqual({ ok: true, input: recorded });
  });
});

describe('a malformed input is a list of problems naming the field, never a throw', () => {
  test.each([
    ['null', [null], 'schemaVersion: expected one of 2 (the conversation input versions this worker reads), got none'],
    [
      'no contextId',
      [{ schemaVersion: 2, messages: [] }],
      'contextId: Invalid input: expected string, received undefined',
    ],
    [
      'a second argument',
      [{ contextId: 'c1' }, { garbage: true }],
      "arguments: conversationWorkflow takes one argument, the conversation's input, and was started with 2",
    ],
    [
      'a version this worker does not know',
      [{ schemaVersion: 3, contextId: 'c1' }],
      'schemaVersion: expected one of 2 (the conversation input versions this worker reads), got 3',
    ],
    [
      'no version (version 1 never left development)',
      [{ contextId: 'c1' }],
      'schemaVersion: expected one of 2 (the conversation input versions this worker reads), got none',
    ],
    [
      'a remembered turn without its kind',
      [{ schemaVersion: 2, contextId: 'c1', recentTurns: [{ updateId: 'k', answer, messages: { from: 0, to: 1 } }] }],
      'recentTurns.0.kind',
    ],
    [
      'a remembered whole result, as version 1 kept some',
      [{ ...current, recentTurns: [{ kind: 'wholeResult', updateId: 'k', result: answer }] }],
      'recentTurns.0.kind',
    ],
    [
      'a range that is not one',
      [{ ...current, recentTurns: [{ kind: 'messageRange', updateId: 'k', answer, messages: { from: -1, to: 'x' } }] }],
      'recentTurns.0',
    ],
  ])('%s', (_name, [input, ...afterInput], expected) => {
    const read = readConversationInput(input, afterInput);
    expect(read.ok).toBe(false);
    expect(read.ok ? [] : read.problems).toEqual(expect.arrayContaining([expect.stringContaining(expected)]));
  });

  test('an input nested past the bound is refused before it is parsed', () => {
    let deep: unknown = {};
    for (let level = 0; level < 100; level += 1) deep = { deep };
    expect(readConversationInput({ schemaVersion: 2, contextId: 'c1', messages: [deep] }, [])).toEqual({
      ok: false,
      problems: ['messages: nested more than 32 levels deep'],
    });
  });
});
