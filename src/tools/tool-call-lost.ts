/**
 * Thrown from a tool's `execute` when the call was lost with the thing that ran it (an MCP server
 * that died mid-call) rather than failed: Temporal runs the call again, like an execution lost with
 * a worker, until the call's deadline; the model never hears of it as the tool's failure. Past the
 * deadline the model is told the call did not finish.
 */
export class ToolCallLost extends Error {
  override readonly name = 'ToolCallLost';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
