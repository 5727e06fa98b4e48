/**
 * `TerminateResponse`: returned from a tool's `execute`, it ends the run. The message
 * (or `Task completed.`) becomes the tool message and the run's response.
 * Works for any tool, whether or not it is listed in `terminating.toolIds`.
 */
export class TerminateResponse {
  constructor(readonly message?: string) {}
}
