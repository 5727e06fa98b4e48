import * as otel from '@opentelemetry/api';
import type { Redactor } from '../redaction';
import { CONVERSATION_BAGGAGE_KEY, GENAI, GENAI_PROVIDER, RUNNER_ATTRIBUTES } from '../shared/genai-attributes';
import { capturesContent, tracingOn } from './process-tracing';

/*
 * The GenAI spans the activities open: `chat {model}` around a model call and `execute_tool {tool}` around a tool
 * call, children of Temporal's `RunActivity` span (which the activity interceptor makes active). With tracing off
 * each is one boolean check and a direct call.
 */

const TRACER_NAME = 'agent-runner';

/** What a finished model call tells its span. */
export interface ChatOutcome {
  responseModel: string;
  finishReason: string | null;
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the provider's cache; absent when the provider did not say. */
  cacheReadInputTokens?: number;
  /** Of `outputTokens`, those spent reasoning; absent when the provider did not say. */
  reasoningOutputTokens?: number;
  /** The answer, for content capture. */
  output?: unknown;
  /** The worker's endpoint that answered; absent when the call does not say. */
  endpoint?: string;
  /** The endpoints the call left before it; absent when the first answered. */
  fallbacks?: string[];
}

/** The conversation the active context's run belongs to (set by the workflow's `invoke_agent` span). */
function conversationId(): string | undefined {
  return otel.propagation.getBaggage(otel.context.active())?.getEntry(CONVERSATION_BAGGAGE_KEY)?.value;
}

/** Runs `call` in a `chat {model}` span; `outcome` reads the result's usage and finish reason. */
export async function withChatSpan<Result>(
  model: string,
  call: (span: ChatSpan) => Promise<Result>,
  outcome: (result: Result) => ChatOutcome,
  redact: Redactor,
): Promise<Result> {
  if (!tracingOn()) return call(NO_CHAT_SPAN);
  const conversation = conversationId();
  return otel.trace.getTracer(TRACER_NAME).startActiveSpan(
    `chat ${model}`,
    {
      kind: otel.SpanKind.CLIENT,
      attributes: {
        [GENAI.operationName]: 'chat',
        [GENAI.providerName]: GENAI_PROVIDER,
        [GENAI.requestModel]: model,
        ...(conversation === undefined ? {} : { [GENAI.conversationId]: conversation }),
      },
    },
    async (span) => {
      try {
        const result = await call(chatSpanOf(span, redact));
        const done = outcome(result);
        span.setAttributes({
          [GENAI.responseModel]: done.responseModel,
          [GENAI.responseFinishReasons]: [done.finishReason ?? 'unknown'],
          [GENAI.inputTokens]: done.inputTokens,
          [GENAI.outputTokens]: done.outputTokens,
          ...(done.cacheReadInputTokens === undefined
            ? {}
            : { [GENAI.cacheReadInputTokens]: done.cacheReadInputTokens }),
          ...(done.reasoningOutputTokens === undefined
            ? {}
            : { [GENAI.reasoningOutputTokens]: done.reasoningOutputTokens }),
          ...(done.endpoint === undefined ? {} : { [RUNNER_ATTRIBUTES.modelEndpoint]: done.endpoint }),
          ...(done.fallbacks === undefined ? {} : { [RUNNER_ATTRIBUTES.modelFallbacks]: done.fallbacks }),
        });
        if (capturesContent() && done.output !== undefined)
          span.setAttribute(GENAI.outputMessages, redact(JSON.stringify([done.output])));
        return result;
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** What a model call adds to its span while it runs. */
export interface ChatSpan {
  /** The instructions and messages sent; recorded only with content capture on. */
  recordInput(instructions: string | undefined, messages: unknown[]): void;
}

const NO_CHAT_SPAN: ChatSpan = { recordInput: () => undefined };

function chatSpanOf(span: otel.Span, redact: Redactor): ChatSpan {
  return {
    recordInput(instructions, messages) {
      if (!capturesContent()) return;
      if (instructions !== undefined) span.setAttribute(GENAI.systemInstructions, redact(instructions));
      span.setAttribute(GENAI.inputMessages, redact(JSON.stringify(messages)));
    },
  };
}

/** A tool call as its span names it. */
export interface ToolSpanCall {
  toolName: string;
  callId: string;
  arguments: string;
}

/** Runs `execute` in an `execute_tool {tool}` span; `isError` says whether the tool's result is an error. */
export async function withToolSpan<Result extends { content: string; isError: boolean }>(
  call: ToolSpanCall,
  execute: () => Promise<Result>,
  redact: Redactor,
): Promise<Result> {
  if (!tracingOn()) return execute();
  const conversation = conversationId();
  return otel.trace.getTracer(TRACER_NAME).startActiveSpan(
    `execute_tool ${call.toolName}`,
    {
      kind: otel.SpanKind.INTERNAL,
      attributes: {
        [GENAI.operationName]: 'execute_tool',
        [GENAI.toolName]: call.toolName,
        [GENAI.toolCallId]: call.callId,
        [GENAI.toolType]: 'function',
        ...(conversation === undefined ? {} : { [GENAI.conversationId]: conversation }),
        ...(capturesContent() ? { [GENAI.toolCallArguments]: redact(call.arguments) } : {}),
      },
    },
    async (span) => {
      try {
        const result = await execute();
        // A tool's error result goes back to the model: the call worked, the tool said no.
        if (result.isError) span.setAttribute('error.type', 'tool_error');
        if (capturesContent()) span.setAttribute(GENAI.toolCallResult, redact(result.content));
        return result;
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

function failed(span: otel.Span, error: unknown): void {
  const type = error instanceof Error ? ((error as { type?: unknown }).type ?? error.name) : 'error';
  span.setAttribute('error.type', String(type));
  span.setStatus({ code: otel.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
