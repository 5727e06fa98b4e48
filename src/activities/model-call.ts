import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { redactFailure } from '../redaction';
import type { ToolCall } from '../shared/messages';
import type { EndpointFailure, ModelCallInput, ModelCallResult } from '../shared/activity-types';
import type { ModelSettings } from '../shared/model-settings';
import { priceOf } from '../shared/prices';
import { completionUsage, priceUnknownFailure, pricedUsage } from './model-cost';
import { AttemptUsage, carriedUsage, withSpentUsage } from './attempt-usage';
import { SPENT_USAGE_KEY } from '../shared/spent-usage';
import { addUsage, type Usage } from '../shared/messages';
import { createEndpointClients } from './model-client';
import { priceName, routesOf, type ModelRoute } from './model-routes';
import { fallsBack } from './endpoint-fallback';
import { afterFallbacks, endpointFailureOf } from './endpoint-failures';
import { requestFields } from './endpoint-request';
import { callNeedsApproval, type ToolRegistry } from '../tools/tool-registry';
import type { ModelStreamAnnouncement } from '../shared/model-stream-events';
import { parseCompletion, readCompletion, type CompletionParse, type ParsedCompletion } from './completion-response';
import { DeltaHub, type DeltaChannel } from './delta-hub';
import { classifyModelError, invalidResponseFailure, streamedError, streamInterruptedFailure } from './model-errors';
import { keepHeartbeating } from './heartbeat';
import { requestMessages } from './model-request';
import { readStreamedAnswer, type StreamedAnswer } from './streamed-answer';
import { throwIfCancelled } from './cancellation';
import {
  countProviderFailure,
  providerAttemptOf,
  providerFailuresIn,
  throwIfBudgetSpent,
  withProviderFailures,
} from './provider-failures';
import { toWireMessage } from './wire-message';
import { withChatSpan, type ChatOutcome, type ChatSpan } from '../tracing/genai-spans';

/**
 * The `callModel` activity: one chat-completions request, no client-side retries, failures redacted; streamed unless
 * `settings.stream` is false, its deltas published on `hub`.
 */
