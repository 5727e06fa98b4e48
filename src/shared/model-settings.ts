import type { ModelEndpoints } from './model-endpoints';
import type { PriceTable } from './prices';
import type { SamplingSettings } from './sampling';

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
  /**
   * Sampling settings of every model call this worker makes (`AGENT_MODEL_MAX_TOKENS`, `AGENT_MODEL_TEMPERATURE`,
   * ...); a run's `modelSettings` override them field by field. `toolChoice` applies to the run's calls only.
   * @default none: the provider's own
   */
  sampling?: SamplingSettings;
  /**
   * The request field `maxTokens` is sent as: `max_tokens` (llama.cpp, Ollama, vLLM, OpenAI's non-reasoning
   * models) or `max_completion_tokens` (OpenAI's reasoning models refuse `max_tokens`). @default 'max_tokens'
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Further named endpoints besides the one the fields above describe (which is named `default`): a run picks
   * one with `<endpoint>/<model>` in its `model`, or by a model an endpoint lists, and may name others as
   * `modelFallbacks`. @default none
   */
  endpoints?: ModelEndpoints;
  /** The endpoint a run that names none uses. @default 'default' */
  defaultEndpoint?: string;
}
