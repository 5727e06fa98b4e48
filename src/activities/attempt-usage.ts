import { ApplicationFailure } from '@temporalio/activity';
import { addUsage, ZERO_USAGE, type Usage } from '../shared/messages';
import { SPENT_USAGE_KEY, spentUsageIn } from '../shared/spent-usage';
import type { ModelDelta } from '../shared/model-stream-events';

/**
 * The tokens of model-call attempts that never return (timed out, broken off, a bad chunk): billed all the same. Each
 * attempt estimates what it streamed (four characters a token) and heartbeats the call's total (`spentUsage`), which
 * the next attempt, a result, a failure's details or a timeout's `lastHeartbeatDetails` carry, so the workflow counts
 * it from its history alone (`estimated: true`).
 */

/** About four characters a token, as providers' own rough guides say. */
const CHARS_PER_TOKEN = 4;

/** What the call spent before this attempt, from the details the last attempt heartbeated (none on the first). */
export function carriedUsage(heartbeatDetails: unknown): Usage | undefined {
  return spentUsageIn(heartbeatDetails);
}

/** One attempt's spending, measured as it streams, over what the attempts before it spent. */
export class AttemptUsage {
  private answered = false;
  private generatedChars = 0;

  /**
   * @param promptChars the request's characters (messages and tools), counted once the provider streams a first
   *   delta (a body that is not a completion, or an error, may never have reached the model: it counts nothing)
   * @param carried what earlier attempts of the call spent
   * @param price adds the cost of an estimate, from the worker's price table
   */
  constructor(
    private readonly promptChars: number,
    readonly carried: Usage | undefined,
    private readonly price: (usage: Usage) => Usage = (usage) => usage,
  ) {}

  /** Counts a streamed delta's characters as generated. */
  add(delta: ModelDelta): void {
    this.answered = true;
    if (delta.kind === 'tool-call') this.generatedChars += (delta.name ?? '').length + (delta.arguments ?? '').length;
    else this.generatedChars += delta.text.length;
  }

  /** Characters counted as generated so far. */
  get generated(): number {
    return this.generatedChars;
  }

  /** Counts a whole answer's text and tool calls as generated (one that came unstreamed). */
  addText(content: string, toolCalls: readonly { name: string; arguments: string }[]): void {
    this.answered = true;
    this.generatedChars += content.length;
    for (const call of toolCalls) this.generatedChars += call.name.length + call.arguments.length;
  }

  /** This attempt's tokens, estimated from what it streamed; zero before the provider answered. */
  estimate(): Usage {
    if (!this.answered) return ZERO_USAGE;
    const promptTokens = Math.ceil(this.promptChars / CHARS_PER_TOKEN);
    const completionTokens = Math.ceil(this.generatedChars / CHARS_PER_TOKEN);
    return this.price({
      promptTokens,
      completionTokens,
      totalTokens: promptTokens + completionTokens,
      estimated: true,
    });
  }

  /** What the call has spent with this attempt so far: the earlier attempts' and this one's estimate. */
  spent(): Usage | undefined {
    const own = this.estimate();
    if (own.totalTokens === 0) return this.carried;
    return this.carried === undefined ? own : addUsage(this.carried, own);
  }

  /** Heartbeat details: `base` (the stream's announcement) with what the call spent, when it spent anything. */
  details(base: object | undefined): object | undefined {
    const spent = this.spent();
    if (spent === undefined) return base;
    return { ...base, [SPENT_USAGE_KEY]: spent };
  }
}

/**
 * `error` with what the call spent added to its details (a last entry `{ spentUsage }`), when it is an
 * `ApplicationFailure` and anything was spent: the workflow counts it when the call fails for good.
 */
export function withSpentUsage(error: unknown, spent: Usage | undefined): unknown {
  if (spent === undefined || !(error instanceof ApplicationFailure)) return error;
  // `details` is read-only in the types only; the failure is ours, made by this attempt, and not yet thrown.
  (error as { details?: unknown[] | null }).details = [...(error.details ?? []), { [SPENT_USAGE_KEY]: spent }];
  return error;
}