export function createModelCall(
  settings: ModelSettings,
  registry: ToolRegistry,
  hub: DeltaHub | false = DeltaHub.forProcess(),
  options: ModelCallOptions = {},
) {
  const intervalMs = options.heartbeatIntervalMs;
  const { table, clientOf, redact } = createEndpointClients(settings);

  return async function callModel(input: ModelCallInput): Promise<ModelCallResult> {
    const routes = routesOf(table, input.model, input.fallbacks);
    return withChatSpan(routes[0].model, (span) => answer(input, routes, span), chatOutcome, redact);
  };

  async function answer(
    input: ModelCallInput,
    routes: [ModelRoute, ...ModelRoute[]],
    span: ChatSpan,
  ): Promise<ModelCallResult> {
    const context = Context.current();
    throwIfBudgetSpent(context, `model "${routes[0].model}" at ${clientOf(routes[0].endpoint).baseURL}`);
    // Before anything is sent: a run with a cost budget never spends on a call it cannot price, on any endpoint.
    for (const route of routes) {
      const priced = priceName(settings.prices, route);
      if (input.requirePrice === true && priceOf(settings.prices, priced) === undefined)
        throw priceUnknownFailure(priced, settings.prices);
    }
    // What earlier attempts spent goes with every heartbeat of this one, or the server would forget it.
    const carried = carriedUsage(context.info.heartbeatDetails);
    // And the provider failures of earlier attempts, which bound the call's attempts (provider-failures.ts).
    const failures = providerFailuresIn(context.info.heartbeatDetails);
    const carriedUsageDetails = carried === undefined ? undefined : { [SPENT_USAGE_KEY]: carried };
    const carriedDetails = withProviderFailures(carriedUsageDetails, failures);
    // A failure before the request (the MCP servers' tools, the conversation) counts as the provider's do.
    const countedBefore = (error: unknown): never => {
      if (context.cancellationSignal.aborted) throw error;
      throw countProviderFailure(context, error, (count) => withProviderFailures(carriedUsageDetails, count));
    };
    // MCP servers' tools are described by their servers (listed once per worker, then cached).
    const external = await registry.describeExternal(input.toolNames).catch(countedBefore);
    const offered = [...registry.describe(), ...external.tools].filter((tool) => input.toolNames.includes(tool.name));
    // The tools the workflow answers itself (`context_release`, `result_cache`) are described by the workflow.
    const tools: ChatCompletionTool[] = [...offered, ...(input.workflowTools ?? [])].map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    const conversation = await keepHeartbeating(context, () => requestMessages(context, input), {
      intervalMs,
      ...(carriedDetails === undefined ? {} : { live: () => carriedDetails }),
    }).catch(countedBefore);
    const wireConversation = conversation.map(toWireMessage);
    span.recordInput(input.instructions, wireConversation);
    const messages: ChatCompletionMessageParam[] = [
      ...(input.instructions ? [{ role: 'system' as const, content: input.instructions }] : []),
      ...wireConversation,
    ];
    // The route being tried: what the meter prices, what a failure names.
    let route: ModelRoute = routes[0];
    const meter = new AttemptUsage(JSON.stringify(messages).length + JSON.stringify(tools).length, carried, (usage) =>
      pricedUsage(usage, settings.prices, priceName(settings.prices, route)),
    );
    // Once a delta reached followers the answer has begun: it is not started again on another endpoint.
    let published = false;

    // A run's stream key and a worker whose identity names its hub: followers find the stream with no heartbeat.
    const keyed = input.streamKey !== undefined && options.streamsInIdentity?.() === true ? input.streamKey : undefined;
    const channel: DeltaChannel | undefined =
      settings.stream === false || hub === false ? undefined : await openChannel(hub, context, keyed);
    const announcement: ModelStreamAnnouncement | undefined =
      channel === undefined || keyed !== undefined
        ? undefined
        : {
            modelStream: {
              url: channel.url,
              token: channel.token,
              attempt: context.info.attempt,
              ...(input.iteration === undefined ? {} : { iteration: input.iteration }),
            },
          };
    /** One request to `route`'s endpoint: its answer, or the classified, redacted failure. */
    async function ask({ endpoint, model }: ModelRoute): Promise<ModelCallResult> {
      const { client, baseURL } = clientOf(endpoint);
      const streamed = channel !== undefined && endpoint.stream !== false;
      const response = await keepHeartbeating(
        context,
        async (): Promise<AnswerBody | BrokenStream> => {
          try {
            // The raw response: the client's own parse returns an HTML page as a string and throws a bare
            // SyntaxError on broken JSON; parseCompletion reads every body the same way and names the problem.
            const raw = await client.chat.completions
              .create(
                { model, messages, ...requestFields(settings, endpoint, input, tools, streamed) },
                { signal: context.cancellationSignal },
              )
              .asResponse();
            const contentType = raw.headers.get('content-type');
            // A server may answer a streamed request with one JSON body: it is read as a non-streamed answer.
            if (
              channel === undefined ||
              !streamed ||
              raw.body === null ||
              !/^text\/event-stream\b/i.test(contentType ?? '')
            ) {
              const body = await raw.text();
              return { status: raw.status, contentType, body, parsed: parseCompletion(body) };
            }
            const answered = await readStreamedAnswer(
              raw.body,
              (delta) => {
                published = true;
                meter.add(delta);
                channel.publish(delta);
              },
              context.cancellationSignal,
            );
            // Returned, not thrown: this catch is for the request's own errors, which a broken stream is not.
            if (answered.kind === 'broken') return answered;
            // An error the provider sent in the stream is one of the request's own: classified as its status.
            if (answered.kind === 'error') throw streamedError(answered.error, answered.chunks, raw.headers);
            if (answered.kind === 'invalid')
              return {
                status: raw.status,
                contentType,
                body: answered.sample,
                parsed: { ok: false, problem: answered.problem },
              };
            return { status: raw.status, contentType, body: '', parsed: readCompletion(answered.completion) };
          } catch (error) {
            throwIfCancelled(context, error);
            throw redactFailure(classifyModelError(error, { model, baseURL, ...providerAttemptOf(context) }), redact);
          }
        },
        {
          intervalMs,
          details: announcement,
          live: () => meter.details(withProviderFailures(announcement, failures)),
          final: () => meter.details(withProviderFailures(announcement, failures + 1)),
        },
      );

      if ('kind' in response) {
        const interrupted = streamInterruptedFailure(response.reason, response.chunks, {
          model,
          baseURL,
          ...providerAttemptOf(context),
        });
        // As for a failed request: a stream that broke off as the call was cancelled is the cancellation.
        throwIfCancelled(context, interrupted);
        throw redactFailure(interrupted, redact);
      }
      const { parsed } = response;
      if (!parsed.ok) {
        const failure = invalidResponseFailure(
          {
            status: response.status,
            contentType: response.contentType,
            body: redact(response.body),
            problem: parsed.problem,
          },
          { model, baseURL, attempt: providerAttemptOf(context).attempt },
        );
        throw redactFailure(failure, redact);
      }
      return toResult(parsed.completion, model, priceName(settings.prices, { endpoint, model }), meter);
    }

    let outcome: 'completed' | 'failed' = 'failed';
    try {
      const failures: EndpointFailure[] = [];
      for (const [index, next] of routes.entries()) {
        route = next;
        try {
          const result = await ask(route);
          outcome = 'completed';
          return {
            ...result,
            endpoint: route.endpoint.name,
            ...(failures.length === 0 ? {} : { fallbacks: failures }),
          };
        } catch (error) {
          const last = index === routes.length - 1;
          if (last || context.cancellationSignal.aborted || published || !fallsBack(error))
            throw afterFallbacks(error, failures);
          failures.push(endpointFailureOf(route, error));
          context.log.warn(
            `Model endpoint "${route.endpoint.name}" failed (${failures.at(-1)?.type}); trying "${routes[index + 1]?.endpoint.name}".`,
          );
        }
      }
      throw new Error('A model call has at least one route.');
    } catch (error) {
      if (context.cancellationSignal.aborted) {
        // A worker shutting down (a deploy) hands the call to another worker: what this attempt spent goes with it.
        if (context.cancellationDetails?.workerShutdown === true && meter.spent() !== undefined)
          context.heartbeat(meter.details(withProviderFailures(announcement, failures)));
        throw error;
      }
      // The next attempt reads the spending and the count from this heartbeat; the workflow, from the failure.
      throw countProviderFailure(context, withSpentUsage(ApplicationFailure.fromError(error), meter.spent()), (count) =>
        meter.details(withProviderFailures(announcement, count)),
      );
    } finally {
      // Before the result reaches the workflow: a follower sees the stream end before the recorded answer.
      channel?.end(outcome);
    }
  }

  /** The activity's result for a checked completion: the same whether it came whole or streamed. */
  function toResult(completion: ParsedCompletion, model: string, priced: string, meter: AttemptUsage): ModelCallResult {
    const context = Context.current();
    const toolCalls: ToolCall[] = completion.toolCalls.map((call, index) => ({
      id: call.id ?? `call_${context.info.activityId}_${index}`,
      type: 'function' as const,
      function: { name: call.name, arguments: call.arguments },
    }));
    return {
      message: {
        role: 'assistant',
        content: completion.content,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
      usage: answerUsage(completion, priced, meter),
      model: completion.model ?? model,
      finishReason: completion.finishReason,
      approvalRequired: toolCalls.flatMap((call) => {
        const tool = registry.get(call.function.name);
        return tool !== undefined && callNeedsApproval(tool, call.function.arguments) ? [call.id] : [];
      }),
    };
  }

  /**
   * The answer's usage as the provider counted it, or estimated from what it wrote when it counted nothing
   * (a server that ignores `stream_options.include_usage`); with what earlier attempts spent added.
   */
  function answerUsage(completion: ParsedCompletion, priced: string, meter: AttemptUsage): Usage {
    const { promptTokens, completionTokens, totalTokens } = completion.usage;
    const counted = promptTokens !== undefined || completionTokens !== undefined || totalTokens !== undefined;
    if (!counted && meter.generated === 0) meter.addText(completion.content ?? '', completion.toolCalls);
    const own = counted ? completionUsage(completion, settings.prices, priced) : meter.estimate();
    return meter.carried === undefined ? own : addUsage(meter.carried, own);
  }
}

/** What the `chat` span records of an answer. */
function chatOutcome(result: ModelCallResult): ChatOutcome {
  return {
    responseModel: result.model,
    finishReason: result.finishReason,
    inputTokens: result.usage.promptTokens,
    outputTokens: result.usage.completionTokens,
    ...(result.usage.cachedPromptTokens === undefined ? {} : { cacheReadInputTokens: result.usage.cachedPromptTokens }),
    ...(result.usage.reasoningTokens === undefined ? {} : { reasoningOutputTokens: result.usage.reasoningTokens }),
    output: result.message,
    ...(result.endpoint === undefined ? {} : { endpoint: result.endpoint }),
    ...(result.fallbacks === undefined ? {} : { fallbacks: result.fallbacks.map((failure) => failure.endpoint) }),
  };
}

/**
 * A channel for this attempt's deltas; none (and an answer asked for whole) when the worker's
 * delta server cannot listen: followers then see the recorded answer only, but the call goes on.
 */
async function openChannel(
  hub: DeltaHub,
  context: Context,
  key: string | undefined,
): Promise<DeltaChannel | undefined> {
  try {
    const { workflowExecution, activityId, attempt } = context.info;
    if (key === undefined || workflowExecution === undefined) return await hub.open();
    return await hub.openCall({ runId: workflowExecution.runId, activityId, attempt }, key);
  } catch (error) {
    context.log.warn(
      `Model deltas are not streamed to followers: the worker's delta server could not start (${error instanceof Error ? error.message : String(error)}).`,
    );
    return undefined;
  }
}

/** How a worker's model calls heartbeat and announce their streams. */
export interface ModelCallOptions {
  /** The worker's heartbeat interval. @default `ACTIVITY_DEFAULTS.heartbeatIntervalMs` */
  heartbeatIntervalMs?: number | undefined;
  /** Whether the worker's identity names the hub's URL, so a call with a stream key announces nothing. @default never */
  streamsInIdentity?: (() => boolean) | undefined;
}

/** A 2xx answer's body as received (quoted in a failure) and what reading it found. */
interface AnswerBody {
  status: number;
  contentType: string | null;
  /** The whole body; for a stream, the chunk that could not be read ('' when all could). */
  body: string;
  parsed: CompletionParse;
}

/** A streamed answer that broke off before the provider said it was complete. */
type BrokenStream = Extract<StreamedAnswer, { kind: 'broken' }>;
