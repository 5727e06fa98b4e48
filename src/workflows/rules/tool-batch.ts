import type { AssistantMessage, ToolCall } from '../../shared/messages';

/**
 * Terminating tools' rule for several tool calls in one response: they run in order,
 * execution stops at the first terminating tool, and the calls after it are
 * dropped — from execution and from the stored assistant message, so the
 * transcript stays one the provider accepts.
 */
export interface ToolBatchPlan {
  /** Calls to run before the terminating one (or all of them, when none terminates). */
  leading: ToolCall[];
  /** The first call to a terminating tool, run after `leading`; it ends the run. */
  terminating?: ToolCall;
  /** Calls after the terminating one: never executed. */
  dropped: ToolCall[];
}

/** Splits a response's tool calls around the first call to a terminating tool. */
export function planToolBatch(calls: readonly ToolCall[], terminatingTools: ReadonlySet<string>): ToolBatchPlan {
  const index = calls.findIndex((call) => terminatingTools.has(call.function.name));
  if (index === -1) return { leading: [...calls], dropped: [] };
  return { leading: calls.slice(0, index), terminating: calls[index], dropped: calls.slice(index + 1) };
}

/** The assistant message holding only `kept` calls (the ones that were executed). */
export function keepToolCalls(message: AssistantMessage, kept: readonly ToolCall[]): AssistantMessage {
  const keptIds = new Set(kept.map((call) => call.id));
  return { ...message, tool_calls: (message.tool_calls ?? []).filter((call) => keptIds.has(call.id)) };
}
