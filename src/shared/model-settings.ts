import type { PriceTable } from './prices';

/** How the worker reaches the model. */
export interface ModelSettings {
  /** Sent as the bearer token; a placeholder is used for servers that need none. */
  apiKey?: string;
  /**
   * An OpenAI-compatible server's `/v1` URL, without credentials in it
   * (`user:password@` is refused). @default 'https://api.openai.com/v1'
   */
  baseURL?: string;
  /** Model used when a run names none. */
  defaultModel: string;
  /**
   * Further secrets to keep out of model-call failures, besides `apiKey`
   * (`npm run worker` passes its Temporal API key, TLS key and API token).
   */
  secrets?: readonly string[];
  /**
   * What each model costs, in US dollars per million tokens: a call whose model is here reports
   * `usage.costUsd`, and a run with a `costBudget` may call only models that are here
   * (`ModelCall.PriceUnknown` otherwise). @default no prices: no call is priced
   */
  prices?: PriceTable;
  /**
   * Ask the provider for a streamed answer and publish its deltas to followers
   * (the worker's delta server). The recorded result is the same either way.
   * @default true
   */
  stream?: boolean;
}
