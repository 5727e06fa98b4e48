/**
 * The circuit breaker: a run whose tool keeps failing the same way is
 * stuck, and is stopped after `threshold` identical errors in a row (default
 * 5). The runner feeds every tool result, in the order of the calls (a
 * parallel batch counts result by result), through {@link trackToolResult}.
 */
export interface BreakerState {
  /** Tool of the latest error; null when the latest result was a success, or before any. */
  toolName: string | null;
  /** Text of the latest error, compared exactly; null as for `toolName`. */
  errorText: string | null;
  /** Identical errors in a row, the latest included; 0 after a success. */
  count: number;
}

/** Why the breaker tripped: the repeated error. */
export interface BreakerTrip {
  toolName: string;
  errorText: string;
  /** Identical errors in a row, the latest included: at least the threshold. */
  count: number;
}

/** The state of a run with no tool error yet. */
export function initialBreakerState(): BreakerState {
  return { toolName: null, errorText: null, count: 0 };
}

/**
 * Counts one tool result: a success resets to 0, the same tool's identical error adds 1, any other error starts at 1.
 * From `threshold` on, every further identical error reports the trip again.
 */
export function trackToolResult(
  state: BreakerState,
  toolName: string,
  result: { content: string; isError: boolean },
  threshold: number,
): { state: BreakerState; tripped?: BreakerTrip } {
  if (!result.isError) return { state: initialBreakerState() };
  const same = state.toolName === toolName && state.errorText === result.content;
  const next: BreakerState = { toolName, errorText: result.content, count: same ? state.count + 1 : 1 };
  if (next.count >= threshold) {
    return { state: next, tripped: { toolName, errorText: result.content, count: next.count } };
  }
  return { state: next };
}
