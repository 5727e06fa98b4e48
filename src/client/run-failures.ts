import type { AgentResult } from '../shared/agent-result';

/** The input failed validation before the run was started. */
export class InvalidAgentInputError extends Error {
  override readonly name = 'InvalidAgentInputError';

  constructor(readonly problems: string[]) {
    super(`Invalid agent input: ${problems.join('; ')}`);
  }
}

/**
 * The run ended in failure. `type` is the failure type, from the
 * `FailureType` catalogue (`InvalidAgentInput`, `MaxInvocationsExceeded`,
 * `ModelCall.Unauthorized`, ...); `details` holds what the run had done
 * (messages, usage) where the failure carries it.
 */
export class AgentRunFailedError extends Error {
  override readonly name = 'AgentRunFailedError';

  constructor(
    message: string,
    readonly type: string,
    readonly details: unknown[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A run with an output schema ended without an answer: a limit or a person stopped it first (a stop condition, its
 * timeout, the terminate signal, loop detection, the circuit breaker). `result` is what it returned; its
 * `terminationReason` says why.
 */
export class AgentOutputMissingError extends Error {
  override readonly name = 'AgentOutputMissingError';

  constructor(readonly result: AgentResult & { workflowId: string; runId: string }) {
    super(
      `Run ${result.workflowId} ended (${result.terminationReason.type}) without an answer to its output schema; \`result.terminationReason\` says why.`,
    );
  }
}
