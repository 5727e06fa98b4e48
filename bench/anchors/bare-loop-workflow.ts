import * as wf from '@temporalio/workflow';
import type { AgentActivities } from '../../src/shared/activity-types';
import type { ChatMessage } from '../../src/shared/messages';

const { callModel, executeTool } = wf.proxyActivities<AgentActivities>({ startToCloseTimeout: '1 minute' });

/** What the bare loop is asked to do. */
export interface BareLoopInput {
  model: string;
  message: string;
  tools: string[];
}

/**
 * The bare Temporal loop the bench measures the runner against: the runner's
 * own model and tool activities (same client, same scripted server), one
 * model call and then one activity per tool call, until the model answers in
 * text; nothing else (no rules, events, state, search attributes). Returns
 * the iterations it ran.
 */
export async function bareLoopWorkflow(input: BareLoopInput): Promise<number> {
  const messages: ChatMessage[] = [{ role: 'user', content: input.message }];
  for (let iteration = 1; ; iteration += 1) {
    const { message } = await callModel({
      model: input.model,
      messages,
      toolNames: input.tools,
      parallelToolCalls: false,
    });
    messages.push(message);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) return iteration;
    for (const call of calls) {
      const result = await executeTool({
        toolName: call.function.name,
        callId: call.id,
        arguments: call.function.arguments,
        allowedTools: input.tools,
      });
      messages.push({ role: 'tool', tool_call_id: call.id, content: result.content });
    }
  }
}
