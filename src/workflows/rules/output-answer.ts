import type { ParsedAgentInput } from '../../shared/agent-input';
import { callAnswerToolMessage, invalidAnswerMessage } from '../../shared/defaults/output';
import type { AssistantMessage } from '../../shared/messages';
import { checkAnswerText, isObjectSchema, type AnswerCheck, type OutputMode } from '../../shared/output-schema';

/**
 * Structured output: a run with `output` ends only with an answer that validates (the answer tool's arguments, the
 * text, or a terminating tool's output); anything else goes back with the problems, and past `maxCorrections` for the
 * run it fails with `Output.Invalid`.
 */
export interface OutputPolicy {
  schema: Record<string, unknown>;
  mode: OutputMode;
  /** The answer tool (`tool` mode) or the `json_schema` name. */
  name: string;
  /** The schema's root is not an object: the model answers `{ value: ... }`. */
  wrapped: boolean;
  maxCorrections: number;
}

/** Where a rejected answer came from, as the `output-rejection` event says. */
type AnswerSource = 'answer_tool' | 'text' | 'tool_output';

/** What an answer means for the run's output. */
export type OutputDecision =
  /** The answer is valid: the run ends with `value`. `callId`: the answer tool's call, which gets a tool message. */
  | { kind: 'accept'; value: unknown; callId?: string }
  /**
   * Not valid: `message` goes back to the model (as the call's tool message when `callId`, else injected), and the
   * run calls the model again; `corrections` is the run's new count. `invalid`: one correction too many, the run fails.
   */
  | {
      kind: 'correct' | 'invalid';
      source: AnswerSource;
      problems: string[];
      message: string;
      corrections: number;
      callId?: string;
    }
  /** The answer calls other tools: the turn rules decide as they always do. */
  | { kind: 'not_an_answer' };

/** A decision on something that is an answer. */
export type AnswerVerdict = Exclude<OutputDecision, { kind: 'not_an_answer' }>;

/** The run's output policy, when its input has `output`. */
export function outputPolicyFor(input: Pick<ParsedAgentInput, 'output'>): OutputPolicy | undefined {
  const output = input.output;
  if (output === undefined) return undefined;
  return {
    schema: output.schema,
    mode: output.mode,
    name: output.name,
    wrapped: !isObjectSchema(output.schema),
    maxCorrections: output.maxCorrections,
  };
}

/**
 * What the model's answer means: in `tool` mode, a lone call of the answer tool is checked, and a text answer is
 * told to call it; in `response_format` mode, a text answer is checked. Calls of other tools (with or without the
 * answer tool among them) are not an answer.
 */
export function decideOutputAnswer(
  message: AssistantMessage,
  corrections: number,
  policy: OutputPolicy,
): OutputDecision {
  const calls = message.tool_calls ?? [];
  if (calls.length > 1) return { kind: 'not_an_answer' };
  const [call] = calls;
  if (call !== undefined) {
    if (policy.mode !== 'tool' || call.function.name !== policy.name) return { kind: 'not_an_answer' };
    return decided(checkAnswerText(policy.schema, call.function.arguments, policy.wrapped), corrections, policy, {
      source: 'answer_tool',
      callId: call.id,
      retry: `Call "${policy.name}" again with a corrected answer.`,
      what: `your "${policy.name}" call`,
    });
  }
  if (policy.mode === 'tool') {
    const problems = [`the answer was text, not a call of "${policy.name}"`];
    return rejected(problems, callAnswerToolMessage(policy.name), corrections, policy, 'text');
  }
  return decided(checkAnswerText(policy.schema, message.content ?? '', policy.wrapped), corrections, policy, {
    source: 'text',
    retry: 'Answer again with only the corrected JSON.',
    what: 'your answer',
  });
}

/**
 * A terminating tool (or a `TerminateResponse`) ended the run: its output is the answer when it is JSON valid
 * against the schema (never wrapped: a tool returns the value itself); otherwise the run goes on and the model is
 * told to give its final answer.
 */
export function decideToolOutput(
  toolName: string,
  content: string,
  corrections: number,
  policy: OutputPolicy,
): AnswerVerdict {
  const how =
    policy.mode === 'tool' ? `by calling "${policy.name}"` : 'as JSON text that matches the schema, and nothing else';
  return decided(checkAnswerText(policy.schema, content, false), corrections, policy, {
    source: 'tool_output',
    retry: `The run goes on: give your final answer ${how}.`,
    what: `the output of "${toolName}", which would end the run,`,
  });
}

/** The message the model gets when its answer tool was called together with other tools. */
export function answerNotAloneMessage(name: string): string {
  return `Error: "${name}" must be called alone, once the other calls have returned; this answer was not taken. Call "${name}" again on its own.`;
}

function decided(
  check: AnswerCheck,
  corrections: number,
  policy: OutputPolicy,
  about: { source: AnswerSource; retry: string; what: string; callId?: string },
): AnswerVerdict {
  if (check.ok)
    return { kind: 'accept', value: check.value, ...(about.callId === undefined ? {} : { callId: about.callId }) };
  const message = invalidAnswerMessage(about.what, check.problems, about.retry);
  return rejected(check.problems, message, corrections, policy, about.source, about.callId);
}

function rejected(
  problems: string[],
  message: string,
  corrections: number,
  policy: OutputPolicy,
  source: AnswerSource,
  callId?: string,
): AnswerVerdict {
  const next = corrections + 1;
  return {
    kind: next <= policy.maxCorrections ? 'correct' : 'invalid',
    source,
    problems,
    message,
    corrections: next,
    ...(callId === undefined ? {} : { callId }),
  };
}
