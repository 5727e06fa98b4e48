/** The last bytes a child process wrote to stderr, kept to explain why it failed. */
export class OutputTail {
  private text = '';

  constructor(private readonly maxChars = 2_000) {}

  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-this.maxChars);
  }

  /** The last lines, trimmed; empty when the process wrote nothing. */
  lines(): string {
    return this.text.trim();
  }
}
