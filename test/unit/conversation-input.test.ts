import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { CONVERSATION_INPUT_VERSION, type ChatTurnResult, type ConversationInput } from '../../src/shared/conversation';
import {
  conversationInputV1Schema,
  conversationInputV2Schema,
  readConversationInput,
  upgradeV1,
} from '../../src/workflows/conversation/conversation-input';

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

/** A turn remembered whole, as conversations kept them before message ranges. */
const wholeResult: ChatTurnResult = { ...answer, turn: 7, runId: 'an-earlier-run', generatedMessages: [{ sender: 'ai', message: 'from before' }] };

/**
 * A continue-as-new input exactly as the code before versions wrote it (no
 * `schemaVersion`, remembered turns told apart by their shape only).
 */
const versionOne = {
  contextId: 'c1',
  messages: history,
  turns: 8,
  recentTurns: [
    { updateId: 'older', result: wholeResult },
    { updateId: 'key-1', answer, messages: { from: 1, to: 2 } },
  ],
  generation: 'abcd1234',
  turnsPerRun: 2,
};

describe('the current version', () => {
  test('reads as itself, each remembered turn by its kind', () => {
    const current: ConversationInput = {
      schemaVersion: CONVERSATION_INPUT_VERSION,
      contextId: 'c1',
      messages: history,
      turns: 1,
      recentTurns: [
        { kind: 'wholeResult', updateId: 'older', result: wholeResult },
        { kind: 'messageRange', updateId: 'key-1', answer, messages: { from: 1, to: 2 } },
      ],
    };
    expect(CONVERSATION_INPUT_VERSION).toBe(2);
    expect(readConversationInput(current, [])).toEqual({ ok: true, input: current });
    expect(conversationInputV2Schema.safeParse(current).success).toBe(true);
  });

  test('a client starts a conversation with its id, generation and version', () => {
    const start = { schemaVersion: CONVERSATION_INPUT_VERSION, contextId: 'c1', generation: 'abcd1234' };
    expect(readConversationInput(start, [])).toEqual({ ok: true, input: start });
  });
});

describe('version 1, before inputs had a version', () => {
  test('the exact old shape is read and upgraded: each remembered turn tagged with the kind its shape is', () => {
    expect(conversationInputV1Schema.safeParse(versionOne).success).toBe(true);
    const upgraded = {
      ...versionOne,
      schemaVersion: 2,
      recentTurns: [
        { kind: 'wholeResult', updateId: 'older', result: wholeResult },
        { kind: 'messageRange', updateId: 'key-1', answer, messages: { from: 1, to: 2 } },
      ],
    };
    expect(readConversationInput(versionOne, [])).toEqual({ ok: true, input: upgraded });
    expect(upgradeV1(conversationInputV1Schema.parse(versionOne))).toEqual(upgraded);
  });

  test('a start without a version (a client on the older code, or `temporal workflow start`) is read', () => {
    expect(readConversationInput({ contextId: 'c1' }, [])).toEqual({ ok: true, input: { schemaVersion: 2, contextId: 'c1' } });
  });

  test('the input recorded in conversation.json (written before versions) is read', () => {
    const json: unknown = JSON.parse(readFileSync(path.join(__dirname, '..', 'replay', 'histories', 'conversation.json'), 'utf8'));
    const started = historyFromJSON(json).events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const recorded = started === undefined ? undefined : defaultPayloadConverter.fromPayload<object>(started);
    expect(recorded).toEqual({ contextId: 'recorded', generation: expect.any(String) });
    expect(readConversationInput(recorded, [])).toEqual({ ok: true, input: { schemaVersion: 2, ...recorded } });
  });
});

describe('a malformed input is a list of problems naming the field, never a throw', () => {
  test.each([
    ['null', [null], 'input: Invalid input: expected object, received null'],
    ['no contextId', [{ messages: [] }], 'contextId: Invalid input: expected string, received undefined'],
    ['a second argument', [{ contextId: 'c1' }, { garbage: true }], "arguments: conversationWorkflow takes one argument, the conversation's input, and was started with 2"],
    ['a version this worker does not know', [{ schemaVersion: 3, contextId: 'c1' }], 'schemaVersion: expected one of 1, 2 (the conversation input versions this worker reads), got 3'],
    ['a current remembered turn without its kind', [{ schemaVersion: 2, contextId: 'c1', recentTurns: [{ updateId: 'k', answer, messages: { from: 0, to: 1 } }] }], 'recentTurns.0.kind'],
    ['an old remembered turn of neither shape', [{ contextId: 'c1', recentTurns: [{ updateId: 'k' }] }], 'recentTurns.0: Invalid input'],
    ['a range that is not one', [{ ...versionOne, recentTurns: [{ updateId: 'k', answer, messages: { from: -1, to: 'x' } }] }], 'recentTurns.0'],
  ])('%s', (_name, [input, ...afterInput], expected) => {
    const read = readConversationInput(input, afterInput);
    expect(read.ok).toBe(false);
    expect(read.ok ? [] : read.problems).toEqual(expect.arrayContaining([expect.stringContaining(expected)]));
  });

  test('an input nested past the bound is refused before it is parsed', () => {
    let deep: unknown = {};
    for (let level = 0; level < 100; level += 1) deep = { deep };
    expect(readConversationInput({ contextId: 'c1', messages: [deep] }, [])).toEqual({ ok: false, problems: ['messages: nested more than 32 levels deep'] });
  });
});
