import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.ChatTurnFailedError');

/** The turn was refused or its run failed; `type` is stable (`ConversationBusy`, `MaxInvocationsExceeded`, ...). */
export class ChatTurnFailedError extends AgentRunnerError {
  override readonly name = 'ChatTurnFailedError';

  private get [marker](): true {
    return true;
  }

  constructor(
    message: string,
    readonly type: string,
    /** The agent run of the turn, when one was started. */
    readonly runId: string | undefined,
    readonly problems: string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static override isInstance(error: unknown): error is ChatTurnFailedError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
