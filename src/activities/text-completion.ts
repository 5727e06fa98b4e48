import { Context } from '@temporalio/activity';
import { redactFailure } from '../redaction';
import type { Usage } from '../shared/messages';
import { parseCompletion } from './completion-response';
import { throwIfCancelled } from './cancellation';
import { keepHeartbeating } from './heartbeat';
import type { ModelSettings } from '../shared/model-settings';
import { createEndpointClients } from './model-client';
import { priceName, routeOf } from './model-routes';
import { classifyModelError, invalidResponseFailure } from './model-errors';
import {
  countProviderFailure,
  providerAttemptOf,
  providerFailuresIn,
  throwIfBudgetSpent,
  withProviderFailures,
} from './provider-failures';
import { completionUsage, priceUnknownFailure } from './model-cost';
import { priceOf } from '../shared/prices';
import type { SamplingSettings } from '../shared/sampling';
import { samplingFields } from './sampling-request';

/** One text the model wrote for a side task (a compaction's summary, an extraction). */
interface CompletedText {
  /** The answer's text, trimmed; empty when the model wrote none. Tool calls are ignored: none were offered. */
  text: string;
  usage: Usage;
  /** The model that answered, as the provider names it. */
  model: string;
}

/** A system prompt and one user message, sent to `model` (the worker's default when absent). */
export type TextRequest = (request: {
  model?: string;
  system: string;
  user: string;
  requirePrice?: true;
  /** The run's sampling settings, over the worker's (no `toolChoice`: no tools are offered). */
  sampling?: SamplingSettings;
}) => Promise<CompletedText>;

/**
 * A non-streaming request without tools for `compactConversation` and `extractToolResult`, on `callModel`'s client
 * and failure classification; priced from the worker's table (`requirePrice` refuses an unpriced model before
 * sending). Runs in an activity, heartbeating.
 */
export function createTextRequest(settings: ModelSettings, heartbeatIntervalMs?: number): TextRequest {
  const { table, clientOf, redact } = createEndpointClients(settings);

  return async function requestText({ model: requested, system, user, requirePrice, sampling }) {
    const context = Context.current();
    // The run's model, on the endpoint it names: a side text goes where the run's calls go, without fallbacks.
    const route = routeOf(table, requested);
    const { model, endpoint } = route;
    const { client, baseURL } = clientOf(endpoint);
    throwIfBudgetSpent(context, `model "${model}" at ${baseURL}`);
    const priced = priceName(settings.prices, route);
    // Before anything is sent: a run with a cost budget never spends on a call it cannot price.
    if (requirePrice === true && priceOf(settings.prices, priced) === undefined)
      throw priceUnknownFailure(priced, settings.prices);
    const messages = [
      { role: 'system' as const, content: system },
      { role: 'user' as const, content: user },
    ];
    // Counted as a model call's are (provider-failures.ts): every heartbeat carries the earlier attempts' count.
    const failures = providerFailuresIn(context.info.heartbeatDetails);
    try {
      return await completeText();
    } catch (error) {
      if (context.cancellationSignal.aborted) throw error;
      throw countProviderFailure(context, error, (count) => withProviderFailures(undefined, count));
    }

    async function completeText(): Promise<CompletedText> {
      const response = await keepHeartbeating(
        context,
        async () => {
          try {
            const raw = await client.chat.completions
              .create(
                {
                  model,
                  messages,
                  ...samplingFields(
                    { sampling: settings.sampling, maxTokensField: endpoint.maxTokensField },
                    sampling,
                    false,
                  ),
                },
                { signal: context.cancellationSignal },
              )
              .asResponse();
            return { status: raw.status, contentType: raw.headers.get('content-type'), body: await raw.text() };
          } catch (error) {
            throwIfCancelled(context, error);
            throw redactFailure(classifyModelError(error, { model, baseURL, ...providerAttemptOf(context) }), redact);
          }
        },
        {
          intervalMs: heartbeatIntervalMs,
          live: () => withProviderFailures(undefined, failures),
          final: () => withProviderFailures(undefined, failures + 1),
        },
      );

      const parsed = parseCompletion(response.body);
      if (!parsed.ok) {
        const failure = invalidResponseFailure(
          { ...response, body: redact(response.body), problem: parsed.problem },
          { model, baseURL, attempt: providerAttemptOf(context).attempt },
        );
        throw redactFailure(failure, redact);
      }
      const completion = parsed.completion;
      const usage = completionUsage(completion, settings.prices, priced);
      return { text: (completion.content ?? '').trim(), usage, model: completion.model ?? model };
    }
  };
}

/**
 * `text` in at most `maxChars` characters (code points), ending with `\n<note>`
 * when it had to be cut: the note counts in the length.
 */
export function withinLength(text: string, maxChars: number, note: string): { text: string; cut: boolean } {
  if (text.length <= maxChars) return { text, cut: false };
  const characters = Array.from(text);
  if (characters.length <= maxChars) return { text, cut: false };
  const ending = `\n${note}`;
  return {
    text: `${characters
      .slice(0, Math.max(0, maxChars - ending.length))
      .join('')
      .trimEnd()}${ending}`,
    cut: true,
  };
}
