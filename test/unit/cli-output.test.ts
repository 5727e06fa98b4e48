import { describeEvent } from '../../src/cli/event-lines';
import { exitCodeForOutcome } from '../../src/cli/exit-codes';
import { describeOutcome } from '../../src/cli/outcome-lines';
import { createOutput } from '../../src/cli/output';
import { formatRunTable } from '../../src/cli/run-table';
import { shellWord } from '../../src/cli/steering-commands';
import type { RunOutcome } from '../../src/run-control';
import type { AgentResult, RunEvent } from '../../src/shared';

const event = (type: string, details: Record<string, unknown>): RunEvent => ({ seq: 1, at: '2025-01-01T00:00:00.000Z', type, ...details });

describe('event lines', () => {
  test('an approval request comes with the exact commands that decide it, quoted for the shell', () => {
    expect(describeEvent(event('approval-request', { callId: 'call_1', toolName: 'write_file', arguments: { path: 'a.md' } }), "team's run")).toEqual([
      '  ? write_file {"path":"a.md"} needs approval (call call_1). Decide from another terminal:',
      "      agent-runner approve 'team'\\''s run' call_1",
      `      agent-runner deny 'team'\\''s run' call_1 --reason "..."`,
    ]);
  });

  test('tool calls, results, decisions and iterations', () => {
    const lines = [
      event('iteration-start', { iteration: 2 }),
      event('tool-call-start', { callId: 'c', toolName: 'calculator', arguments: '{"expression": "1+1"}' }),
      event('tool-call-end', { callId: 'c', toolName: 'calculator', durationMs: 12, isError: true, output: 'Error:\n bad' }),
      event('approval-decision', { callId: 'c', toolName: 'write_file', decision: 'approve', arguments: { a: 2 }, originalArguments: { a: 1 }, via: 'signal' }),
      event('approval-decision', { callId: 'c', toolName: 'write_file', decision: 'deny', reason: 'no decision within 1m', via: 'timeout' }),
      event('run-end', { status: 'completed' }),
      event('something-new', { detail: 1 }),
    ].flatMap((item) => describeEvent(item, 'run'));
    expect(lines).toEqual([
      '[iteration 2] calling the model…',
      '  → calculator {"expression": "1+1"}',
      '  ✗ calculator (12 ms): Error: bad',
      '  ✓ approved write_file (call c) with arguments {"a":2} (by signal)',
      '  ✗ denied write_file (call c): no decision within 1m (no decision in time)',
      '  something-new {"detail":1}',
    ]);
  });
});

describe('outcomes', () => {
  const result = {
    response: 'All done.',
    terminationReason: { type: 'terminating_tool', toolName: 'finish', callId: 'c' },
    iterations: 1,
    usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
  } as AgentResult;

  test('each kind has its line and its exit code', () => {
    expect(describeOutcome({ kind: 'completed', result })).toEqual([
      '',
      'Response: All done.',
      'Completed: terminating_tool (finish was called) · 1 iteration · 12 tokens (10 prompt, 2 completion).',
    ]);
    const failed: RunOutcome = { kind: 'failed', type: 'MaxInvocationsExceeded', message: 'Max invocations exceeded', details: [{ iterations: 3, usage: result.usage }] };
    expect(describeOutcome(failed)[1]).toBe('Failed (MaxInvocationsExceeded): Max invocations exceeded · 3 iterations · 12 tokens (10 prompt, 2 completion).');
    // A message that is a sentence of its own keeps one full stop, after the cost.
    const tooLarge: RunOutcome = { kind: 'failed', type: 'ContextTooLarge', message: 'The conversation is too large. Split the work.', details: [{ iterations: 3, usage: result.usage }] };
    expect(describeOutcome(tooLarge)[1]).toBe('Failed (ContextTooLarge): The conversation is too large. Split the work · 3 iterations · 12 tokens (10 prompt, 2 completion).');
    expect(describeOutcome({ kind: 'terminated', reason: 'terminated in Temporal: no reason given' })).toEqual(['', 'Terminated: terminated in Temporal: no reason given.']);
    expect([
      exitCodeForOutcome({ kind: 'completed', result }),
      exitCodeForOutcome(failed),
      exitCodeForOutcome({ kind: 'failed', type: 'InvalidAgentInput', message: '', details: [] }),
      exitCodeForOutcome({ kind: 'terminated', reason: 'x' }),
    ]).toEqual([0, 1, 2, 3]);
  });
});

describe('output', () => {
  test('under --json, notices go to stderr so stdout stays NDJSON; held lines come out in order', () => {
    const written = { stdout: '', stderr: '' };
    const output = createOutput(true, { stdout: { write: (text: string) => (written.stdout += text) }, stderr: { write: (text: string) => (written.stderr += text) } });
    output.notice('Started run r');
    output.hold();
    output.jsonLine({ seq: 1 });
    expect(written.stdout).toBe('');
    output.release();
    output.jsonLine({ seq: 2 });
    expect(written).toEqual({ stdout: '{"seq":1}\n{"seq":2}\n', stderr: 'Started run r\n' });
  });

  test('the run table lines up its columns', () => {
    expect(
      formatRunTable([
        { workflowId: 'a', runId: 'r', temporalStatus: 'RUNNING', status: 'waiting_for_approval', iterations: 1, totalTokens: 120, pendingApprovals: 1, startTime: '2025-01-01T10:00:00.123Z' },
        { workflowId: 'longer-id', runId: 'r', temporalStatus: 'TERMINATED', startTime: '2025-01-01T09:00:00.000Z' },
      ]),
    ).toEqual([
      'ID         STATUS                ITERATIONS  TOKENS  PENDING  STARTED',
      'a          waiting_for_approval  1           120     1        2025-01-01 10:00:00Z',
      'longer-id  terminated            -           -       -        2025-01-01 09:00:00Z',
    ]);
    expect(formatRunTable([])).toEqual(['No runs match.']);
  });

  test('shell words: safe ones stay bare', () => {
    expect(shellWord('agent-1b2c')).toBe('agent-1b2c');
    expect(shellWord('a b')).toBe("'a b'");
  });
});
