import { Context } from '@temporalio/activity';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { createRedactor, redactFailure, urlCredentials, urlCredentialsProblem, type Redactor } from '../redaction';
import type { ChatMessage, ModelCallInput, ModelCallResult, ToolCall } from '../shared';
import { callNeedsApproval, type ToolRegistry } from '../tools/tool-registry';
import { parseCompletion } from './completion-response';
import { classifyModelError, invalidResponseFailure } from './model-errors';
import { keepHeartbeating } from './heartbeat';
import { requestMessages } from './model-request';

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
}

/** The redactor for failures raised with `settings`: its key, URL credentials and `secrets`. */
export function redactorFor(settings: ModelSettings): Redactor {
  return createRedactor([settings.apiKey, ...urlCredentials(settings.baseURL ?? ''), ...(settings.secrets ?? [])]);
}

/**
 * The `callModel` activity: one chat-completions request, no client-side
 * retries. Every failure it raises has the configured secrets redacted.
 * Throws at once when `settings.baseURL` carries credentials.
 */
export function createModelCall(settings: ModelSettings, registry: ToolRegistry) {
  const problem = settings.baseURL === undefined ? undefined : urlCredentialsProblem('baseURL', settings.baseURL);
  if (problem !== undefined) throw new Error(problem);
  const redact = redactorFor(settings);
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
    const conversation = await keepHeartbeating(context, () => requestMessages(context, input));
    const messages: ChatCompletionMessageParam[] = [
      ...(input.instructions ? [{ role: 'system' as const, content: input.instructions }] : []),
      ...conversation.map(toWireMessage),
    ];

    const response = await keepHeartbeating(context, async () => {
      try {
        // The raw response: the client's own parse returns an HTML page as a string and throws a bare
        // SyntaxError on broken JSON; parseCompletion reads every body the same way and names the problem.
        const raw = await client.chat.completions
          .create(
            {
              model,
              messages,
              ...(tools.length > 0 ? { tools, parallel_tool_calls: input.parallelToolCalls } : {}),
            },
            { signal: context.cancellationSignal },
          )
          .asResponse();
        return { status: raw.status, contentType: raw.headers.get('content-type'), body: await raw.text() };
      } catch (error) {
        // The signal's reason is the SDK's CancelledFailure: rethrown, the call is recorded as cancelled, not failed.
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
    const toolCalls: ToolCall[] = completion.toolCalls.map((call, index) => ({
      id: call.id ?? `call_${context.info.activityId}_${index}`,
      type: 'function' as const,
      function: { name: call.name, arguments: call.arguments },
    }));
    const { promptTokens = 0, completionTokens = 0, totalTokens = promptTokens + completionTokens } = completion.usage;
    return {
      message: {
        role: 'assistant',
        content: completion.content,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
      usage: { promptTokens, completionTokens, totalTokens },
      model: completion.model ?? model,
      finishReason: completion.finishReason,
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
