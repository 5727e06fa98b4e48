/**
 * Returned from `execute` to answer `Error: <content>` in full (only the result size limit applies), where a
 * thrown error's message is cut short.
 */
export class ToolErrorOutput {
  constructor(readonly content: string) {}
}
