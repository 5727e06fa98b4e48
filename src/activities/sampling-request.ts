import type { ModelSettings } from '../shared/model-settings';
import { DEFAULT_MAX_TOKENS_FIELD } from '../shared/defaults/model-settings';
import { mergeSampling, type SamplingSettings } from '../shared/sampling';

/** The chat-completions fields of sampling settings; only those set, so a call without any sends none. */
export interface SamplingFields {
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  seed?: number;
  stop?: string[];
  tool_choice?: 'auto' | 'required' | 'none';
}

/**
 * The request fields of a call: the worker's sampling settings with the call's (the run's) over them.
 * `tool_choice` goes only with tools (providers refuse it without), and never on a side call (`withTools`
 * false). The token cap is sent as the worker's `maxTokensField`.
 */
export function samplingFields(
  worker: Pick<ModelSettings, 'sampling' | 'maxTokensField'>,
  call: SamplingSettings | undefined,
  withTools: boolean,
): SamplingFields {
  const sampling = mergeSampling(worker.sampling, call) ?? {};
  return {
    ...(sampling.maxTokens === undefined
      ? {}
      : { [worker.maxTokensField ?? DEFAULT_MAX_TOKENS_FIELD]: sampling.maxTokens }),
    ...(sampling.temperature === undefined ? {} : { temperature: sampling.temperature }),
    ...(sampling.topP === undefined ? {} : { top_p: sampling.topP }),
    ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
    ...(sampling.stop === undefined ? {} : { stop: [...sampling.stop] }),
    ...(sampling.toolChoice === undefined || !withTools ? {} : { tool_choice: sampling.toolChoice }),
  };
}
