import { z } from 'zod';
import { INPUT_BOUNDS, chatMessageSchema, findTooDeep, identifierSchema } from '../../shared';

/**
 * The conversation workflow's argument, checked on arrival: a conversation is
 * started by the runner, but anyone with access to the namespace can start
 * one (`temporal workflow start --type conversationWorkflow`), and an
 * argument the workflow cannot read must fail it with a reason instead of
 * throwing, which would fail its workflow task and retry it forever. Only the
 * shape is checked: the history was partly written by the model, and each
 * turn's run checks its own input.
 */
const conversationInputSchema = z.object({
  contextId: identifierSchema,
  messages: z.array(chatMessageSchema).optional(),
  turns: z.number().int().nonnegative().optional(),
  turnsPerRun: z.number().int().positive().optional(),
  generation: identifierSchema.optional(),
  recentTurns: z.array(z.object({ updateId: z.string() })).optional(),
});

/** What is wrong with the conversation workflow's arguments, one line per problem naming the field; empty when nothing is. */
export function conversationInputProblems(input: unknown, afterInput: readonly unknown[]): string[] {
  if (afterInput.some((argument) => argument !== undefined)) {
    return [`arguments: conversationWorkflow takes one argument, the conversation's input, and was started with ${afterInput.length + 1}`];
  }
  try {
    const tooDeep = findTooDeep(input, INPUT_BOUNDS.depth);
    if (tooDeep !== undefined) return [`${String(tooDeep.path[0] ?? 'input').slice(0, 64)}: nested more than ${INPUT_BOUNDS.depth} levels deep`];
    const parsed = conversationInputSchema.safeParse(input);
    if (parsed.success) return [];
    return parsed.error.issues.slice(0, INPUT_BOUNDS.problems).map((issue) => `${issue.path.map(String).join('.') || 'input'}: ${issue.message}`.slice(0, INPUT_BOUNDS.problemChars));
  } catch (error) {
    return [`input: could not be checked (${error instanceof Error ? error.message : String(error)})`];
  }
}
