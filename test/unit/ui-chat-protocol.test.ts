import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { UIMessageChunk } from 'ai';
import {
  approvalIdOf,
  bindingProblem,
  readApprovalId,
  signApproval,
  verifyApprovalSignature,
} from '../../src/api/approval-binding';
import { ChunkTranslator } from '../../src/api/ui-chat/chunk-translator';
import type { UiMessageChunk } from '../../src/api/ui-chat/ui-message-chunks';
import type { ModelStreamEvent } from '../../src/shared/model-stream-events';
import type { RunEvent } from '../../src/shared/run-events';

/** True only when every `A` is a `B`: the compiler checks this file, so a chunk type that drifts fails the test run. */
type Assignable<A, B> = [A] extends [B] ? true : false;

describe('our UI message chunks', () => {
  test('are assignable to the `ai` package’s UIMessageChunk (7.0.173)', () => {
    const assignable: Assignable<UiMessageChunk, UIMessageChunk> = true;
    const reverse: Assignable<UIMessageChunk, UiMessageChunk> = false;
    expect([assignable, reverse]).toEqual([true, false]);
  });
});

describe('approval ids', () => {
  const call = { contextId: 'chat-1', runId: 'conversation:chat-1:abcd1234:turn-2', callId: 'call-1-1' };

  test('name the chat, the run and the call, and read back', () => {
    const id = approvalIdOf(call);
    expect(readApprovalId(id)).toEqual(call);
    expect(bindingProblem(id, { contextId: 'chat-1', activeRunId: call.runId })).toEqual({ call });
  });

  test('refuse another chat’s call, an earlier turn’s, and ids this API did not write', () => {
    const id = approvalIdOf(call);
    expect(bindingProblem(id, { contextId: 'chat-2', activeRunId: call.runId })).toEqual({
      problem: 'the approval belongs to another chat',
    });
    expect(bindingProblem(id, { contextId: 'chat-1', activeRunId: 'conversation:chat-1:abcd1234:turn-3' })).toEqual({
      problem: "the approval belongs to a turn that is not this chat's turn in progress",
    });
    expect(bindingProblem(id, { contextId: 'chat-1', activeRunId: undefined })).toHaveProperty('problem');
    for (const forged of ['approval-1', 'apr1_', 'apr1_!!!', `apr1_${Buffer.from('[1,2,3]').toString('base64url')}`])
      expect(readApprovalId(forged)).toBeUndefined();
  });

  test('are signed as the AI SDK signs approvals: each side verifies the other’s signature', () => {
    const approval = {
      approvalId: approvalIdOf(call),
      toolCallId: call.callId,
      toolName: 'calculator',
      input: { expression: '6 * 7', nested: { b: 1, a: [1, null] } },
    };
    const secret = 'a-secret-of-the-server';
    const ours = signApproval(secret, approval);
    const script = path.join(__dirname, '../helpers/ai-approval-signature.mjs');
    const sdk = JSON.parse(
      execFileSync(process.execPath, [script, JSON.stringify({ secret, signature: ours, ...approval })], {
        encoding: 'utf8',
        timeout: 30_000,
      }),
    ) as { signature: string; verifies: boolean };
    expect(sdk.verifies).toBe(true);
    expect(verifyApprovalSignature(secret, sdk.signature, approval)).toBe(true);
    expect(verifyApprovalSignature(secret, ours, { ...approval, input: { expression: '6 * 8' } })).toBe(false);
    expect(verifyApprovalSignature('another-secret', ours, approval)).toBe(false);
  });
});

describe('ChunkTranslator', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const source = { activityId: '1', attempt: 1 };
  const run = (events: Array<RunEvent | ModelStreamEvent>) => {
    const translator = new ChunkTranslator();
    return events.flatMap((event) => translator.translate(event).chunks);
  };

  test('a retried attempt resets its step; tool-call deltas open the call under the runner’s id', () => {
    const chunks = run([
      { seq: 1, at, type: 'iteration-start', iteration: 3, messages: 2 },
      { type: 'model-text-delta', ...source, index: 0, text: 'Half' },
      { type: 'model-delta-reset', ...source, reason: 'the attempt failed' },
      {
        type: 'model-tool-call-delta',
        ...source,
        attempt: 2,
        index: 0,
        toolIndex: 0,
        id: 'call_x',
        name: 'calculator',
      },
      { type: 'model-tool-call-delta', ...source, attempt: 2, index: 1, toolIndex: 0, arguments: '{"expression":"1"}' },
      {
        seq: 2,
        at,
        type: 'tool-call-start',
        iteration: 3,
        callId: 'call-3-1',
        toolName: 'calculator',
        arguments: { expression: '1' },
      },
      {
        seq: 3,
        at,
        type: 'tool-call-end',
        iteration: 3,
        callId: 'call-3-1',
        toolName: 'calculator',
        durationMs: 1,
        isError: false,
        output: '1',
      },
    ]);
    expect(chunks).toEqual([
      { type: 'start-step' },
      { type: 'text-start', id: 'text-1' },
      { type: 'text-delta', id: 'text-1', delta: 'Half' },
      { type: 'reset-step' },
      { type: 'tool-input-start', toolCallId: 'call-3-1', toolName: 'calculator', dynamic: true },
      { type: 'tool-input-delta', toolCallId: 'call-3-1', inputTextDelta: '{"expression":"1"}' },
      {
        type: 'tool-input-available',
        toolCallId: 'call-3-1',
        toolName: 'calculator',
        input: { expression: '1' },
        dynamic: true,
      },
      { type: 'tool-output-available', toolCallId: 'call-3-1', output: '1', dynamic: true },
    ]);
  });

  test('a follower without deltas shows the logged text; broken arguments are an input error', () => {
    const chunks = run([
      { seq: 1, at, type: 'iteration-start', iteration: 1, messages: 1 },
      {
        seq: 2,
        at,
        type: 'model-response',
        iteration: 1,
        toolCalls: ['calculator'],
        content: 'Let me see.',
        usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
      },
      {
        seq: 3,
        at,
        type: 'tool-call-start',
        iteration: 1,
        callId: 'call-1-1',
        toolName: 'calculator',
        argumentsText: '{"expression":',
      },
    ] as Array<RunEvent | ModelStreamEvent>);
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-error',
    ]);
  });
});
