import { AgentRunnerError } from '../shared/agent-runner-error';
import type { AgentResult } from '../shared/agent-result';

const marker = Symbol.for('agent-runner.error.AgentOutputMissingError');

/**
 * A run with an output schema ended without an answer: a limit or a person stopped it first (a stop condition, its
 * timeout, the terminate signal, loop detection, the circuit breaker). `result` is what it returned; its
 * `terminationReason` says why.
 */
export class AgentOutputMissingError extends AgentRunnerError {
  override readonly name = 'AgentOutputMissingError';

  private get [marker](): true {
    return true;
  }

  constructor(readonly result: AgentResult & { workflowId: string; runId: string }) {
    super(
      `Run ${result.workflowId} ended (${result.terminationReason.type}) without an answer to its output schema; \`result.terminationReason\` says why.`,
    );
  }

  static override isInstance(error: unknown): error is AgentOutputMissingError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
