import type { AssistantMessage, ChatMessage } from '../../shared/messages';

/**
 * The runner owns each tool call's identity, since models reuse ids: each call gets a runner id unique in the whole
 * run when the answer arrives, and everything keyed by a call uses it. The model's id stays in `meta.modelCallIds`,
 * only to answer the model in its own words.
 */

/** The runner's id of the `index`-th call (from 0) of the answer to model call `iteration`. */
export function runnerCallId(iteration: number, index: number): string {
  return `call-${iteration}-${index + 1}`;
}

/** The assistant message with runner ids on its calls, and the model's ids kept beside them. */
export function withRunnerCallIds(message: AssistantMessage, iteration: number): AssistantMessage {
  const calls = message.tool_calls ?? [];
  if (calls.length === 0) return message;
  const modelCallIds: Record<string, string> = {};
  const tool_calls = calls.map((call, index) => {
    const id = runnerCallId(iteration, index);
    modelCallIds[id] = call.id;
    return { ...call, id };
  });
  return { ...message, tool_calls, meta: { ...message.meta, modelCallIds } };
}

/**
 * The conversation as the model is shown it: each call under the model's own id unless an earlier call already has it
 * (then a unique runner id), tool messages following their call, so no id appears twice.
 */
export function messagesForModel(messages: readonly ChatMessage[]): ChatMessage[] {
  const used = new Set<string>();
  // The ids shown for the last assistant message's calls, queued by the id the transcript gives them:
  // a transcript from before runner ids may name two calls of one answer alike, answered in order.
  let shown = new Map<string, string[]>();
  return messages.map((message) => {
    if (message.role === 'tool') {
      const id = shown.get(message.tool_call_id)?.shift() ?? message.tool_call_id;
      return id === message.tool_call_id ? message : { ...message, tool_call_id: id };
    }
    if (message.role !== 'assistant' || message.tool_calls === undefined || message.tool_calls.length === 0)
      return message;
    shown = new Map();
    const modelIds = message.meta?.modelCallIds ?? {};
    let changed = false;
    const tool_calls = message.tool_calls.map((call) => {
      const modelId = Object.hasOwn(modelIds, call.id) ? modelIds[call.id] : undefined;
      const id = uniqueId(typeof modelId === 'string' && modelId !== '' ? modelId : call.id, call.id, used);
      used.add(id);
      shown.set(call.id, [...(shown.get(call.id) ?? []), id]);
      if (id === call.id) return call;
      changed = true;
      return { ...call, id };
    });
    return changed ? { ...message, tool_calls } : message;
  });
}

function uniqueId(preferred: string, fallback: string, used: ReadonlySet<string>): string {
  if (!used.has(preferred)) return preferred;
  if (!used.has(fallback)) return fallback;
  let suffix = 2;
  while (used.has(`${fallback}-${suffix}`)) suffix += 1;
  return `${fallback}-${suffix}`;
}

/**
 * The calls of `assistant` the model-call activity flagged for approval (a tool's
 * `needsApproval` function), named there by the model's ids. Where the model gave two
 * calls one id, both are flagged: a call may wait for a decision it did not need, but
 * never runs without one it needed.
 */
export function flaggedCalls(assistant: AssistantMessage, approvalRequired: readonly string[]): Set<string> {
  const modelIds = assistant.meta?.modelCallIds ?? {};
  const required = new Set(approvalRequired);
  return new Set(
    (assistant.tool_calls ?? [])
      .filter((call) => required.has(Object.hasOwn(modelIds, call.id) ? (modelIds[call.id] as string) : call.id))
      .map((call) => call.id),
  );
}
