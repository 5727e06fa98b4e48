import { z } from 'zod';
import { builtOnce } from '../../shared/built-once';
import { INPUT_BOUNDS } from '../../shared/defaults/input-bounds';
import { chatMessageSchema, usageSchema } from '../../shared/messages';
import { findTooDeep } from '../../shared/json-depth';
import { terminationReasonSchema } from '../../shared/agent-result';
import { identifierSchema, type ConversationInput } from '../../shared/conversation';
import { readerFor, type VersionReader } from '../rules/versioned-reading';

/**
 * The conversation workflow's argument: what a client starts a conversation with, and what it hands itself when it
 * continues as new, maybe to a newer worker. {@link readConversationInput} reads only the `schemaVersion` this code
 * writes ({@link ConversationInput}); any other fails the workflow with a reason, not its task (which would retry
 * forever). Only the shape is checked: each turn's run checks its own input.
 *
 * To add version 3: write `conversationInputV3Schema`, bump `CONVERSATION_INPUT_VERSION` and `ConversationInput`
 * (shared/conversation.ts); add `3` to `READERS` with version 2 read through an upgrade (continued conversations and
 * clients on older code send it, until none can); test both and the exact old shape in
 * `test/unit/conversation-input.test.ts`.
 */

const count = builtOnce('conversationInput.count', () => z.number().int().nonnegative());

/** A turn's answer as a remembered turn keeps it: without its generated messages, which the history holds. */
const turnAnswerSchema = builtOnce('conversationInput.turnAnswer', () =>
  z.object({
    response: z.string(),
    savedAiMessages: z.boolean(),
    turn: count,
    runId: z.string(),
    terminationReason: terminationReasonSchema,
    usage: usageSchema,
  }),
);

/** A turn's answer, and where its messages are in the history (`from` up to `to`), from which its generated messages are rebuilt. */
const rememberedTurnSchema = builtOnce('conversationInput.rememberedTurn', () =>
  z.object({
    kind: z.literal('messageRange'),
    updateId: z.string(),
    answer: turnAnswerSchema,
    messages: z.object({ from: count, to: count }),
  }),
);

/** Version 2, the current one ({@link ConversationInput}). */
export const conversationInputSchema = builtOnce('conversationInput.conversationInput', () =>
  z.object({
    schemaVersion: z.literal(2),
    contextId: identifierSchema,
    messages: z.array(chatMessageSchema).optional(),
    turns: count.optional(),
    turnsPerRun: z.number().int().positive().optional(),
    generation: identifierSchema.optional(),
    recentTurns: z.array(rememberedTurnSchema).optional(),
  }),
);

/** How each version is read: only the current one. */
const READERS: Record<number, VersionReader<ConversationInput>> = {
  2: (raw) => conversationInputSchema.safeParse(raw),
};

/**
 * The conversation workflow's arguments, read: its input, of the version this
 * code writes; or what is wrong with them, one line per problem naming the
 * field. Never throws.
 */
export function readConversationInput(
  input: unknown,
  afterInput: readonly unknown[],
): { ok: true; input: ConversationInput } | { ok: false; problems: string[] } {
  if (afterInput.some((argument) => argument !== undefined)) {
    return {
      ok: false,
      problems: [
        `arguments: conversationWorkflow takes one argument, the conversation's input, and was started with ${afterInput.length + 1}`,
      ],
    };
  }
  try {
    const tooDeep = findTooDeep(input, INPUT_BOUNDS.depth);
    if (tooDeep !== undefined)
      return {
        ok: false,
        problems: [
          `${String(tooDeep.path[0] ?? 'input').slice(0, 64)}: nested more than ${INPUT_BOUNDS.depth} levels deep`,
        ],
      };
    const reader = readerFor(input, READERS, 'schemaVersion', 'the conversation input versions this worker reads');
    if ('problem' in reader) return { ok: false, problems: [reader.problem] };
    const parsed = reader.read(input);
    if (parsed.success) return { ok: true, input: parsed.data };
    const problems = parsed.error.issues.map((issue) =>
      `${issue.path.map(String).join('.') || 'input'}: ${issue.message}`.slice(0, INPUT_BOUNDS.problemChars),
    );
    return { ok: false, problems: problems.slice(0, INPUT_BOUNDS.problems) };
  } catch (error) {
    return {
      ok: false,
      problems: [`input: could not be checked (${error instanceof Error ? error.message : String(error)})`],
    };
  }
}
