import { z } from 'zod';
import { builtOnce } from './built-once';
import { deciderSchema } from './control';
import type { McpElicitResult } from './mcp-elicitation';

/**
 * A person's answer to an MCP server's question (update `answerElicitation`): an explicit `accept` with the form's
 * fields, `decline` or `cancel`, and who answered. Pure: used by the client, the API and the workflow.
 */

/** A field's value as a form holds it. */
const fieldValueSchema = z.union([
  z.string().max(16_000),
  z.number(),
  z.boolean(),
  z.array(z.string().max(16_000)).max(100),
]);

/** Update `answerElicitation`'s input. */
export const answerElicitationInputSchema = builtOnce('mcpElicitation.answerInput', () =>
  z.strictObject({
    /** The question's id (`input-request`'s `elicitationId`, the state's `question.elicitationId`). @default the only waiting question */
    elicitationId: z.string().min(1).max(200).optional(),
    action: z.enum(['accept', 'decline', 'cancel']),
    /** With `accept`: the fields, checked against the server's requested schema. @default {} */
    content: z.record(z.string().max(200), fieldValueSchema).optional(),
    by: deciderSchema.optional(),
  }),
);
export type AnswerElicitationInput = z.infer<typeof answerElicitationInputSchema>;

/** What `answerElicitation` answers: the question answered, and how. */
export interface ElicitationAnswered {
  elicitationId: string;
  callId: string;
  action: 'accept' | 'decline' | 'cancel';
}

interface PropertySchema {
  type?: unknown;
  enum?: unknown;
}

/**
 * Why `content` does not fill the form `requestedSchema` describes, or undefined when it does: every required field
 * given, no field the form lacks, each value of its field's type (and among its `enum`, when it has one).
 */
export function elicitContentProblem(
  content: McpElicitResult & { action: 'accept' },
  requestedSchema: unknown,
): string | undefined {
  const schema = (requestedSchema ?? {}) as { properties?: unknown; required?: unknown };
  const properties = (
    typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {}
  ) as Record<string, PropertySchema>;
  const required = Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [];
  const missing = required.filter((name) => !(name in content.content));
  if (missing.length > 0) return `the form needs ${missing.map((name) => `"${name}"`).join(', ')}`;
  for (const [name, value] of Object.entries(content.content)) {
    const property = properties[name];
    if (property === undefined) {
      const known = Object.keys(properties);
      return `the form has no field "${name}" (its fields: ${known.join(', ') || 'none'})`;
    }
    const problem = valueProblem(value, property);
    if (problem !== undefined) return `"${name}" ${problem}`;
  }
  return undefined;
}

function valueProblem(value: unknown, property: PropertySchema): string | undefined {
  const type = property.type;
  if (type === 'string' && typeof value !== 'string') return 'takes a string';
  if (type === 'boolean' && typeof value !== 'boolean') return 'takes true or false';
  if (type === 'number' && typeof value !== 'number') return 'takes a number';
  if (type === 'integer' && !Number.isInteger(value)) return 'takes an integer';
  if (type === 'array' && !Array.isArray(value)) return 'takes a list of strings';
  if (Array.isArray(property.enum) && typeof value !== 'object' && !property.enum.includes(value))
    return `takes one of ${property.enum.map((item) => JSON.stringify(item)).join(', ')}`;
  return undefined;
}
