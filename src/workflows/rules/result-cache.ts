import { RESULT_CACHE_DEFAULTS } from '../../shared/defaults/context-control';
import { cutAt, isHighSurrogate } from './result-processing';
import type { WorkflowToolSpec } from '../../shared/activity-types';

/**
 * The result pipeline's cacher and the `result_cache` tool: a result past `inlineThreshold` is kept here and the model
 * gets its head, size and a reference to read slices of. The cache is workflow state, so it is bounded by
 * {@link RESULT_CACHE_DEFAULTS.maxChars}, oldest out first.
 */

/** One cached result. */
export interface ResultCacheEntry {
  /** What the model reads it by: `cache-1`, `cache-2`, ... in the order results were cached (a parallel batch's in its calls' order). */
  ref: string;
  toolName: string;
  callId: string;
  /** The iteration whose tool call produced it. */
  iteration: number;
  /** The result as the cacher got it (cut to the cache's bound when even alone it was longer). */
  content: string;
  /** The result's length before any cut to the cache's bound. */
  originalChars: number;
}

/** The run's result cache: entries oldest first, and the number the next reference gets. */
export interface ResultCache {
  entries: ResultCacheEntry[];
  nextNumber: number;
}

/** What {@link cacheResult} did: the cache after it, the new entry, and the references it dropped to stay bounded. */
export interface CachedResult {
  cache: ResultCache;
  entry: ResultCacheEntry;
  dropped: string[];
}

/** Whether the cacher takes `content`: caching is on and the text is longer than `inlineThreshold`. */
export function cachingDue(content: string, inlineThreshold: number | undefined): inlineThreshold is number {
  return inlineThreshold !== undefined && content.length > inlineThreshold;
}

/** The characters all of `cache`'s entries hold. */
export function cachedChars(cache: ResultCache): number {
  return charsOf(cache.entries);
}

function charsOf(entries: readonly ResultCacheEntry[]): number {
  return entries.reduce((sum, entry) => sum + entry.content.length, 0);
}

/**
 * `cache` (a new one when undefined) with `result` added as its newest entry,
 * and its oldest entries dropped until all of them hold at most `maxChars`.
 * A result longer than `maxChars` alone is kept cut to it. Does not modify
 * `cache`.
 */
export function cacheResult(
  cache: ResultCache | undefined,
  result: { toolName: string; callId: string; iteration: number; content: string },
  maxChars: number = RESULT_CACHE_DEFAULTS.maxChars,
): CachedResult {
  const nextNumber = cache?.nextNumber ?? 1;
  const entry: ResultCacheEntry = {
    ref: `cache-${nextNumber}`,
    toolName: result.toolName,
    callId: result.callId,
    iteration: result.iteration,
    content: cutAt(result.content, maxChars),
    originalChars: result.content.length,
  };
  const kept = [...(cache?.entries ?? []), entry];
  let total = charsOf(kept);
  const dropped: string[] = [];
  while (total > maxChars && kept.length > 1) {
    const oldest = kept.shift() as ResultCacheEntry;
    total -= oldest.content.length;
    dropped.push(oldest.ref);
  }
  return { cache: { entries: kept, nextNumber: nextNumber + 1 }, entry, dropped };
}

/** `cache` without its oldest entry: what a continue-as-new too large for one payload gives up after the events. */
export function withoutOldestEntry(cache: ResultCache): ResultCache {
  return { ...cache, entries: cache.entries.slice(1) };
}

/** Characters of the cached text the summary shows: at most half the threshold, so the summary stays short. */
export function summaryHeadChars(inlineThreshold: number): number {
  return Math.min(RESULT_CACHE_DEFAULTS.headChars, Math.floor(inlineThreshold / 2));
}

/** What the conversation holds in place of a cached result: a line saying what and where it is, then its head. */
export function cacheSummary(entry: ResultCacheEntry, inlineThreshold: number): string {
  const head = cutAt(entry.content, summaryHeadChars(inlineThreshold));
  const stored =
    entry.content.length < entry.originalChars
      ? ` Only its first ${entry.content.length} characters could be kept.`
      : '';
  const call = JSON.stringify({ ref: entry.ref, offset: head.length, length: RESULT_CACHE_DEFAULTS.sliceMaxChars });
  return (
    `[Cached as ${entry.ref}: the result of ${entry.toolName} is ${entry.originalChars} characters, too long to show whole.${stored} ` +
    `Its first ${head.length} characters follow. Read any part with the ${RESULT_CACHE_DEFAULTS.toolName} tool, ` +
    `e.g. ${call} (at most ${RESULT_CACHE_DEFAULTS.sliceMaxChars} characters a call).]\n${head}`
  );
}

