import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.RemoteCodecError');

/**
 * A codec server that did not encode or decode: unreachable, too slow, or answering with an error status or a body
 * that is not `{ payloads: [...] }`. The message names the endpoint and what to check; never the `Authorization`
 * value. In a worker the workflow task that meets it fails and Temporal retries it, so the run waits for the server.
 */
export class RemoteCodecError extends AgentRunnerError {
  override readonly name = 'RemoteCodecError';

  private get [marker](): true {
    return true;
  }

  /** The URL called: `<endpoint>/encode` or `<endpoint>/decode`. */
  readonly url: string;
  /** The HTTP status of the answer, when there was one. */
  readonly status: number | undefined;

  constructor(options: { message: string; url: string; status?: number; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.url = options.url;
    this.status = options.status;
  }

  static override isInstance(error: unknown): error is RemoteCodecError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
