import { RESULT_CACHE_DEFAULTS } from '../../src/shared/defaults/context-control';
import type { ChatCompletionRequest, ScriptStep, ScriptedToolCall } from '../../src/scripted-model/script';
import { CHAOS_DELEGATE, DELEGATE_ITERATIONS } from './chaos-delegate';
import { CHAOS_MCP_TOOL } from './chaos-mcp';
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
 * once, or twice in parallel when k is odd (the second call over MCP, the
 * chaos MCP server's `step`, when the run has it); when k is 2 more than a multiple
 * of 4 and the run caches results, it reads back instead, with `result_cache`,
 * the slices the summaries of the oldest and the newest cached result offer;
 * when k is 3 more than a multiple of 4 and the run has `chaos_delegate`, it
 * hands a chaos task of its own (`<label>.<k>`) to that nested agent instead.
 * It quotes the results it was given (each one's first line and length), so
 * a tool result that differs shows in the model's text too; the last
 * iteration calls `finish`. A nested chaos agent is the same model on its
 * own task.
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
    return {
      content,
      toolCalls: [
        { id: `call_${step}_finish`, name: 'finish', arguments: { note: `Run ${label} done after ${step} steps.` } },
      ],
    };
  }
  return { content, toolCalls: stepCalls(request, label, step) };
}

/** The tool calls of step `step` of run `label` (not its last). */
function stepCalls(request: ChatCompletionRequest, label: string, step: number): ScriptedToolCall[] {
  const offered = new Set((request.tools ?? []).map((tool) => tool.function.name));
  if (step % 4 === 3 && offered.has(CHAOS_DELEGATE)) {
    return [
      {
        id: `call_${step}_delegate`,
        name: CHAOS_DELEGATE,
        arguments: { task: chaosTask(`${label}.${step}`, DELEGATE_ITERATIONS) },
      },
    ];
  }
  const reads = step % 4 === 2 && offered.has(RESULT_CACHE_DEFAULTS.toolName) ? offeredSlices(request) : [];
  if (reads.length > 0) {
    return reads.map((slice, index) => ({
      id: `call_${step}_read${index}`,
      name: RESULT_CACHE_DEFAULTS.toolName,
      arguments: slice,
    }));
  }
  const parts = step % 2 === 1 ? [0, 1] : [0];
  return parts.map((part) => ({
    id: `call_${step}_${part}`,
    name: part === 1 && offered.has(CHAOS_MCP_TOOL) ? CHAOS_MCP_TOOL : CHAOS_TOOL,
    arguments: { run: label, step, part },
  }));
}

/**
 * The `result_cache` calls the summaries of cached results offer, for the
 * oldest and the newest of them: a summary reads `[Cached as cache-1: ...,
 * e.g. {"ref":"cache-1","offset":1000,"length":8000} (...)]`, the call that
 * reads on where its head ends.
 */
function offeredSlices(request: ChatCompletionRequest): Record<string, unknown>[] {
  const offers: Record<string, unknown>[] = [];
  for (const message of request.messages) {
    if (message.role !== 'tool') continue;
    const example = /^\[Cached as cache-\d+: [^\n]*? e\.g\. (\{[^}\n]*\})/.exec(message.content ?? '')?.[1];
    if (example === undefined) continue;
    try {
      offers.push(JSON.parse(example) as Record<string, unknown>);
    } catch {
      // A summary phrased otherwise offers nothing to read.
    }
  }
  const oldest = offers[0];
  const newest = offers.at(-1);
  if (oldest === undefined || newest === undefined) return [];
  return oldest === newest ? [oldest] : [oldest, newest];
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
