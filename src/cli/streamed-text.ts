import type { ModelStreamEvent } from '../shared/model-stream-events';
import type { Output } from './output';

/**
 * The model's text on the terminal as it is generated, under its iteration, ended by the call's `model-response`; a
 * reset ends the line and says so, and an unreachable stream is said once. Reasoning and tool-call fragments are not
 * printed.
 */
export class StreamedText {
  private open = false;
  private shown = false;

  constructor(private readonly output: Output) {}

  take(event: ModelStreamEvent): void {
    if (event.type === 'model-text-delta') {
      if (!this.open) this.output.partial('  model: ');
      this.open = true;
      this.shown = true;
      // Indented like the line it continues, so a multi-line answer stays under its iteration.
      this.output.partial(event.text.replace(/\r?\n/g, '\n         '));
    } else if (event.type === 'model-delta-reset' && this.shown) {
      this.endLine();
      this.output.line(`  (the answer above broke off: ${event.reason}; discard it)`);
      this.shown = false;
    } else if (event.type === 'model-stream-unreachable') {
      // Said once per follow by the follower: the answers still print, each once it is complete.
      this.endLine();
      this.output.line(`  (the model's answers can't stream here: ${event.reason}; each shows once it is complete)`);
    }
  }

  /** Ends the streamed line, if one is open, so another event's lines start on their own (a message that came meanwhile). */
  breakLine(): void {
    this.endLine();
  }

  /** Ends the streamed line; answers whether this call's text was shown (so its recorded text need not be). */
  finish(): boolean {
    const shown = this.shown;
    this.endLine();
    this.shown = false;
    return shown;
  }

  private endLine(): void {
    if (this.open) this.output.partial('\n');
    this.open = false;
  }
}
