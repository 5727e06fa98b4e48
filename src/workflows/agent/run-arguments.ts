import type { ContinueAsNewState } from './continue-as-new-state';
import { parseContinueAsNewState } from './continue-as-new-schema';

/**
 * `agentWorkflow`'s arguments: the input, then the {@link ContinueAsNewState} of a continued run. Never throws (a throw
 * retries the workflow task forever): problems come back for `InvalidAgentInput`.
 */

/**
 * The continue-as-new state, only when this Temporal run was continued (`continued`): a caller's second argument is
 * refused, since no run was ever in that state. Trailing `undefined` arguments count as none.
 */
export function readContinueAsNewState(
  afterInput: readonly unknown[],
  continued: boolean,
): { ok: true; continuation?: ContinueAsNewState } | { ok: false; problems: string[] } {
  let given = afterInput.length;
  while (given > 0 && afterInput[given - 1] === undefined) given -= 1;
  if (!continued) {
    if (given === 0) return { ok: true };
    return {
      ok: false,
      problems: [
        `arguments: agentWorkflow takes one argument, the run's input, and was started with ${given + 1}; ` +
          'a second is handed over only by the run itself when it continues as new',
      ],
    };
  }
  if (given > 1) {
    return {
      ok: false,
      problems: [
        `arguments: a continued agentWorkflow takes two arguments, its input and the hand-over, and was given ${given + 1}`,
      ],
    };
  }
  const carried = afterInput[0];
  if (carried === undefined) return { ok: true };
  try {
    // The version this code writes; any other comes back as a problem (continue-as-new-schema.ts).
    const read = parseContinueAsNewState(carried);
    return read.ok ? { ok: true, continuation: read.continuation } : read;
  } catch (error) {
    return {
      ok: false,
      problems: [`continuation: could not be read (${error instanceof Error ? error.message : String(error)})`],
    };
  }
}
