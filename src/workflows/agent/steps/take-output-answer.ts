import type { AssistantMessage, ToolCall } from '../../../shared/messages';
import type { ToolCallResult } from '../../../shared/activity-types';
import {
  answerNotAloneMessage,
  decideOutputAnswer,
  decideToolOutput,
  outputPolicyFor,
  type AnswerVerdict,
} from '../../rules/output-answer';
import { inject } from '../conversation-messages';
import { outputInvalid } from '../failures';
import type { RunContext } from '../run-context';
import { appendMessages } from '../run-transitions';
import { runAgain, type StepOutcome } from '../step-outcome';

/** The answer tool's message when the answer is taken. */
const ANSWER_TAKEN = 'Final answer accepted.';

/**
 * Structured output (`rules/output-answer.ts`): what the model's answer means for a run with `output`, before the
 * turn rules see it. `undefined` when the run has no output schema or the answer calls other tools.
 */
export function takeOutputAnswer(context: RunContext, assistant: AssistantMessage): StepOutcome | undefined {
  const policy = outputPolicyFor(context.input);
  if (policy === undefined) return undefined;
  const decision = decideOutputAnswer(assistant, context.run.outputCorrections ?? 0, policy);
  if (decision.kind === 'not_an_answer') return undefined;
  return applyDecision(context, decision, { type: 'complete' });
}

/**
 * A batch that ended the run (a terminating tool, a `TerminateResponse`) in a run with `output`: the run ends only
 * when the tool's output is a valid answer, and goes on with a correction otherwise. Without `output`, the ending.
 */
export function outputOfEnding(context: RunContext, ending: Extract<StepOutcome, { kind: 'finish' }>): StepOutcome {
  const policy = outputPolicyFor(context.input);
  if (policy === undefined || !('toolName' in ending.reason)) return ending;
  const decision = decideToolOutput(
    ending.reason.toolName,
    ending.response,
    context.run.outputCorrections ?? 0,
    policy,
  );
  return applyDecision(context, decision, ending.reason, ending.reason.toolName);
}

/** Whether `call` is the answer tool's, in a run that offers one: it is answered in the workflow, not run. */
export function isAnswerToolCall({ input }: RunContext, call: ToolCall): boolean {
  return input.output?.mode === 'tool' && call.function.name === input.output.name;
}

/** The answer tool called together with other tools: not taken, the model is told to call it alone. */
export function answerNotAlone({ input }: RunContext): ToolCallResult {
  return { content: answerNotAloneMessage(input.output?.name ?? ''), isError: true, terminate: false };
}

function applyDecision(
  context: RunContext,
  decision: AnswerVerdict,
  reason: Extract<StepOutcome, { kind: 'finish' }>['reason'],
  toolName?: string,
): StepOutcome {
  const { run } = context;
  if (decision.kind === 'accept') {
    if (decision.callId !== undefined) answerCall(context, decision.callId, ANSWER_TAKEN);
    return { kind: 'finish', reason, response: JSON.stringify(decision.value), output: { value: decision.value } };
  }
  run.outputCorrections = decision.corrections;
  run.events.append('output-rejection', {
    iteration: run.iteration,
    source: decision.source,
    ...(toolName === undefined ? {} : { toolName }),
    problems: decision.problems,
    corrections: decision.corrections,
  });
  if (decision.callId !== undefined) answerCall(context, decision.callId, decision.message);
  else if (decision.kind === 'correct') inject(run, 'error_context', decision.message);
  if (decision.kind === 'invalid') {
    const maxCorrections = context.input.output?.maxCorrections ?? 0;
    return { kind: 'fail', failure: outputInvalid(decision.problems, maxCorrections, context.partial()) };
  }
  return runAgain;
}

/** The answer tool's call gets its tool message, so the conversation stays one a provider takes. */
function answerCall({ run }: RunContext, callId: string, content: string): void {
  appendMessages(run, { role: 'tool', tool_call_id: callId, content, meta: { iteration: run.iteration } });
}
