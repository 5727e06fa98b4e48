/**
 * Returned from a tool's `execute` to answer the model with an error in full
 * (an MCP result with `isError: true`): the result is `Error: <content>`,
 * marked as an error, cut only by the size limit of every tool result, where
 * a thrown error's message is cut short.
 */
export class ToolErrorOutput {
  constructor(readonly content: string) {}
}
