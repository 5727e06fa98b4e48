/**
 * The OpenTelemetry GenAI conventions' names this runner writes, pure so workflow and activities share them; written
 * out because the conventions are still in development (not in `semantic-conventions`' stable entry).
 */
export const GENAI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  // Parts of the two counts above, as the conventions define them (semantic-conventions-genai, registry gen-ai).
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  reasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
} as const;

/** The runner's own span attributes, where the conventions have none: which of the worker's endpoints answered. */
export const RUNNER_ATTRIBUTES = {
  /** The endpoint that answered a `chat` span's call (`default`, or a name of `AGENT_MODEL_ENDPOINTS`). */
  modelEndpoint: 'agent_runner.model.endpoint',
  /** The endpoints the call left before it, in order. */
  modelFallbacks: 'agent_runner.model.fallbacks',
} as const;

/** The provider every model call goes to: an OpenAI-compatible chat-completions endpoint. */
export const GENAI_PROVIDER = 'openai';

/**
 * The baggage entry that carries a run's conversation id from its workflow to its activities and to the turns of a
 * conversation, so a `chat` span names the same conversation as its `invoke_agent` span.
 */
export const CONVERSATION_BAGGAGE_KEY = GENAI.conversationId;

/** An agent's name when its input gives none. */
export const DEFAULT_AGENT_NAME = 'agent';
