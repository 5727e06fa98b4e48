import type { CompactionConfig } from '../../shared/compaction-schema';
import { CHARS_PER_TOKEN_ESTIMATE, COMPACTION_DEFAULTS } from '../../shared/defaults/context-control';
import type { ChatMessage } from '../../shared/messages';
import {
  contextTokens,
  isPinned,
  summaryMessage,
  type ConversationCompaction,
  type ModelContext,
} from './model-context';

/**
 * The compaction rule: a run compacts when what the model would see passes `maxTokens`, estimated. The cut keeps the
 * newest `keepRecentIterations` iterations whole (an assistant message stays with its tool results) and a person's
 * later message; the previous summary and the messages up to the cut, less the caller's system messages, are
 * summarised.
 */

/** What the rule decided. */
export type CompactionPlan =
  | {
      kind: 'none';
      /** `below-threshold`: nothing to do; `nothing-to-summarise`: over, but every message is among the kept. */
      reason: 'below-threshold' | 'nothing-to-summarise';
      tokens: number;
    }
  | {
      kind: 'compact';
      /** Estimated tokens of the context as it stands. */
      tokensBefore: number;
      /** The new compaction's `throughIndex`: the last transcript index summarised. */
      throughIndex: number;
      /** What the summariser is given: the previous summary, if any, then the messages it now covers. */
      summarise: ChatMessage[];
      /** How many messages of `summarise` are summarised for the first time (all but the previous summary). */
      newlySummarised: number;
    };

/** What the rule reads of the run. */
export interface CompactionSubject {
  /** The run's transcript, whole. */
  messages: readonly ChatMessage[];
  /** How many of `messages` came with the run's input. */
  inputMessageCount: number;
  /** The iteration about to call the model; the ones before it are complete. */
  iteration: number;
  /** The run's compaction so far. */
  previous: ConversationCompaction | undefined;
  instructions: string | undefined;
}

/**
 * Where the kept messages begin: the model's answer of the oldest kept iteration (all the run added, while it has made
 * fewer calls than it keeps). Only the run's own messages are searched, so an input's `meta` cannot move the cut.
 */
export function keptFrom(
  messages: readonly ChatMessage[],
  inputMessageCount: number,
  iteration: number,
  keepRecentIterations: number,
): number {
  const oldestKept = iteration - keepRecentIterations;
  if (oldestKept < 1) return Math.min(inputMessageCount, messages.length);
  for (let index = inputMessageCount; index < messages.length; index += 1) {
    const message = messages[index];
    if (message?.role === 'assistant' && (message.meta?.iteration ?? 0) >= oldestKept) return index;
  }
  return Math.min(inputMessageCount, messages.length);
}

/** Whether and how to compact before the next model call, given the context the model would see (`context`). */
export function planCompaction(
  subject: CompactionSubject,
  context: ModelContext,
  config: Pick<CompactionConfig, 'maxTokens' | 'keepRecentIterations'>,
): CompactionPlan {
  const tokens = contextTokens(context.messages, subject.instructions);
  if (tokens <= config.maxTokens) return { kind: 'none', reason: 'below-threshold', tokens };
  const keepFrom = keptFrom(
    subject.messages,
    subject.inputMessageCount,
    subject.iteration,
    config.keepRecentIterations,
  );
  // The messages the model sees between the previous summary and the cut, less the caller's system messages.
  const fresh = context.messages
    .slice(context.headLength, context.headLength + Math.max(0, keepFrom - context.tailStart))
    .filter((_, offset) => {
      const index = context.tailStart + offset;
      const message = subject.messages[index];
      return message === undefined || !isPinned(message, index, subject.inputMessageCount);
    });
  if (fresh.length === 0) return { kind: 'none', reason: 'nothing-to-summarise', tokens };
  const previous = subject.previous === undefined ? [] : [summaryMessage(subject.previous.summary)];
  return {
    kind: 'compact',
    tokensBefore: tokens,
    throughIndex: keepFrom - 1,
    summarise: [...previous, ...fresh],
    newlySummarised: fresh.length,
  };
}

/** How long a summary may be, in characters: its share of `maxTokens`, and never past {@link COMPACTION_DEFAULTS.summaryMaxChars}. */
export function maxSummaryChars(maxTokens: number): number {
  return Math.min(
    Math.floor(maxTokens * COMPACTION_DEFAULTS.summaryShare) * CHARS_PER_TOKEN_ESTIMATE,
    COMPACTION_DEFAULTS.summaryMaxChars,
  );
}
