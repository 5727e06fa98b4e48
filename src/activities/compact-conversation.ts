import { Context } from '@temporalio/activity';
import OpenAI from 'openai';
import { redactFailure, urlCredentialsProblem } from '../redaction';
import { COMPACTION_SUMMARY_CUT_NOTE, type CompactionInput, type CompactionResult } from '../shared';
import { compactionTranscript } from './compaction-transcript';
import { parseCompletion } from './completion-response';
import { keepHeartbeating } from './heartbeat';
import { redactorFor, type ModelSettings } from './model-call';
import { classifyModelError, invalidResponseFailure } from './model-errors';
import { priceUnknownFailure, pricedUsage } from './model-cost';
import { priceOf } from '../shared/prices';

/**
 * The `compactConversation` activity: one non-streaming chat-completions
 * request without tools, which asks the model to summarise the messages it is
 * given. The client is set up as `callModel`'s (no client-side retries:
 * Temporal owns retry), and its failures are classified and redacted the same
 * way (`ModelCall.*` types, `nextRetryDelay` from `Retry-After`). Throws at
 * once when `settings.baseURL` carries credentials.
 */
export function createConversationCompaction(settings: ModelSettings) {
  const problem = settings.baseURL === undefined ? undefined : urlCredentialsProblem('baseURL', settings.baseURL);
  if (problem !== undefined) throw new Error(problem);
  const redact = redactorFor(settings);
  const client = new OpenAI({ apiKey: settings.apiKey ?? 'unused', baseURL: settings.baseURL, maxRetries: 0 });
  const baseURL = client.baseURL;

  return async function compactConversation(input: CompactionInput): Promise<CompactionResult> {
    const context = Context.current();
    const model = input.model ?? settings.defaultModel;
    if (input.requirePrice === true && priceOf(settings.prices, model) === undefined) throw priceUnknownFailure(model, settings.prices);
    const messages = [
      { role: 'system' as const, content: input.instructions },
      { role: 'user' as const, content: compactionTranscript(input.messages) },
    ];
    const response = await keepHeartbeating(context, async () => {
      try {
        const raw = await client.chat.completions.create({ model, messages }, { signal: context.cancellationSignal }).asResponse();
        return { status: raw.status, contentType: raw.headers.get('content-type'), body: await raw.text() };
      } catch (error) {
        if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason ?? error;
        throw redactFailure(classifyModelError(error, { model, baseURL }), redact);
      }
    });

    const parsed = parseCompletion(response.body);
    if (!parsed.ok) {
      const failure = invalidResponseFailure(
        { ...response, body: redact(response.body), problem: parsed.problem },
        { model, baseURL, attempt: context.info.attempt },
      );
      throw redactFailure(failure, redact);
    }
    const completion = parsed.completion;
    const { promptTokens = 0, completionTokens = 0, totalTokens = promptTokens + completionTokens } = completion.usage;
    // Tool calls are ignored: none were offered, and only the text can stand for the messages.
    const { summary, cut } = withinLength((completion.content ?? '').trim(), input.maxSummaryChars);
    return { summary, cut, usage: pricedUsage({ promptTokens, completionTokens, totalTokens }, settings.prices, model, completion.model), model: completion.model ?? model };
  }
}

/** `text` in at most `maxChars` characters (code points), the cut note included when it had to be cut. */
function withinLength(text: string, maxChars: number): { summary: string; cut: boolean } {
  if (text.length <= maxChars) return { summary: text, cut: false };
  const characters = Array.from(text);
  if (characters.length <= maxChars) return { summary: text, cut: false };
  const note = `\n${COMPACTION_SUMMARY_CUT_NOTE}`;
  return { summary: `${characters.slice(0, Math.max(0, maxChars - note.length)).join('').trimEnd()}${note}`, cut: true };
}
