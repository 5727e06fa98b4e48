import { z } from 'zod';
import { builtOnce } from '../../shared/built-once';
import { INPUT_BOUNDS } from '../../shared/defaults/input-bounds';
import { chatMessageSchema, usageSchema } from '../../shared/messages';
import { findTooDeep } from '../../shared/json-depth';
import { generatedMessageSchema, terminationReasonSchema } from '../../shared/agent-result';
import { identifierSchema, type ConversationInput } from '../../shared/conversation';
import { readerFor, upgradingReader, type VersionReader } from '../rules/versioned-reading';

/**
 * The conversation workflow's argument, version by version: what a client
 * starts a conversation with, and what the conversation hands itself when it
 * continues as new (its history and remembered turns), maybe to a newer
 * worker. A schema per version, and an upgrade from each version to the
 * next; {@link readConversationInput} reads any version it knows and answers
 * the current one ({@link ConversationInput}).
 *
 * - Version 1 carries no `schemaVersion` (every input written before versions
 *   were). Its remembered turns come in two shapes: the answer with the range
 *   of its messages in the history, and, from before ranges, the whole result.
 * - Version 2 names its version, and each remembered turn names its `kind`
 *   (`messageRange` or `wholeResult`): the version 1 shapes, tagged.
 *
 * To add version 3:
 * 1. Write `conversationInputV3Schema` (with `schemaVersion: z.literal(3)`),
 *    set `CONVERSATION_INPUT_VERSION` (shared/conversation.ts) to 3 and change
 *    `ConversationInput` there to match.
 * 2. Write `upgradeV2(previous: ConversationInputV2): ConversationInputV3`, and
 *    add `3` to `READERS`, reading version 2 as `upgradingReader(...V2Schema,
 *    upgradeV2)` and version 1 as `upgradingReader(...V1Schema, (v1) => upgradeV2(upgradeV1(v1)))`.
 * 3. Keep every older schema: a conversation continued as new on old code
 *    reaches the new code with the old version, and a client on old code
 *    starts conversations with it. Drop one only when none can still arrive.
 * 4. Test the new schema, the upgrade from version 2 and the exact old shape
 *    (`test/unit/conversation-input.test.ts`).
 *
 * An argument the workflow cannot read fails it with a reason instead of
 * throwing, which would fail its workflow task and retry it forever; anyone
 * with access to the namespace can start one (`temporal workflow start
 * --type conversationWorkflow`). Only the shape is checked: the history was
 * partly written by the model, and each turn's run checks its own input.
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

/** A turn's whole answer, generated messages included (`ChatTurnResult`). */
const turnResultSchema = builtOnce('conversationInput.turnResult', () =>
  turnAnswerSchema.extend({ generatedMessages: z.array(generatedMessageSchema) }),
);

/** A turn's answer, and where its messages are in the history (`from` up to `to`), from which its generated messages are rebuilt. */
const messageRangeFields = builtOnce('conversationInput.messageRangeFields', () => ({ updateId: z.string(), answer: turnAnswerSchema, messages: z.object({ from: count, to: count }) }));

/** A turn remembered whole, as conversations did before they kept message ranges. */
const wholeResultFields = builtOnce('conversationInput.wholeResultFields', () => ({ updateId: z.string(), result: turnResultSchema }));

/** What every version so far has, apart from its remembered turns. */
const inputFields = builtOnce('conversationInput.inputFields', () => ({
  contextId: identifierSchema,
  messages: z.array(chatMessageSchema).optional(),
  turns: count.optional(),
  turnsPerRun: z.number().int().positive().optional(),
  generation: identifierSchema.optional(),
}));

/** Version 1: no version; remembered turns told apart by their shape, the only way this version allows. */
export const conversationInputV1Schema = builtOnce('conversationInput.conversationInputV1', () =>
  z.object({
    ...inputFields,
    recentTurns: z.array(z.union([z.object(messageRangeFields), z.object(wholeResultFields)])).optional(),
  }),
);
export type ConversationInputV1 = z.infer<typeof conversationInputV1Schema>;

/** Version 2, the current one: remembered turns say which kind they are. */
export const conversationInputV2Schema = builtOnce('conversationInput.conversationInputV2', () =>
  z.object({
    schemaVersion: z.literal(2),
    ...inputFields,
    recentTurns: z
      .array(
        z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('messageRange'), ...messageRangeFields }),
          z.object({ kind: z.literal('wholeResult'), ...wholeResultFields }),
        ]),
      )
      .optional(),
  }),
);
export type ConversationInputV2 = z.infer<typeof conversationInputV2Schema>;

/** Version 1 as version 2: the version named, and each remembered turn tagged with the kind its shape is. */
export function upgradeV1(previous: ConversationInputV1): ConversationInputV2 {
  const { recentTurns, ...rest } = previous;
  return {
    schemaVersion: 2,
    ...rest,
    ...(recentTurns === undefined
      ? {}
      : {
          recentTurns: recentTurns.map((turn) =>
            'result' in turn ? { kind: 'wholeResult' as const, ...turn } : { kind: 'messageRange' as const, ...turn },
          ),
        }),
  };
}

/** How each version is read and brought up to the current one. */
const READERS: Record<number, VersionReader<ConversationInput>> = {
  1: upgradingReader(conversationInputV1Schema, upgradeV1),
  2: (raw) => conversationInputV2Schema.safeParse(raw),
};

/**
 * The conversation workflow's arguments, read: its input, of any version this
 * code knows, as the current version; or what is wrong with them, one line
 * per problem naming the field. Never throws.
 */
export function readConversationInput(input: unknown, afterInput: readonly unknown[]): { ok: true; input: ConversationInput } | { ok: false; problems: string[] } {
  if (afterInput.some((argument) => argument !== undefined)) {
    return { ok: false, problems: [`arguments: conversationWorkflow takes one argument, the conversation's input, and was started with ${afterInput.length + 1}`] };
  }
  try {
    const tooDeep = findTooDeep(input, INPUT_BOUNDS.depth);
    if (tooDeep !== undefined) return { ok: false, problems: [`${String(tooDeep.path[0] ?? 'input').slice(0, 64)}: nested more than ${INPUT_BOUNDS.depth} levels deep`] };
    const reader = readerFor(input, READERS, 'schemaVersion', 'the conversation input versions this worker reads');
    if ('problem' in reader) return { ok: false, problems: [reader.problem] };
    const parsed = reader.read(input);
    if (parsed.success) return { ok: true, input: parsed.data };
    const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || 'input'}: ${issue.message}`.slice(0, INPUT_BOUNDS.problemChars));
    return { ok: false, problems: problems.slice(0, INPUT_BOUNDS.problems) };
  } catch (error) {
    return { ok: false, problems: [`input: could not be checked (${error instanceof Error ? error.message : String(error)})`] };
  }
}
