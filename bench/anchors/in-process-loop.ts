import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ToolRegistry } from '../../src/tools/tool-registry';

/**
 * The in-process anchor: the same loop with the same `openai` client against
 * the same scripted server, the tools run in this process, nothing durable.
 * Returns the iterations it ran.
 */
export async function inProcessLoop(
  openai: OpenAI,
  registry: ToolRegistry,
  model: string,
  message: string,
  toolNames: string[],
): Promise<number> {
  const tools = registry
    .describe()
    .filter((tool) => toolNames.includes(tool.name))
    .map((tool) => ({
      type: 'function' as const,
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: message }];
  for (let iteration = 1; ; iteration += 1) {
    const completion = await openai.chat.completions.create({ model, messages, tools, parallel_tool_calls: false });
    const answer = completion.choices[0]?.message;
    if (answer === undefined) throw new Error('the scripted model answered without a choice');
    messages.push(answer);
    const calls = (answer.tool_calls ?? []).filter((call) => call.type === 'function');
    if (calls.length === 0) return iteration;
    for (const call of calls) {
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: await runTool(registry, call.id, call.function.name, call.function.arguments),
      });
    }
  }
}

/** Validates the arguments with the tool's schema and runs it here, its output as text. */
async function runTool(registry: ToolRegistry, callId: string, name: string, argumentsText: string): Promise<string> {
  const tool = registry.get(name);
  if (tool === undefined) return `Error: no tool "${name}"`;
  const parsed = tool.parameters.safeParse(JSON.parse(argumentsText));
  if (!parsed.success) return `Error: ${parsed.error.message}`;
  const context = {
    idempotencyKey: callId,
    workflowId: 'in-process',
    runId: 'in-process',
    callId,
    attempt: 1,
    signal: new AbortController().signal,
  };
  const output: unknown = await tool.execute(parsed.data, context);
  return typeof output === 'string' ? output : JSON.stringify(output);
}
