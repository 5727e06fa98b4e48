import type { AssistantMessage, ToolCall } from '../../../shared/messages';
import { decideModelTurn, type TurnPolicy } from '../../rules/model-turn';
import { inject } from '../conversation-messages';
import { maxConsecutiveNudgesExceeded } from '../failures';
import type { RunContext } from '../run-context';
import { runAgain, type StepOutcome } from '../step-outcome';
import { applyStopWhen } from './apply-stop-when';
import { takeOutputAnswer } from './take-output-answer';

/**
 * What the model's answer, recorded in the run, means: `stopWhen` may end the
 * run before its calls run; tool calls are run next (`run_tools`); a text
 * answer meets the turn rules (restricted output, nudging) or is the
 * response. The turn counters the rules return are stored here, for every
 * answer.
 */
export function takeModelAnswer(
  context: RunContext,
  policy: TurnPolicy,
  assistant: AssistantMessage,
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
      return { kind: 'finish', reason: { type: 'complete' }, response: turn.text };
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
