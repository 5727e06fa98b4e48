import { runUsage } from '../run-record';
import * as wf from '@temporalio/workflow';
import { findLimitBreach } from '../../rules/limit-rules';
import { findSizeBreach, projectedRunBytes } from '../../rules/size-rules';
import { userMessage } from '../conversation-messages';
import { costBudgetExceeded, maxInvocationsExceeded, sizeLimitReached, tokenBudgetExhausted } from '../failures';
import { findCostBreach } from '../../rules/cost-budget';
import type { RunContext } from '../run-context';
import { canLeaveSummarisedBehind, shouldContinueAsNew } from '../continue-as-new-state';
import type { RunEnding } from '../step-outcome';
import { appendMessages, takeInbox } from '../run-transitions';

/**
 * Before each iteration: messages sent meanwhile join the conversation, then limits, size limits and continue-as-new
 * may end this Temporal run; `undefined` goes on.
 */
export function admitIteration(context: RunContext, firstIteration: number): RunEnding | undefined {
  const { run, input, partial } = context;
  appendMessages(run, ...takeInbox(run).map(userMessage));
  // Nested agents' tokens count against the run's budget: the budget is the tree's.
  const usage = runUsage(run);
  const breach = findLimitBreach(run.invocations, usage, run.limits);
  if (breach?.kind === 'invocations') return { kind: 'fail', failure: maxInvocationsExceeded(breach.limit, partial()) };
  if (breach?.kind === 'tokens') return { kind: 'fail', failure: tokenBudgetExhausted(breach, partial()) };
  // Both budgets count the nested agents' spending too.
  const costBreach = findCostBreach(usage, input.costBudget);
  if (costBreach !== undefined) return { kind: 'fail', failure: costBudgetExceeded(costBreach, partial()) };
  const iterationsThisRun = run.iteration - firstIteration;
  const info = wf.workflowInfo();
  const projected = projectedRunBytes(run.messages, run.inputMessageCount, input.instructions);
  const tooLarge = findSizeBreach(projected, { bytes: info.historySize, events: info.historyLength });
  // A history too large is what continue-as-new is for; only a Temporal run that has not run an iteration fails on it.
  if (tooLarge?.kind === 'history' && iterationsThisRun >= 1) return { kind: 'continue_as_new' };
  // So is a conversation that has grown too large to carry when a compaction summarised part of it: continue-as-new
  // leaves that part behind. If the rest is still too large, the next Temporal run fails on it before its first call.
  if (tooLarge?.kind === 'context' && iterationsThisRun >= 1 && canLeaveSummarisedBehind(context))
    return { kind: 'continue_as_new' };
  if (tooLarge !== undefined) return { kind: 'fail', failure: sizeLimitReached(tooLarge, partial()) };
  // Between iterations nothing waits for a decision or an answer: the place to continue as new.
  if (shouldContinueAsNew(iterationsThisRun, input.iterationsPerRun, info.continueAsNewSuggested))
    return { kind: 'continue_as_new' };
  return undefined;
}
