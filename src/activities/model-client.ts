import OpenAI from 'openai';
import { createRedactor, urlCredentials, urlCredentialsProblem, type Redactor } from '../redaction';
import type { ModelSettings } from '../shared/model-settings';

/** What a model activity reaches the provider with, and what keeps its secrets out of failures. */
export interface ModelClient {
  client: OpenAI;
  /** The client's base URL, as failures name it. */
  baseURL: string;
  /** Removes the configured secrets from what a failure quotes. */
  redact: Redactor;
}

/** The redactor for failures raised with `settings`: its key, URL credentials and `secrets`. */
export function redactorFor(settings: ModelSettings): Redactor {
  return createRedactor([settings.apiKey, ...urlCredentials(settings.baseURL ?? ''), ...(settings.secrets ?? [])]);
}

/**
 * The `openai` client every model activity uses (`callModel`, and the side
 * texts of `text-completion.ts`), without client-side retries, and the
 * redactor for its failures. Throws at once when `settings.baseURL` carries
 * credentials.
 */
export function createModelClient(settings: ModelSettings): ModelClient {
  const problem = settings.baseURL === undefined ? undefined : urlCredentialsProblem('baseURL', settings.baseURL);
  if (problem !== undefined) throw new Error(problem);
  const redact = redactorFor(settings);
  const client = new OpenAI({
    apiKey: settings.apiKey ?? 'unused',
    baseURL: settings.baseURL,
    // Temporal owns retry: a retry here would hide failures from the history and the retry policy.
    maxRetries: 0,
  });
  return { client, baseURL: client.baseURL, redact };
}
