import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ModelCallInput, ResponseFormat } from '../shared/activity-types';
import type { ModelEndpoint } from '../shared/model-endpoints';
import type { ModelSettings } from '../shared/model-settings';
import { samplingFields, type SamplingFields } from './sampling-request';

/** The fields of a model call's request besides `model` and `messages`, as its endpoint takes them. */
export interface EndpointRequestFields extends SamplingFields {
  tools?: ChatCompletionTool[];
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat | { type: 'json_object' };
  stream?: true;
  stream_options?: { include_usage: true };
}

/**
 * The request fields of `input` for `endpoint`: its token-cap field, and only what it takes of
 * `parallel_tool_calls`, `response_format` and `stream_options` (each left out where the endpoint says it refuses it).
 */
export function requestFields(
  settings: Pick<ModelSettings, 'sampling'>,
  endpoint: ModelEndpoint,
  input: Pick<ModelCallInput, 'parallelToolCalls' | 'responseFormat' | 'sampling'>,
  tools: ChatCompletionTool[],
  streamed: boolean,
): EndpointRequestFields {
  const format = endpoint.responseFormat ?? 'json_schema';
  return {
    ...(tools.length === 0
      ? {}
      : { tools, ...(endpoint.parallelToolCalls === false ? {} : { parallel_tool_calls: input.parallelToolCalls }) }),
    ...(input.responseFormat === undefined || format === 'none'
      ? {}
      : { response_format: format === 'json_object' ? { type: 'json_object' as const } : input.responseFormat }),
    ...samplingFields(
      { sampling: settings.sampling, maxTokensField: endpoint.maxTokensField },
      input.sampling,
      tools.length > 0,
    ),
    ...(streamed
      ? {
          stream: true as const,
          ...(endpoint.streamUsage === false ? {} : { stream_options: { include_usage: true as const } }),
        }
      : {}),
  };
}
