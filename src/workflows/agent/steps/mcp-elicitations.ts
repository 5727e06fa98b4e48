import type { McpElicitationAnswer, McpElicitationRequest, McpElicitResult } from '../../../shared/mcp-elicitation';
import {
  answerElicitationInputSchema,
  elicitContentProblem,
  type AnswerElicitationInput,
  type ElicitationAnswered,
} from '../../../shared/mcp-elicitation-answer';
import { describeActivity, isFinished, type PendingElicitation, type RunRecord } from '../run-record';
import { markElicitationSettled, markWaitingForElicitation, recordElicitationAnswer } from '../run-transitions';

/**
 * An MCP server's questions during tool calls: signalled by the worker (`mcpElicitation`), shown like `ask_question`'s,
 * answered by the `answerElicitation` update (in older runs the next `userMessage`) and read back by the worker
 * (`mcpElicitationAnswer` query). The run only records, issuing no command, so older histories replay unchanged.
 */

/** Longest field of a question the run keeps; longer ones are cut (the worker sends them cut already). */
const MAX_FIELD_CHARS = 16_000;
/** Longest elicitation id (`<callId>#<n>`). */
const MAX_ID_CHARS = 200;

/**
 * A question arrived. Kept only while its call runs (a call of the open batch without a result): a late or forged
 * one is ignored, and the worker's query then reads `unknown` and declines. The same id again (a retried attempt
 * asking the same) changes nothing: answered, the worker reads the answer; pending, it still waits.
 */
export function receiveElicitation(run: RunRecord, raw: unknown, publish: () => void): void {
  const request = readRequest(raw);
  if (request === undefined || isFinished(run) || !callInFlight(run, request.callId)) return;
  const answered = run.elicitationAnswers.get(request.id);
  if (answered !== undefined && answered.question === request.question) return;
  run.elicitationAnswers.delete(request.id);
  const waiting = run.elicitations.find((pending) => pending.id === request.id);
  if (waiting !== undefined) {
    if (waiting.question === request.question) return;
    markElicitationSettled(run, waiting.id);
    run.events.append('mcp-elicitation-end', {
      callId: waiting.callId,
      elicitationId: waiting.id,
      outcome: 'replaced',
    });
  }
  const { id, callId, server, question, requestedSchema } = request;
  markWaitingForElicitation(run, {
    id,
    callId,
    server,
    question,
    askedAt: new Date().toISOString(),
    ...(requestedSchema === undefined ? {} : { requestedSchema }),
  });
  run.events.append('input-request', {
    callId,
    question,
    server,
    elicitationId: id,
    ...(requestedSchema === undefined ? {} : { requestedSchema }),
  });
  describeActivity(run, `waiting for an answer: ${question}`);
  publish();
}

/**
 * Why `input` cannot answer a waiting question (update `answerElicitation`), or the question it answers and the
 * result the server gets: a known, waiting question (the only one, when `elicitationId` is left out), and with
 * `accept` content that fills the server's form.
 */
