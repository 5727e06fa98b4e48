/**
 * Returned from a tool's `execute`, it pauses the run until a person answers
 * through the `userMessage` signal (the loop-breaking `ask_question`). The answer
 * comes back to the model as a user message; the question is visible in the
 * run's state meanwhile.
 */
export class WaitForInput {
  constructor(readonly question: string) {}
}
