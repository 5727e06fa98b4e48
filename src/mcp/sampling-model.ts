import type { Usage } from '../shared/messages';

/** A sampling request as the worker's model is asked it, its `maxTokens` capped already. */
interface SamplingRequest {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  maxTokens: number;
  temperature?: number;
  stop?: string[];
}

/** The worker's model's answer to a sampling request. */
interface SamplingAnswer {
  text: string;
  /** The model that answered, as the provider named it, else the default model asked. */
  model: string;
  /** The call's tokens, and their cost where the worker knows the price. */
  usage: Usage;
  /** The answer stopped at `maxTokens`. */
  truncated: boolean;
}

/** The worker's model as MCP sampling asks it: the worker that wires MCP gives it, so `mcp/` holds no model client. */
export interface SamplingModel {
  complete(request: SamplingRequest, signal: AbortSignal): Promise<SamplingAnswer>;
  /** Removes the worker's secrets from text a server or a log line receives. */
  redact(text: string): string;
}
