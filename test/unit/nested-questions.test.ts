import type { NestedQuestion } from '../../src/shared/control';
import type { NestedRun } from '../../src/workflows/rules/nested-approvals';
import { listedNestedQuestions, questionsKey, readNestedQuestions } from '../../src/workflows/rules/nested-questions';

/** Nested agents' MCP questions as their parent reads and lists them. */

const question = (workflowId: string, elicitationId = 'call-1-1#1'): NestedQuestion => ({
  workflowId,
  callId: 'call-1-1',
  elicitationId,
  server: 'everything',
  question: 'Name?',
  askedAt: '2026-01-01T00:00:00.000Z',
});

test('a report of the child or of a run below it is read; one naming another run is ignored', () => {
  const child = 'parent/call-1-1';
  expect(readNestedQuestions([question(child), question(`${child}/call-2-1`)], child)).toEqual([
    question(child),
    question(`${child}/call-2-1`),
  ]);
  expect(readNestedQuestions([question('parent/call-1-10')], child)).toBeUndefined();
  expect(readNestedQuestions([{ ...question(child), question: 7 }], child)).toBeUndefined();
  expect(readNestedQuestions(undefined, child)).toBeUndefined();
});

test("a read question keeps only the listed fields, and the parent lists every running child's", () => {
  const child = 'parent/call-1-1';
  expect(readNestedQuestions([{ ...question(child), extra: 'x' }], child)).toEqual([question(child)]);
  const runs = new Map<string, NestedRun>([
    [child, { callId: 'call-1-1', toolName: 'asker', approvals: [], questions: [question(child)] }],
    ['parent/call-1-2', { callId: 'call-1-2', toolName: 'asker', approvals: [] }],
  ]);
  expect(listedNestedQuestions(runs)).toEqual([question(child)]);
});

test('the key changes with the questions waiting', () => {
  expect(questionsKey([question('a'), question('a', 'call-1-1#2')])).toBe('a#call-1-1#1\na#call-1-1#2');
  expect(questionsKey([])).toBe('');
});
