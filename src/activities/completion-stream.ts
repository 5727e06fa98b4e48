import { z } from 'zod';
import type { ModelDelta } from '../shared/model-stream-events';
import { issuePath } from './issue-path';

/**
 * Assembles a chat completion from a streamed answer's untrusted chunks (a malformed one becomes a named problem) and
 * names their deltas; `readCompletion` then checks it exactly as it checks a non-streamed body.
 */

const text = z.string().nullish();

const toolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative().max(1_000),
  id: text,
  type: text,
  function: z.object({ name: text, arguments: text }).nullish(),
});

const chunkChoiceSchema = z.object({
  index: z.number().int().nullish(),
  delta: z
    .object({
      content: text,
      reasoning_content: text,
      reasoning: text,
      tool_calls: z.array(toolCallDeltaSchema).nullish(),
    })
    .nullish(),
  // Informational only, as in a non-streamed answer.
  finish_reason: z.string().nullish().catch(null),
});

const chunkSchema = z.object({
  choices: z.array(z.unknown()).nullish(),
  model: z.string().nullish().catch(undefined),
  usage: z.unknown().optional(),
});

/**
 * The result of adding one chunk: its deltas, or what is wrong with it; `error` is the provider's error object when
 * the chunk is an error the provider sent in the stream (`{"error":{"code":500,...}}`).
 */
export type ChunkReading = { ok: true; deltas: ModelDelta[] } | { ok: false; problem: string; error?: object };

interface ToolCallParts {
  id?: string;
  type?: string;
  name: string;
  arguments: string;
}

/** One streamed answer being put together, chunk by chunk. */
export class CompletionAssembler {
  private chunks = 0;
  private sawChoice = false;
  private content: string | null = null;
  private readonly toolCalls = new Map<number, ToolCallParts>();
  private finishReason: string | null = null;
  private model: string | undefined;
  private usage: unknown;

  /** How many chunks were added. */
  get chunkCount(): number {
    return this.chunks;
  }

  /** Whether the provider said why the answer ended: a stream cut before that is incomplete. */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  /** Adds the `data` of one event (not `[DONE]`). */
  add(data: string): ChunkReading {
    this.chunks += 1;
    const where = `chunk ${this.chunks}`;
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return { ok: false, problem: `${where} is not JSON` };
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      return { ok: false, problem: `${where} is not a JSON object` };
    if ('error' in json && json.error !== null && json.error !== undefined) {
      const message = (json.error as { message?: unknown }).message;
      return {
        ok: false,
        problem: `${where} is an error: ${typeof message === 'string' ? message : JSON.stringify(json.error)}`,
        error: typeof json.error === 'object' ? json.error : { message: String(json.error) },
      };
    }
    const chunk = chunkSchema.safeParse(json);
    if (!chunk.success) return { ok: false, problem: `${where}: ${describe(chunk.error.issues)}` };
    if (chunk.data.model) this.model = chunk.data.model;
    if (chunk.data.usage !== undefined && chunk.data.usage !== null) this.usage = chunk.data.usage;
    // The runner asks for one choice; others (a server that ignores `n`) are not read, as in a whole answer.
    const first = chunk.data.choices?.find(
      (choice) => (choice as { index?: unknown }).index === 0 || (choice as { index?: unknown }).index === undefined,
    );
    if (first === undefined) return { ok: true, deltas: [] };
    const choice = chunkChoiceSchema.safeParse(first);
    if (!choice.success) return { ok: false, problem: `${where}: choices[0].${describe(choice.error.issues)}` };
    this.sawChoice = true;
    if (choice.data.finish_reason) this.finishReason = choice.data.finish_reason;
    return { ok: true, deltas: this.take(choice.data.delta ?? {}) };
  }

  /**
   * The answer as a chat-completions body would carry it: what
   * `readCompletion` reads. Without any choice in any chunk, `choices` is
   * empty, which it reads as "it has no choices".
   */
  completion(): unknown {
    const toolCalls = [...this.toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({
        ...(call.id === undefined ? {} : { id: call.id }),
        type: call.type ?? 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    return {
      choices: this.sawChoice
        ? [
            {
              message: { content: this.content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
              finish_reason: this.finishReason,
            },
          ]
        : [],
      ...(this.model === undefined ? {} : { model: this.model }),
      ...(this.usage === undefined ? {} : { usage: this.usage }),
    };
  }

  private take(delta: z.infer<typeof chunkChoiceSchema>['delta'] & object): ModelDelta[] {
    const deltas: ModelDelta[] = [];
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) deltas.push({ kind: 'reasoning', text: reasoning });
    // Providers open with `content: ''` even before tool calls only; a whole answer then says null, so '' adds nothing.
    if (delta.content) {
      this.content = (this.content ?? '') + delta.content;
      deltas.push({ kind: 'text', text: delta.content });
    }
    for (const call of delta.tool_calls ?? []) {
      const parts = this.toolCalls.get(call.index) ?? { name: '', arguments: '' };
      const fragment: ModelDelta & { kind: 'tool-call' } = { kind: 'tool-call', toolIndex: call.index };
      if (call.id) {
        parts.id = call.id;
        fragment.id = call.id;
      }
      if (call.type) parts.type = call.type;
      // Names come whole in one chunk from most providers; a few split them, so they are joined like arguments.
      if (call.function?.name) {
        parts.name += call.function.name;
        fragment.name = call.function.name;
      }
      if (call.function?.arguments) {
        parts.arguments += call.function.arguments;
        fragment.arguments = call.function.arguments;
      }
      this.toolCalls.set(call.index, parts);
      if (fragment.id !== undefined || fragment.name !== undefined || fragment.arguments !== undefined)
        deltas.push(fragment);
    }
    return deltas;
  }
}

/** The first problem, as `delta.tool_calls[0].index: expected number, received string`. */
function describe(issues: readonly z.core.$ZodIssue[]): string {
  const [issue] = issues;
  if (issue === undefined) return 'it is not a chat-completion chunk';
  const path = issuePath(issue.path);
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}
