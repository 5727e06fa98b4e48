import { z } from 'zod';
import { issuePath } from './issue-path';

/**
 * Reads a chat-completions body, untrusted whatever its content-type, field by field, so a bad body is a named problem.
 */

/** The parts of a chat completion the runner uses. */
export interface ParsedCompletion {
  content: string | null;
  /** Function tool calls in order; calls of other types (custom tools) are left out. */
  toolCalls: { id?: string; name: string; arguments: string }[];
  finishReason: string | null;
  /** The model that answered, when the provider says. */
  model?: string;
  usage: {
    promptTokens?: number;
    completionTokens?: number;
    totalTokens?: number;
    /** `prompt_tokens_details.cached_tokens`: of the prompt's tokens, those read from the provider's cache. */
    cachedPromptTokens?: number;
    /** `completion_tokens_details.reasoning_tokens`: of the completion's tokens, those spent reasoning. */
    reasoningTokens?: number;
  };
}

/** The completion, or what is wrong with the body (a phrase: "it has no choices"). */
export type CompletionParse = { ok: true; completion: ParsedCompletion } | { ok: false; problem: string };

const tokenCount = z.number().int().nonnegative().nullish();

const functionCallSchema = z.object({
  id: z.string().nullish(),
  function: z.object({
    name: z.string().min(1),
    // A few OpenAI-compatible servers send the arguments as an object rather than JSON text.
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

const choiceSchema = z.object({
  message: z.object({
    content: z.string().nullish(),
    tool_calls: z.array(z.object({ type: z.string().nullish() }).loose()).nullish(),
  }),
  // Informational only: an unusual value is not worth failing a call over.
  finish_reason: z.string().nullish().catch(null),
});

// Only the first choice is read (the runner asks for one), so only its shape is checked.
const completionSchema = z.object({
  choices: z.array(z.unknown()).min(1, 'it has no choices'),
  model: z.string().nullish().catch(undefined),
  usage: z
    .object({
      prompt_tokens: tokenCount,
      completion_tokens: tokenCount,
      total_tokens: tokenCount,
      // Details only refine the counts: a shape no provider documents is dropped, not worth failing a call over.
      prompt_tokens_details: z.object({ cached_tokens: tokenCount }).nullish().catch(undefined),
      completion_tokens_details: z.object({ reasoning_tokens: tokenCount }).nullish().catch(undefined),
    })
    .nullish(),
});

/** Parses `body`, the text of a 2xx chat-completions response. */
export function parseCompletion(body: string): CompletionParse {
  if (body.trim() === '') return { ok: false, problem: 'the body is empty' };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, problem: 'the body is not JSON' };
  }
  return readCompletion(json);
}

/** Reads a chat completion already parsed from JSON (a body, or one assembled from a stream's chunks). */
export function readCompletion(json: unknown): CompletionParse {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, problem: 'the body is not a JSON object' };
  }
  if (!('choices' in json) || json.choices === undefined || json.choices === null) {
    return { ok: false, problem: 'it has no choices' };
  }
  const parsed = completionSchema.safeParse(json);
  if (!parsed.success) return { ok: false, problem: describeIssue(parsed.error.issues) };
  const completion = parsed.data;
  const parsedChoice = choiceSchema.safeParse(completion.choices[0]);
  if (!parsedChoice.success) return { ok: false, problem: describeIssue(parsedChoice.error.issues, ['choices', 0]) };
  const choice = parsedChoice.data;

  const toolCalls: ParsedCompletion['toolCalls'] = [];
  for (const [index, call] of (choice.message.tool_calls ?? []).entries()) {
    // Tool calls of other kinds (custom tools) are not the runner's; a missing type is read as a function call.
    if (call.type !== undefined && call.type !== null && call.type !== 'function') continue;
    const functionCall = functionCallSchema.safeParse(call);
    if (!functionCall.success) {
      return {
        ok: false,
        problem: describeIssue(functionCall.error.issues, ['choices', 0, 'message', 'tool_calls', index]),
      };
    }
    const { id, function: fn } = functionCall.data;
    toolCalls.push({
      ...(id ? { id } : {}),
      name: fn.name,
      arguments:
        typeof fn.arguments === 'string' ? fn.arguments : fn.arguments == null ? '' : JSON.stringify(fn.arguments),
    });
  }
  const usage = completion.usage ?? {};
  return {
    ok: true,
    completion: {
      content: choice.message.content ?? null,
      toolCalls,
      finishReason: choice.finish_reason ?? null,
      ...(completion.model ? { model: completion.model } : {}),
      usage: {
        ...(usage.prompt_tokens == null ? {} : { promptTokens: usage.prompt_tokens }),
        ...(usage.completion_tokens == null ? {} : { completionTokens: usage.completion_tokens }),
        ...(usage.total_tokens == null ? {} : { totalTokens: usage.total_tokens }),
        ...(usage.prompt_tokens_details?.cached_tokens == null
          ? {}
          : { cachedPromptTokens: usage.prompt_tokens_details.cached_tokens }),
        ...(usage.completion_tokens_details?.reasoning_tokens == null
          ? {}
          : { reasoningTokens: usage.completion_tokens_details.reasoning_tokens }),
      },
    },
  };
}

/** The first problem, as `choices[0].message: expected object, received null`. */
function describeIssue(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): string {
  const [issue] = issues;
  if (issue === undefined) return 'it is not a chat completion';
  if (issue.path.length === 1 && issue.path[0] === 'choices' && issue.code === 'too_small') return issue.message;
  return `${issuePath([...prefix, ...issue.path])}: ${issue.message}`;
}
