import type { Usage } from './messages';

/**
 * An MCP server's sampling request (`sampling/createMessage`) answered by the worker's model during a run's tool
 * call: what the worker signals to that run (`mcpSampling`) so the tokens count in its usage and budgets. Pure:
 * used by the worker and the workflow.
 */
export interface McpSamplingUsage {
  /** The run's tool call in flight on the server when it asked. */
  callId: string;
  server: string;
  /** The model that answered, as the provider named it. */
  model: string;
  /** The sampling call's tokens, and their cost where the worker knows the price. */
  usage: Usage;
}

/** The `max_tokens` of a sampling call: the server's request, lowered to the cap; the cap when it asked for none. */
export function cappedSamplingTokens(requested: number | undefined, cap: number): number {
  return requested === undefined || !Number.isFinite(requested) || requested <= 0 ? cap : Math.min(requested, cap);
}
