/**
 * Returned from `execute` to pause the run until a person answers through the `userMessage` signal; the answer
 * reaches the model as a user message.
 */
export class WaitForInput {
  constructor(readonly question: string) {}
}
