import Fastify, { type FastifyInstance } from 'fastify';
import {
  isScriptedError,
  isScriptedKeyEcho,
  isScriptedRawReply,
  isScriptedRawStream,
  type ChatCompletionRequest,
  type Responder,
  type ScriptedReply,
  type ScriptStep,
} from './script';
import { answerChunks, writeStream, type SentChunk } from './stream-reply';

/**
 * An OpenAI-compatible HTTP server answering chat completions from scripts, one queue of steps (or a responder) per
 * model name, so tests and the offline demo run the real `openai` client; `stream: true` streams a token every
 * `tokenDelayMs`.
 */
export class ScriptedModelServer {
  private readonly queues = new Map<string, ScriptStep[]>();
  private readonly responders = new Map<string, Responder>();
  private readonly received = new Map<string, ChatCompletionRequest[]>();
  private readonly sent = new Map<string, SentChunk[]>();
  private sequence = 0;
  private listeningAt = '';
  /** The pause before each streamed chunk, unless a step sets its own. */
  tokenDelayMs = 0;

  private constructor(private readonly app: FastifyInstance) {}

  /** The base URL to give the `openai` client, ending in `/v1`. */
  get baseURL(): string {
    return this.listeningAt;
  }

  /** Starts listening on 127.0.0.1 (port 0 picks a free one). */
  static async start(options: { port?: number; tokenDelayMs?: number } = {}): Promise<ScriptedModelServer> {
    // forceCloseConnections: close() must not wait for the openai client's idle keep-alive sockets.
    const app = Fastify({ logger: false, bodyLimit: 16 * 1024 * 1024, forceCloseConnections: true });
    const server = new ScriptedModelServer(app);
    server.tokenDelayMs = options.tokenDelayMs ?? 0;
    app.post('/v1/chat/completions', async (request, reply) => {
      const body = request.body as ChatCompletionRequest;
      const step = server.next(body);
      if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs));
      const onSent = (chunk: SentChunk) => appendTo(server.sent, body.model, chunk);
      if (isScriptedRawStream(step)) {
        const { chunks, done, tokenDelayMs } = step.rawStream;
        reply.hijack();
        await writeStream(
          reply.raw,
          chunks.map((payload) => ({ payload, text: '' })),
          { tokenDelayMs: tokenDelayMs ?? 0, onSent },
          done ?? true,
        );
        return reply;
      }
      if (isScriptedError(step)) {
        const { status, message, code, headers } = step.error;
        return reply
          .code(status)
          .headers(headers ?? {})
          .send({ error: { message, type: 'scripted_error', code: code ?? null } });
      }
      if (isScriptedRawReply(step)) {
        const { body: raw, status, contentType } = step.raw;
        return reply
          .code(status ?? 200)
          .header('content-type', contentType ?? 'application/json')
          .send(typeof raw === 'string' ? raw : JSON.stringify(raw));
      }
      if (isScriptedKeyEcho(step)) {
        const key = /^Bearer (.*)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
        return reply.code(step.echoKey.status ?? 401).send({
          error: {
            message: `Incorrect API key provided: ${key}.`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        });
      }
      const completion = server.completion(body, step);
      const [choice] = completion.choices;
      if (body.stream !== true || choice === undefined) return completion;
      reply.hijack();
      const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      const chunks = answerChunks({
        id: completion.id,
        model: completion.model,
        content: choice.message.content,
        ...(step.reasoning === undefined ? {} : { reasoning: step.reasoning }),
        toolCalls: (choice.message.tool_calls ?? []).map((call) => ({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        })),
        finishReason: choice.finish_reason,
        ...(includeUsage && completion.usage !== undefined ? { usage: completion.usage } : {}),
      });
      await writeStream(reply.raw, chunks, {
        tokenDelayMs: step.tokenDelayMs ?? server.tokenDelayMs,
        ...(step.breakAfterChunks === undefined ? {} : { breakAfterChunks: step.breakAfterChunks }),
        onSent,
      });
      return reply;
    });
    app.get('/v1/models', async () => ({
      object: 'list',
      data: [...server.knownModels()].map((id) => ({ id, object: 'model', owned_by: 'scripted' })),
    }));
    server.listeningAt = `${await app.listen({ host: '127.0.0.1', port: options.port ?? 0 })}/v1`;
    return server;
  }

  /** Queues steps for `model`; each request for that model takes the next one. */
  script(model: string, steps: ScriptStep[]): this {
    this.queues.set(model, [...(this.queues.get(model) ?? []), ...steps]);
    return this;
  }

  /** Answers every request for `model` with `responder`. */
  respond(model: string, responder: Responder): this {
    this.responders.set(model, responder);
    return this;
  }

  /** The requests received for `model`, in order. */
  requests(model: string): ChatCompletionRequest[] {
    return [...(this.received.get(model) ?? [])];
  }

  /** The streamed chunks written for `model`, in order, with when each was written. */
  sentChunks(model: string): SentChunk[] {
    return [...(this.sent.get(model) ?? [])];
  }

  /** Steps queued for `model` and not yet played. */
  remaining(model: string): number {
    return this.queues.get(model)?.length ?? 0;
  }

  async close(): Promise<void> {
    await this.app.close();
  }

  private knownModels(): Set<string> {
    return new Set([...this.queues.keys(), ...this.responders.keys()]);
  }

  private next(body: ChatCompletionRequest): ScriptStep & { delayMs?: number } {
    appendTo(this.received, body.model, body);
    const responder = this.responders.get(body.model);
    if (responder !== undefined) return responder(body);
    const step = this.queues.get(body.model)?.shift();
    if (step !== undefined) return step;
    // 400 is not retried, so a test with too short a script fails at once with this message.
    return { error: { status: 400, message: `The scripted model "${body.model}" has no reply left to give.` } };
  }

  private completion(body: ChatCompletionRequest, step: ScriptedReply) {
    const toolCalls = (step.toolCalls ?? []).map((call, index) => ({
      id: call.id ?? `call_${++this.sequence}_${index}`,
      type: 'function' as const,
      function: {
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
      },
    }));
    const promptTokens = estimateTokens(JSON.stringify(body.messages) + JSON.stringify(body.tools ?? []));
    const completionTokens =
      estimateTokens((step.content ?? '') + JSON.stringify(toolCalls)) + (step.reasoningTokens ?? 0);
    return {
      id: `chatcmpl-scripted-${++this.sequence}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: step.content ?? null,
            ...(step.reasoning === undefined ? {} : { reasoning_content: step.reasoning }),
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: step.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
        },
      ],
      ...(step.omitUsage === true
        ? {}
        : {
            usage: {
              prompt_tokens: promptTokens,
              completion_tokens: completionTokens,
              total_tokens: promptTokens + completionTokens,
              ...(step.cachedTokens === undefined
                ? {}
                : { prompt_tokens_details: { cached_tokens: Math.min(step.cachedTokens, promptTokens) } }),
              ...(step.reasoningTokens === undefined
                ? {}
                : { completion_tokens_details: { reasoning_tokens: step.reasoningTokens } }),
            },
          }),
    };
  }
}

/** About four characters a token, as providers' own rough guides say. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Adds `value` to `key`'s list in place: a long bench sends thousands of requests and chunks to one model, and
 * copying its list at each one made the server slower with every call.
 */
function appendTo<T>(lists: Map<string, T[]>, key: string, value: T): void {
  const list = lists.get(key);
  if (list === undefined) lists.set(key, [value]);
  else list.push(value);
}
