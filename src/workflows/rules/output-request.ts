import type { ParsedAgentInput } from '../../shared/agent-input';
import type { ResponseFormat, WorkflowToolSpec } from '../../shared/activity-types';
import { FINAL_ANSWER_DESCRIPTION } from '../../shared/defaults/output';
import { answerParameters } from '../../shared/output-schema';

/**
 * Structured output: how a model call asks for the answer. In `tool` mode the model is offered the answer tool,
 * its parameters the schema (wrapped as `{ value }` when its root is not an object); in `response_format` mode the
 * request carries `response_format: { type: 'json_schema' }`. Nothing for a run without `output`.
 */
export function answerTools(input: Pick<ParsedAgentInput, 'output'>): WorkflowToolSpec[] {
  const output = input.output;
  if (output?.mode !== 'tool') return [];
  return [{ name: output.name, description: FINAL_ANSWER_DESCRIPTION, parameters: answerParameters(output.schema) }];
}

/** The request's `response_format` in `response_format` mode. */
export function answerFormat(input: Pick<ParsedAgentInput, 'output'>): ResponseFormat | undefined {
  const output = input.output;
  if (output?.mode !== 'response_format') return undefined;
  return { type: 'json_schema', json_schema: { name: output.name, schema: answerParameters(output.schema) } };
}
