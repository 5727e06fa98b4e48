/**
 * Throw from a tool's `execute` when the failure is worth retrying (a flaky
 * upstream, a lock held elsewhere): Temporal retries the call with backoff
 * instead of reporting the error to the model. Any other error thrown by a
 * tool goes back to the model as the tool's result, `Error: <message>`.
 */
export class RetryableToolError extends Error {
  override readonly name = 'RetryableToolError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
