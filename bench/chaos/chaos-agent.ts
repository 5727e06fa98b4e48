import type { ChatCompletionRequest, ScriptStep } from '../../src/scripted-model/script';
import { CHAOS_TOOL } from './chaos-tool';

/** The model name the chaos runs ask for. */
export const CHAOS_MODEL = 'chaos-agent';

/** The task message of chaos run `label` with `iterations` model calls; the agent reads both back from it. */
export function chaosTask(label: string, iterations: number): string {
  return `Chaos run ${label}: ${iterations} iterations.`;
}

/**
 * The chaos runs' model: its answer is a pure function of the request, never
 * of how many requests came before, so a model call retried after a crash
 * gets the same answer (and the same tool call ids) as the first attempt.
 * Iteration k (the number of assistant messages so far) calls `chaos_step`
 * once, or twice in parallel when k is odd, and quotes the results it was
 * given (each one's first line and length), so a tool result that differs
 * shows in the model's text too; the last iteration calls `finish`.
 */
export function chaosAgent(request: ChatCompletionRequest): ScriptStep {
  const task = request.messages.find((message) => message.role === 'user')?.content ?? '';
  const match = /^Chaos run (\S+): (\d+) iterations\.$/.exec(task);
  if (match === null) return { error: { status: 400, message: `Not a chaos task: ${JSON.stringify(task)}` } };
  const label = match[1] ?? '';
  const iterations = Number(match[2]);
  const step = request.messages.filter((message) => message.role === 'assistant').length;
  const heard = lastToolResults(request);
  const content = step === 0 ? `Starting chaos run ${label}.` : `Step ${step}; I was told: ${heard.join(' | ')}`;
  if (step + 1 >= iterations) {
    return { content, toolCalls: [{ id: `call_${step}_finish`, name: 'finish', arguments: { note: `Run ${label} done after ${step} steps.` } }] };
  }
  const parts = step % 2 === 1 ? [0, 1] : [0];
  return {
    content,
    toolCalls: parts.map((part) => ({ id: `call_${step}_${part}`, name: CHAOS_TOOL, arguments: { run: label, step, part } })),
  };
}

/** The tool results after the last assistant message, in order. */
function lastToolResults(request: ChatCompletionRequest): string[] {
  const results: string[] = [];
  for (const message of [...request.messages].reverse()) {
    if (message.role !== 'tool') break;
    // The first line and the length: a padded result that differs still shows, and the model's text stays short.
    const content = message.content ?? '';
    results.unshift(`${content.split('\n')[0] ?? ''} (${content.length} chars)`);
  }
  return results;
}
