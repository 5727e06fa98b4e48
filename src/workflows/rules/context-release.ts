import { CONTEXT_RELEASE_LIMITS, CONTEXT_RELEASE_TOOL } from '../../shared/defaults/context-control';
import type { ToolCallResult, ToolDescription } from '../../shared/activity-types';

/**
 * `context_release`: the model names earlier iterations whose tool results it no longer needs, and masking hides them
 * from the next call on (results under `minTokens` stay). Answered in the workflow, since they are the run's.
 */

/** What the model is told of the tool: offered only while the run's `masking` is on. */
export const CONTEXT_RELEASE_DESCRIPTION: ToolDescription = {
  name: CONTEXT_RELEASE_TOOL,
  description:
    'Release the tool results of earlier iterations you no longer need, so they are masked (replaced by a short placeholder) ' +
    'in your context from your next call on. Each tool result is marked with the iteration it came from.',
  parameters: {
    type: 'object',
    properties: {
      iterations: {
        type: 'array',
        items: { type: 'integer', minimum: 1 },
        maxItems: CONTEXT_RELEASE_LIMITS.maxPerCall,
        description: 'Earlier iterations (1 is the first model call) whose tool results may be masked now.',
      },
    },
    required: ['iterations'],
    additionalProperties: false,
  },
  terminating: false,
  needsApproval: 'never',
};

/** What one `context_release` call decided: the tool's answer, the iterations it newly released, and the whole released set. */
export interface ContextReleaseDecision {
  result: ToolCallResult;
  /** Iterations this call released that were not released before, ascending. */
  released: number[];
  /** Entries of the call that were ignored (not whole numbers, not earlier iterations, released already). */
  ignored: number;
  /** Every released iteration of the run after this call, ascending. */
  releasedIterations: number[];
}

/** Ignored entries named in the answer; the rest are counted. */
const NAMED_IGNORED = 10;

/** How an ignored entry is shown: its JSON, short. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 24 ? text : `${text.slice(0, 24)}…`;
}

function errorResult(content: string, alreadyReleased: readonly number[]): ContextReleaseDecision {
  return {
    result: { content: `Error: ${content}`, isError: true, terminate: false },
    released: [],
    ignored: 0,
    releasedIterations: [...alreadyReleased],
  };
}

/**
 * Decides a `context_release` call made in `currentIteration` with the model's raw `argumentsText`,
 * given the run's `alreadyReleased` iterations. Arguments that are not `{ "iterations": [...] }`, or
 * name more than {@link CONTEXT_RELEASE_LIMITS}`.maxPerCall` entries, are an error result; entries
 * that are not whole numbers, not earlier iterations (`1 ≤ n < currentIteration`), or released already
 * are ignored and named in the answer. A run releases at most `maxReleased` iterations in all.
 */
export function decideContextRelease(
  argumentsText: string,
  currentIteration: number,
  alreadyReleased: readonly number[],
): ContextReleaseDecision {
  const usage = `call ${CONTEXT_RELEASE_TOOL} with {"iterations": [<earlier iteration numbers>]}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsText);
  } catch {
    return errorResult(`the arguments are not JSON; ${usage}.`, alreadyReleased);
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Array.isArray((parsed as { iterations?: unknown }).iterations)
  ) {
    return errorResult(`"iterations" must be an array of iteration numbers; ${usage}.`, alreadyReleased);
  }
  const entries = (parsed as { iterations: unknown[] }).iterations;
  if (entries.length > CONTEXT_RELEASE_LIMITS.maxPerCall) {
    return errorResult(
      `at most ${CONTEXT_RELEASE_LIMITS.maxPerCall} iterations per call, got ${entries.length}; nothing was released.`,
      alreadyReleased,
    );
  }

  const known = new Set(alreadyReleased);
  const fresh = new Set<number>();
  const ignored: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'number' || !Number.isInteger(entry)) ignored.push(`${shown(entry)} (not a whole number)`);
    else if (entry < 1 || entry >= currentIteration) ignored.push(`${entry} (not an earlier iteration)`);
    else if (known.has(entry) || fresh.has(entry)) ignored.push(`${entry} (released already)`);
    else fresh.add(entry);
  }
  const room = CONTEXT_RELEASE_LIMITS.maxReleased - known.size;
  if (fresh.size > room) {
    return errorResult(
      `a run releases at most ${CONTEXT_RELEASE_LIMITS.maxReleased} iterations, and ${known.size} are released; nothing was released.`,
      alreadyReleased,
    );
  }
  const released = [...fresh].sort((a, b) => a - b);
  const releasedIterations = [...known, ...released].sort((a, b) => a - b);

  const parts = [
    released.length === 0
      ? 'Nothing was released.'
      : `Released iteration${released.length === 1 ? '' : 's'} ${released.join(', ')}: large tool results from ${released.length === 1 ? 'it' : 'them'} are masked from your next call on.`,
  ];
  if (ignored.length > 0) {
    const more = ignored.length - NAMED_IGNORED;
    parts.push(
      `Ignored: ${ignored.slice(0, NAMED_IGNORED).join(', ')}${more > 0 ? ` and ${more} more` : ''}. This is iteration ${currentIteration}.`,
    );
  }
  // Nothing released and something wrong: an error, so the model (and the circuit breaker) see a mistake.
  const isError = released.length === 0 && ignored.length > 0;
  return {
    result: { content: isError ? `Error: ${parts.join(' ')}` : parts.join(' '), isError, terminate: false },
    released,
    ignored: ignored.length,
    releasedIterations,
  };
}
