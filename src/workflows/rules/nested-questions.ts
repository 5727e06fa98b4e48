import { type NestedQuestion } from '../../shared/control';
import { INPUT_BOUNDS } from '../../shared/defaults/input-bounds';
import { type NestedRun } from './nested-approvals';

/**
 * Nested agents' MCP questions, as pure rules: a nested agent reports the questions it (and its own children) waits
 * on with its approvals, each naming the run that waits; its parent lists them in its state, so an operator finds
 * them from the run they started and answers them on the run named.
 */

/** Longest text of a reported question's field the parent keeps; longer ones make the report ignored. */
const MAX_FIELD_CHARS = 16_000;

/** Questions of running nested agents as the parent lists them: each names the run that waits, to answer there. */
export function listedNestedQuestions(nestedRuns: ReadonlyMap<string, NestedRun>): NestedQuestion[] {
  return [...nestedRuns.values()].flatMap((nested) => nested.questions ?? []);
}

/**
 * The `questions` of a `nestedApprovals` signal checked: plain shape, bounded size, and each naming `workflowId` or
 * a run below it (`<workflowId>/...`). Undefined when absent or malformed: the parent then keeps what it had.
 */
export function readNestedQuestions(raw: unknown, workflowId: string): NestedQuestion[] | undefined {
  if (!Array.isArray(raw) || raw.length > INPUT_BOUNDS.toolCallsPerMessage * INPUT_BOUNDS.tools) return undefined;
  const valid = raw.every((question: unknown) => {
    if (typeof question !== 'object' || question === null) return false;
    const fields = question as Record<string, unknown>;
    const texts = ['workflowId', 'callId', 'elicitationId', 'server', 'question', 'askedAt'].map((key) => fields[key]);
    if (!texts.every((text) => typeof text === 'string' && text.length <= MAX_FIELD_CHARS)) return false;
    const waiting = fields.workflowId as string;
    return waiting === workflowId || waiting.startsWith(`${workflowId}/`);
  });
  if (!valid) return undefined;
  return (raw as NestedQuestion[]).map(({ workflowId: waiting, callId, elicitationId, server, question, askedAt }) => ({
    workflowId: waiting,
    callId,
    elicitationId,
    server,
    question,
    askedAt,
  }));
}

/** A key that changes when the list of waiting questions does: a run reports to its parent only then. */
export function questionsKey(questions: readonly NestedQuestion[]): string {
  return questions.map((question) => `${question.workflowId}#${question.elicitationId}`).join('\n');
}
