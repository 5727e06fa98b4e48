import { argumentProblems } from '../../src/console-ui/argument-problems';
import { conversationOf, type RunEventView } from '../../src/console-ui/conversation';
import { summaryOf } from '../../src/console-ui/run-summary';

/** The console page's pure parts: the editor's check of modified arguments, and a run's events as a conversation. */
describe("the console's argument check", () => {
  const schema = {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  };

  test('valid arguments have no problem', () => {
    expect(argumentProblems('{"path":"a.md","content":"x"}', schema)).toEqual([]);
  });

  test('not JSON, not an object, or against the schema: each problem named where it is', () => {
    expect(argumentProblems('{"path":', schema)[0]).toMatch(/^Not JSON: /);
    expect(argumentProblems('[1]', schema)).toEqual(['The arguments must be an object.']);
    const problems = argumentProblems('{"path":5,"extra":true}', schema);
    expect(problems.some((problem) => problem.startsWith('#/path: '))).toBe(true);
    expect(problems.some((problem) => problem.includes('content'))).toBe(true);
  });

  test('without a schema, any object passes', () => {
    expect(argumentProblems('{"anything":[1,2]}', undefined)).toEqual([]);
  });
});

describe("a run's events as a conversation", () => {
  const at = '2026-01-01T00:00:00Z';
  const events: RunEventView[] = [
    { seq: 1, at, type: 'iteration-start', iteration: 1 },
    { seq: 2, at, type: 'model-response', iteration: 1, content: 'Writing it.' },
    {
      seq: 3,
      at,
      type: 'approval-decision',
      callId: 'c1',
      decision: 'approve',
      arguments: { path: 'b.md' },
      by: { name: 'alice', via: 'api' },
    },
    {
      seq: 4,
      at,
      type: 'tool-call-start',
      iteration: 1,
      callId: 'c1',
      toolName: 'write_file',
      arguments: { path: 'b.md' },
    },
    {
      seq: 5,
      at,
      type: 'tool-call-start',
      iteration: 1,
      callId: 'c2',
      toolName: 'research',
      arguments: { topic: 't' },
    },
    { seq: 6, at, type: 'nested-agent-start', iteration: 1, callId: 'c2', toolName: 'research', workflowId: 'child-1' },
    {
      seq: 7,
      at,
      type: 'tool-call-end',
      iteration: 1,
      callId: 'c1',
      toolName: 'write_file',
      output: 'ok',
      isError: false,
    },
    { seq: 8, at, type: 'input-request', callId: 'c3', question: 'Which file?' },
    { seq: 9, at, type: 'user-message', content: 'b.md' },
    { seq: 10, at, type: 'run-end', status: 'completed' },
  ];

  test('iterations, the model’s text, calls with their decision, result and nested run, questions and answers, the end', () => {
    expect(conversationOf(events)).toEqual([
      { kind: 'iteration', iteration: 1 },
      { kind: 'assistant', iteration: 1, text: 'Writing it.' },
      {
        kind: 'tool',
        iteration: 1,
        callId: 'c1',
        toolName: 'write_file',
        arguments: { path: 'b.md' },
        decision: 'approved by alice',
        output: 'ok',
        isError: false,
      },
      {
        kind: 'tool',
        iteration: 1,
        callId: 'c2',
        toolName: 'research',
        arguments: { topic: 't' },
        nestedRunId: 'child-1',
      },
      { kind: 'question', question: 'Which file?' },
      { kind: 'user', text: 'b.md' },
      { kind: 'end', status: 'completed' },
    ]);
  });

  test('a denied call, which never starts, shows with its request’s arguments and its decision', () => {
    expect(
      conversationOf([
        { seq: 1, at, type: 'iteration-start', iteration: 3 },
        { seq: 2, at, type: 'approval-request', callId: 'c9', toolName: 'write_file', arguments: { path: 'x' } },
        { seq: 3, at, type: 'approval-decision', callId: 'c9', decision: 'deny', by: { name: 'bob', via: 'api' } },
      ]),
    ).toEqual([
      { kind: 'iteration', iteration: 3 },
      {
        kind: 'tool',
        iteration: 3,
        callId: 'c9',
        toolName: 'write_file',
        arguments: { path: 'x' },
        decision: 'denied by bob',
      },
    ]);
  });
});

describe("a run's summary from its events", () => {
  const at = '2026-01-01T00:00:00Z';
  const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15, costUsd: 0.01 };

  test('waiting for a decision, then for an answer, then ended with the usage the end reports', () => {
    const events: RunEventView[] = [
      { seq: 1, at, type: 'iteration-start', iteration: 1 },
      { seq: 2, at, type: 'model-response', iteration: 1, usage },
      { seq: 3, at, type: 'approval-request', callId: 'c1' },
    ];
    expect(summaryOf(events)).toEqual({
      status: 'waiting_for_approval',
      iterations: 1,
      usage,
      pending: ['c1'],
    });
    events.push(
      { seq: 4, at, type: 'approval-decision', callId: 'c1', decision: 'approve' },
      { seq: 5, at, type: 'iteration-start', iteration: 2 },
      { seq: 6, at, type: 'model-response', iteration: 2, usage },
      { seq: 7, at, type: 'input-request', callId: 'c2', question: 'Which?', server: 'srv', elicitationId: 'e1' },
    );
    expect(summaryOf(events)).toMatchObject({
      status: 'waiting_for_input',
      iterations: 2,
      usage: { totalTokens: 30, costUsd: 0.02 },
      pending: [],
      question: { callId: 'c2', question: 'Which?', server: 'srv', elicitationId: 'e1' },
    });
    events.push(
      { seq: 8, at, type: 'mcp-elicitation-end', callId: 'c2' },
      { seq: 9, at, type: 'run-end', status: 'completed', usage: { ...usage, totalTokens: 31 } },
    );
    const ended = summaryOf(events);
    expect(ended).toMatchObject({ status: 'completed', usage: { totalTokens: 31 } });
    expect(ended.question).toBeUndefined();
  });
});
