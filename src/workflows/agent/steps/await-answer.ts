import type { Duration } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { RunContext } from '../run-context';
import { describeActivity, refreshStatus } from '../run-record';

/**
 * Seed 004's `ask_question`: waits, durably, for the `userMessage` signal.
 * The answer starts a new turn (stop conditions count afresh). False when
 * `inputTimeout` passed first.
 */
export async function awaitAnswer(context: RunContext, callId: string, question: string): Promise<boolean> {
  const { run, input, publish } = context;
  run.pendingQuestion = { callId, question, askedAt: new Date().toISOString() };
  run.events.append('input-request', { callId, question });
  refreshStatus(run);
  describeActivity(run, `waiting for an answer: ${question}`);
  publish(run);
  const limit = input.inputTimeout;
  const answered =
    limit === undefined
      ? (await wf.condition(() => run.inbox.length > 0), true)
      : await wf.condition(() => run.inbox.length > 0, limit as Duration);
  run.pendingQuestion = undefined;
  refreshStatus(run);
  publish(run);
  if (!answered) {
    run.events.append('input-timeout', { callId, limit: limit as Duration });
    return false;
  }
  run.turn = {
    startedAtMs: new Date().getTime(),
    messageIndex: run.messages.length,
    iteration: run.iteration,
    usage: run.usage,
    executedTools: [],
  };
  return true;
}
