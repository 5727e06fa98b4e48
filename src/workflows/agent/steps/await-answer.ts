import type { Duration } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { RunContext } from '../run-context';
import { describeActivity } from '../run-record';
import { runAgain, type RunEnding, type StepOutcome } from '../step-outcome';
import { markInputSettled, markWaitingForInput, startTurn } from '../run-transitions';

/**
 * A tool asked a person a question (`ask_question`, `WaitForInput`): waits,
 * durably, for the `userMessage` signal. The answer starts a new turn (stop
 * conditions count afresh) and the run goes on; when `inputTimeout` passes
 * first, the run finishes with the question as its response.
 */
export async function awaitAnswer(
  context: RunContext,
  request: Extract<StepOutcome, { kind: 'wait_for_input' }>,
): Promise<RunEnding | typeof runAgain> {
  const { run, input, publish } = context;
  const { callId, question } = request;
  markWaitingForInput(run, { callId, question, askedAt: new Date().toISOString() });
  run.events.append('input-request', { callId, question });
  describeActivity(run, `waiting for an answer: ${question}`);
  publish(run);
  const limit = input.inputTimeout;
  const answered =
    limit === undefined
      ? (await wf.condition(() => run.inbox.length > 0), true)
      : await wf.condition(() => run.inbox.length > 0, limit as Duration);
  markInputSettled(run);
  publish(run);
  if (!answered) {
    run.events.append('input-timeout', { callId, limit: limit as Duration });
    return {
      kind: 'finish',
      reason: { type: 'input_timeout', question, limit: String(input.inputTimeout) },
      response: question,
    };
  }
  startTurn(run, new Date().getTime());
  return runAgain;
}