/** The `result_cache` tool as the model is offered it. */
export const RESULT_CACHE_TOOL: WorkflowToolSpec = {
  name: RESULT_CACHE_DEFAULTS.toolName,
  description:
    'Read part of a tool result that was too long to show whole. Its summary in the conversation names its ref ' +
    `("cache-1", ...). Returns the characters from offset (default 0), at most length (default and most ${RESULT_CACHE_DEFAULTS.sliceMaxChars}).`,
  parameters: {
    type: 'object',
    properties: {
      ref: { type: 'string', description: 'The reference from the summary, e.g. "cache-1"' },
      offset: { type: 'integer', minimum: 0, description: 'The first character to read, counted from 0' },
      length: {
        type: 'integer',
        minimum: 1,
        maximum: RESULT_CACHE_DEFAULTS.sliceMaxChars,
        description: 'How many characters to read',
      },
    },
    required: ['ref'],
    additionalProperties: false,
  },
};

/** The answer to a `result_cache` call: a slice with a line saying where it is, or an error for the model. */
export interface CacheReading {
  content: string;
  isError: boolean;
}

/**
 * Answers a `result_cache` call from its raw JSON arguments. Anything a model
 * may send is answered, never thrown: arguments that are not an object,
 * unknown fields, a reference that is not in the cache (or was dropped from
 * it), an offset or length that is not a whole number in range.
 */
export function readResultCache(cache: ResultCache | undefined, argumentsText: string): CacheReading {
  const parsed = parseArguments(argumentsText);
  if ('problem' in parsed) return failure(parsed.problem);
  const { ref, offset, length } = parsed;
  const entry = cache?.entries.find((candidate) => candidate.ref === ref);
  if (entry === undefined) return failure(missingRefProblem(cache, ref));
  const size = entry.content.length;
  if (offset >= size && size > 0)
    return failure(`offset ${offset} is past the end: ${ref} holds ${size} characters (offsets 0 to ${size - 1})`);
  let end = Math.min(size, offset + length);
  // A slice never ends inside a surrogate pair: the next one starts with the pair whole.
  if (end < size && end - offset > 1 && isHighSurrogate(entry.content.charCodeAt(end - 1))) end -= 1;
  const next = end < size ? `; read on with offset ${end}` : '; this is the end';
  return {
    content: `[${ref}: characters ${offset} to ${end - 1} of ${size}${next}]\n${entry.content.slice(offset, end)}`,
    isError: false,
  };
}

function failure(problem: string): CacheReading {
  return { content: `Error: ${RESULT_CACHE_DEFAULTS.toolName}: ${problem}.`, isError: true };
}

/** Why `ref` is not in the cache: never cached, or dropped to keep the cache bounded. */
function missingRefProblem(cache: ResultCache | undefined, ref: string): string {
  const number = /^cache-([1-9]\d{0,15})$/.exec(ref)?.[1];
  if (number !== undefined && cache !== undefined && Number(number) < cache.nextNumber) {
    return `${ref} was dropped from the cache to keep it under ${RESULT_CACHE_DEFAULTS.maxChars} characters; call the tool that produced it again if you need it`;
  }
  const refs = (cache?.entries ?? []).map((entry) => entry.ref);
  const shown = refs.length > 20 ? [...refs.slice(-20), `(and ${refs.length - 20} older)`] : refs;
  return `there is no cached result "${ref.slice(0, 100)}"; the cache holds ${shown.length > 0 ? shown.join(', ') : 'nothing'}`;
}

/** The call's arguments as a reference and a slice, with defaults; or what is wrong with them. */
function parseArguments(argumentsText: string): { ref: string; offset: number; length: number } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(argumentsText === '' ? '{}' : argumentsText);
  } catch {
    return { problem: 'the arguments are not valid JSON; send an object such as {"ref":"cache-1","offset":0}' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'the arguments must be an object: {"ref", "offset"?, "length"?}' };
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => key !== 'ref' && key !== 'offset' && key !== 'length');
  if (unknown.length > 0)
    return {
      problem: `unknown argument ${JSON.stringify(unknown[0]?.slice(0, 100))}; the arguments are ref, offset and length`,
    };
  if (typeof fields.ref !== 'string' || fields.ref === '')
    return { problem: 'ref must be the reference from the summary, a text such as "cache-1"' };
  const offset = fields.offset ?? 0;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)
    return { problem: `offset must be a whole number, 0 or more (got ${short(offset)})` };
  const length = fields.length ?? RESULT_CACHE_DEFAULTS.sliceMaxChars;
  const max = RESULT_CACHE_DEFAULTS.sliceMaxChars;
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 1 || length > max) {
    return {
      problem: `length must be a whole number from 1 to ${max} (got ${short(length)}); read a longer part in several calls`,
    };
  }
  return { ref: fields.ref, offset, length };
}

function short(value: unknown): string {
  return (JSON.stringify(value) ?? String(value)).slice(0, 40);
}
