import * as wf from '@temporalio/workflow';
import type { AssistantMessage, ToolCall } from '../../../shared/messages';
import { DEFAULT_CONTINUATION_MESSAGE } from '../../../shared/defaults/model-settings';
import {
  ANSWER_TRUNCATION_PATCH,
  LENGTH_FINISH_REASON,
  continuedAnswer,
  decideTruncatedAnswer,
} from '../../rules/answer-truncation';
import { decideModelTurn, type TurnPolicy } from '../../rules/model-turn';
import { inject } from '../conversation-messages';
import { answerTruncated, maxConsecutiveNudgesExceeded } from '../failures';
import type { RunContext } from '../run-context';
import { runAgain, type StepOutcome } from '../step-outcome';
import { applyStopWhen } from './apply-stop-when';
import { takeOutputAnswer } from './take-output-answer';

/**
 * What the recorded model answer means: `stopWhen` may end the run first; tool calls run next; a text answer meets the
 * turn rules or is the response, cut answers handled as `answerTruncation` says. The turn counters are stored here.
 */
export function takeModelAnswer(
  context: RunContext,
  policy: TurnPolicy,
  assistant: AssistantMessage,
  finishReason: string | null = null,
): StepOutcome | { kind: 'run_tools'; calls: ToolCall[] } {
  const { run } = context;
  const stopped = applyStopWhen(context, assistant.tool_calls ?? []);
  if (stopped !== undefined) return stopped;
  // A run with an output schema ends only with a valid answer: that rule comes before the turn rules.
  const output = takeOutputAnswer(context, assistant);
  if (output !== undefined) return output;

  const turn = decideModelTurn(assistant, run, policy);
  run.consecutiveNudges = turn.counters.consecutiveNudges;
  run.restrictionInjections = turn.counters.restrictionInjections;
  switch (turn.kind) {
    case 'final_output':
      return finalAnswer(context, turn.text, finishReason);
    case 'restrict':
      inject(run, 'restriction', turn.message);
      return runAgain;
    case 'nudge':
      inject(run, turn.injected, turn.message);
      return runAgain;
    case 'nudges_exceeded':
      return { kind: 'fail', failure: maxConsecutiveNudgesExceeded(turn.limit, context.partial()) };
    case 'run_tools':
      return { kind: 'run_tools', calls: turn.calls };
  }
}

/** The run's answer: the model's text, its continued parts joined; a cut one continued, failed or accepted. */
function finalAnswer(context: RunContext, text: string, finishReason: string | null): StepOutcome {
  const { run, input } = context;
  const answer = continuedAnswer(run.messages);
  const response = answer.continuations > 0 ? answer.text : text;
  // Asked only of a cut answer: a run that never meets one records no marker, and one recorded before completed with it.
  if (finishReason !== LENGTH_FINISH_REASON || !wf.patched(ANSWER_TRUNCATION_PATCH))
    return { kind: 'finish', reason: { type: 'complete' }, response };
  const decision = decideTruncatedAnswer(input.answerTruncation, answer.continuations);
  switch (decision.kind) {
    case 'continue':
      inject(run, 'continuation', DEFAULT_CONTINUATION_MESSAGE);
      return runAgain;
    case 'accept':
      return { kind: 'finish', reason: { type: 'complete' }, response, truncated: true };
    case 'fail':
      return {
        kind: 'fail',
        failure: answerTruncated(
          { continuations: decision.continuations, maxContinuations: decision.maxContinuations, response },
          context.partial(),
        ),
      };
  }
}
