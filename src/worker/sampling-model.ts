import { createModelClient, redactorFor } from '../activities/model-client';
import { pricedUsage } from '../activities/model-cost';
import type { SamplingModel } from '../mcp/sampling-model';
import { DEFAULT_MAX_TOKENS_FIELD } from '../shared/defaults/model-settings';
import type { ModelSettings } from '../shared/model-settings';

/** The worker's default model answering MCP servers' sampling requests; its client is made at the first request. */
export function samplingModel(settings: ModelSettings): SamplingModel {
  let model: ReturnType<typeof createModelClient> | undefined;
  let redact: ReturnType<typeof redactorFor> | undefined;
  return {
    redact: (text) => (redact ??= model?.redact ?? redactorFor(settings))(text),
    async complete(request, signal) {
      model ??= createModelClient(settings);
      const completion = await model.client.chat.completions.create(
        {
          model: settings.defaultModel,
          messages: request.messages,
          [settings.maxTokensField ?? DEFAULT_MAX_TOKENS_FIELD]: request.maxTokens,
          ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          ...(request.stop === undefined ? {} : { stop: request.stop }),
        },
        { signal },
      );
      const promptTokens = completion.usage?.prompt_tokens ?? 0;
      const completionTokens = completion.usage?.completion_tokens ?? 0;
      const usage = pricedUsage(
        {
          promptTokens,
          completionTokens,
          totalTokens: completion.usage?.total_tokens ?? promptTokens + completionTokens,
        },
        settings.prices,
        settings.defaultModel,
        completion.model,
      );
      const choice = completion.choices[0];
      return {
        text: choice?.message.content ?? '',
        model: completion.model ?? settings.defaultModel,
        usage,
        truncated: choice?.finish_reason === 'length',
      };
    },
  };
}
