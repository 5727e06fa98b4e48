import { ZERO_USAGE } from '../../src/shared/messages';
import type { ContinueAsNewState } from '../../src/workflows/agent/continue-as-new-state';
import { initialBreakerState } from '../../src/workflows/rules/circuit-breaker';
import { initialLoopTracker } from '../../src/workflows/rules/loop-detection';

/** A run's hand-over after three iterations, as the current version writes it, with `overrides` in place. */
export function continueAsNewStateWith(overrides: Partial<ContinueAsNewState> = {}): ContinueAsNewState {
  return {
    schemaVersion: 4,
    continuations: 1,
    inputMessageCount: 0,
    messages: [{ role: 'user', content: 'go' }],
    inbox: [],
    iteration: 3,
    invocations: 3,
    consecutiveNudges: 0,
    restrictionInjections: 0,
    usage: ZERO_USAGE,
    limits: { maxInvocations: 64, tokenBudget: {} },
    loopTracker: initialLoopTracker(),
    breaker: initialBreakerState(),
    turn: { startedAtMs: 0, messageIndex: 0, iteration: 0, usage: ZERO_USAGE, executedTools: [] },
    externalStopRequested: false,
    toolCallsExecuted: 0,
    lastToolResults: [],
    releasedIterations: [],
    events: { nextSeq: 4, recent: [] },
    ...overrides,
  };
}
