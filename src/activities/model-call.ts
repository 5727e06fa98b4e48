import { Context } from '@temporalio/activity';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage, ModelCallInput, ModelCallResult, ToolCall } from '../shared';
import { callNeedsApproval, type ToolRegistry } from '../tools/tool-registry';
import { classifyModelError } from './model-errors';
import { keepHeartbeating } from './heartbeat';

/** How the worker reaches the model. */
export interface ModelSettings {
  /** Sent as the bearer token; a placeholder is used for servers that need none. */
  apiKey?: string;
  /** An OpenAI-compatible server's `/v1` URL. @default 'https://api.openai.com/v1' */
  baseURL?: string;
  /** Model used when a run names none. */
  defaultModel: string;
}

/** The `callModel` activity: one chat-completions request, no client-side retries. */
export function createModelCall(settings: ModelSettings, registry: ToolRegistry) {
  const client = new OpenAI({
    apiKey: settings.apiKey ?? 'unused',
    baseURL: settings.baseURL,
    // Temporal owns retry: a retry here would hide failures from the history and the retry policy.
    maxRetries: 0,
  });
  const baseURL = client.baseURL;

  return async function callModel(input: ModelCallInput): Promise<ModelCallResult> {
    const context = Context.current();
    const model = input.model ?? settings.defaultModel;
    const tools: ChatCompletionTool[] = registry
      .describe()
      .filter((tool) => input.toolNames.includes(tool.name))
      .map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
    const messages: ChatCompletionMessageParam[] = [
      ...(input.instructions ? [{ role: 'system' as const, content: input.instructions }] : []),
      ...input.messages.map(toWireMessage),
    ];

    const completion = await keepHeartbeating(context, async () => {
      try {
        return await client.chat.completions.create(
          {
            model,
            messages,
            ...(tools.length > 0 ? { tools, parallel_tool_calls: input.parallelToolCalls } : {}),
          },
          { signal: context.cancellationSignal },
        );
      } catch (error) {
        // The signal's reason is the SDK's CancelledFailure: rethrown, the call is recorded as cancelled, not failed.
        if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason ?? error;
        throw classifyModelError(error, { model, baseURL });
      }
    });

    const choice = completion.choices[0];
    if (choice === undefined) {
      throw classifyModelError(new Error('the response has no choices'), { model, baseURL });
    }
    const toolCalls: ToolCall[] = (choice.message.tool_calls ?? []).flatMap((call, index) =>
      call.type === 'function'
        ? [
            {
              id: call.id || `call_${context.info.activityId}_${index}`,
              type: 'function' as const,
              function: { name: call.function.name, arguments: call.function.arguments ?? '' },
            },
          ]
        : [],
    );
    const usage = completion.usage;
    return {
      message: {
        role: 'assistant',
        content: choice.message.content ?? null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
      usage: {
        promptTokens: usage?.prompt_tokens ?? 0,
        completionTokens: usage?.completion_tokens ?? 0,
        totalTokens: usage?.total_tokens ?? (usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0),
      },
      model: completion.model || model,
      finishReason: choice.finish_reason ?? null,
      approvalRequired: toolCalls.flatMap((call) => {
        const tool = registry.get(call.function.name);
        return tool !== undefined && callNeedsApproval(tool, call.function.arguments) ? [call.id] : [];
      }),
    };
  };
}

/** The message as the provider expects it: runner bookkeeping (`meta`) removed. */
function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { meta, ...wire } = message;
  return wire as ChatCompletionMessageParam;
}
