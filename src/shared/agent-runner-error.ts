/** The mark every agent-runner error carries, whichever copy of the package made it. */
const marker = Symbol.for('agent-runner.error');

/**
 * The base of agent-runner's own errors. Each subclass lives in its own file with a marker of its own
 * (`Symbol.for('agent-runner.error.<ClassName>')`) and a `static isInstance` that checks it, so a check holds for an
 * error made by another copy of the package, where `instanceof` does not.
 */
export abstract class AgentRunnerError extends Error {
  /** Checked by {@link AgentRunnerError.isInstance}; a getter, so the mark stays out of logged errors. */
  private get [marker](): true {
    return true;
  }

  /** Whether `error` is an agent-runner error of any kind, from any copy of the package. */
  static isInstance(error: unknown): error is AgentRunnerError {
    return AgentRunnerError.hasMarker(error, marker);
  }

  /** Whether `error` carries `mark`; false for a value that throws when asked, such as a hostile Proxy. */
  protected static hasMarker(error: unknown, mark: symbol): boolean {
    try {
      return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[mark] === true;
    } catch {
      return false;
    }
  }
}