export function checkElicitationAnswer(
  run: RunRecord,
  input: unknown,
):
  | { ok: true; pending: PendingElicitation; answer: AnswerElicitationInput; result: McpElicitResult }
  | { ok: false; problem: string } {
  if (isFinished(run)) return { ok: false, problem: `The run has ended (${run.status}); no question waits.` };
  const parsed = answerElicitationInputSchema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      problem: `expected { elicitationId?, action: "accept" | "decline" | "cancel", content?, by? }: ${parsed.error.issues
        .map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`)
        .join('; ')}`,
    };
  }
  const answer = parsed.data;
  const waiting = run.elicitations.map((pending) => pending.id).join(', ') || 'none';
  const pending =
    answer.elicitationId === undefined
      ? run.elicitations.length === 1
        ? run.elicitations[0]
        : undefined
      : run.elicitations.find((candidate) => candidate.id === answer.elicitationId);
  if (pending === undefined) {
    return {
      ok: false,
      problem:
        answer.elicitationId === undefined
          ? `Name the question (elicitationId): waiting: ${waiting}.`
          : `No MCP question "${answer.elicitationId}" is waiting (waiting: ${waiting}).`,
    };
  }
  if (answer.action !== 'accept') return { ok: true, pending, answer, result: { action: answer.action } };
  const result = { action: 'accept' as const, content: answer.content ?? {} };
  const schema = parsedSchema(pending.requestedSchema);
  const problem = schema === undefined ? undefined : elicitContentProblem(result, schema);
  return problem === undefined
    ? { ok: true, pending, answer, result }
    : { ok: false, problem: `The answer does not fit: ${problem}.` };
}

/** Records a checked answer ({@link checkElicitationAnswer}): the worker reads the result and hands it to the server. */
export function answerElicitationByUpdate(run: RunRecord, input: unknown, publish: () => void): ElicitationAnswered {
  const checked = checkElicitationAnswer(run, input);
  // The validator ran this check in the same state: a failure here is a bug, not a caller's mistake.
  if (!checked.ok) throw new Error(checked.problem);
  const { pending, answer, result } = checked;
  markElicitationSettled(run, pending.id);
  recordElicitationAnswer(run, pending, answer.action, result);
  run.events.append('mcp-elicitation-end', {
    callId: pending.callId,
    elicitationId: pending.id,
    outcome: 'answered',
    action: answer.action,
    by: { via: answer.by?.via ?? 'update', ...(answer.by?.name === undefined ? {} : { name: answer.by.name }) },
  });
  describeActivity(
    run,
    `iteration ${run.iteration}: answered (${answer.action}); the MCP server "${pending.server}" goes on`,
  );
  publish();
  return { elicitationId: pending.id, callId: pending.callId, action: answer.action };
}

/** Runs started before `answerElicitation`: a person's message answers the oldest waiting question, if any; returns whether it did. */
export function answerElicitation(run: RunRecord, content: string, publish: () => void): boolean {
  const first = run.elicitations[0];
  if (first === undefined) return false;
  markElicitationSettled(run, first.id);
  recordElicitationAnswer(run, first, content);
  run.events.append('user-message', { content });
  run.events.append('mcp-elicitation-end', { callId: first.callId, elicitationId: first.id, outcome: 'answered' });
  describeActivity(run, `iteration ${run.iteration}: answered; the MCP server "${first.server}" goes on`);
  publish();
  return true;
}

/** What the worker polling for `id` reads. */
export function elicitationAnswer(run: RunRecord, id: unknown): McpElicitationAnswer {
  if (typeof id !== 'string') return { status: 'unknown' };
  const answered = run.elicitationAnswers.get(id);
  if (answered !== undefined)
    return {
      status: 'answered',
      answer: answered.answer,
      ...(answered.result === undefined ? {} : { result: answered.result }),
    };
  return run.elicitations.some((pending) => pending.id === id) ? { status: 'pending' } : { status: 'unknown' };
}

/**
 * The call `callId` ended (or, without one, the run stopped): its questions no longer wait, and its answers are
 * dropped. Publishes only when a question was waiting.
 */
export function endCallElicitations(run: RunRecord, callId: string | undefined, publish: () => void): void {
  const ended = run.elicitations.filter((pending) => callId === undefined || pending.callId === callId);
  for (const pending of ended) {
    markElicitationSettled(run, pending.id);
    run.events.append('mcp-elicitation-end', {
      callId: pending.callId,
      elicitationId: pending.id,
      outcome: 'abandoned',
    });
  }
  for (const id of [...run.elicitationAnswers.keys()]) {
    if (callId === undefined || id.startsWith(`${callId}#`)) run.elicitationAnswers.delete(id);
  }
  if (ended.length > 0) publish();
}

/** Whether the call `callId` of the open batch is running (it has no result yet). */
export function callInFlight(run: RunRecord, callId: string): boolean {
  const batch = run.openBatch;
  return batch !== undefined && batch.calls.some((call) => call.id === callId) && !batch.results.has(callId);
}

function readRequest(raw: unknown): McpElicitationRequest | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { id, callId, server, question, requestedSchema } = raw as Record<string, unknown>;
  if (typeof id !== 'string' || typeof callId !== 'string' || typeof server !== 'string') return undefined;
  if (typeof question !== 'string' || question.trim() === '' || !id.startsWith(`${callId}#`)) return undefined;
  if (id.length > MAX_ID_CHARS) return undefined;
  return {
    id,
    callId,
    server: cut(server),
    question: cut(question),
    ...(typeof requestedSchema === 'string' && requestedSchema.length <= MAX_FIELD_CHARS ? { requestedSchema } : {}),
  };
}

/** The requested schema a question kept, parsed; undefined when it kept none (too long) or it is not JSON. */
function parsedSchema(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A forged question's schema: the server, which checks its own form, refuses what does not fit.
    return undefined;
  }
}

function cut(text: string): string {
  return text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}…` : text;
}
