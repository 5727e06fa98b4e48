import { decideModelTurn, type TurnPolicy } from '../rules/model-turn';
import type { RunTools } from '../rules/run-setup';
import { inject } from './conversation-messages';
import { maxConsecutiveNudgesExceeded } from './failures';
import type { RunContext } from './run-context';
import { describeActivity } from './run-record';
import { runAgain, type StepOutcome } from './step-outcome';
import { admitIteration } from './steps/admit-iteration';
import { applyStopWhen } from './steps/apply-stop-when';
import { askModel } from './steps/call-model';
import { runTools } from './steps/run-tools';

/** What an iteration needs that the run derives once, before the first. */
export interface IterationSetup {
  tools: RunTools;
  turnPolicy: TurnPolicy;
  /** The iteration this Temporal run started after (continue-as-new counts from there). */
  firstIteration: number;
}

/**
 * One iteration of the loop: call the model, then do what its answer says —
 * run its tool calls, or meet a text answer with the turn rules (restricted
 * output, nudging) or take it as the response. Returns what the run does
 * next; the workflow settles it.
 */
export async function runIteration(context: RunContext, setup: IterationSetup): Promise<StepOutcome> {
  const { run } = context;
  const admitted = admitIteration(context, setup.firstIteration);
  if (admitted !== undefined) return admitted;

  run.iteration += 1;
  run.events.append('iteration-start', { iteration: run.iteration, messages: run.messages.length });
  describeActivity(run, `iteration ${run.iteration}: calling the model`);
  const answer = await askModel(context);
  if (answer.kind === 'fail') return answer;
  const { assistant } = answer;

  const stopped = applyStopWhen(context, assistant.tool_calls ?? []);
  if (stopped !== undefined) return stopped;

  const turn = decideModelTurn(assistant, run, setup.turnPolicy);
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
      return runTools(context, setup.tools, assistant, turn.calls, answer.approvalRequired);
  }
}
