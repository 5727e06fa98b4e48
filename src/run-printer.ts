import type { AgentState, ChatMessage } from './shared';

/** Longest tool result or argument text printed on one line. */
const MAX_SHOWN = 160;

/**
 * Prints a run as it happens, from successive `state` snapshots: what the
 * run is doing, each model answer, each tool call and its result. Only what
 * is new since the last snapshot is printed.
 */
export class RunPrinter {
  private printedMessages: number;
  private lastActivity = '';
  private lastIteration = 0;
  private readonly toolNames = new Map<string, string>();

  /** @param skipMessages messages already known before the run (its input conversation) */
  constructor(
    private readonly write: (line: string) => void,
    skipMessages = 0,
  ) {
    this.printedMessages = skipMessages;
  }

  update(state: AgentState): void {
    for (const message of state.messages.slice(this.printedMessages)) this.printMessage(message);
    this.printedMessages = Math.max(this.printedMessages, state.messages.length);
    if (state.activity !== this.lastActivity && state.status === 'running') this.write(`  … ${state.activity}`);
    this.lastActivity = state.activity;
  }

  private printMessage(message: ChatMessage): void {
    const iteration = message.meta?.iteration;
    if (iteration !== undefined && iteration !== this.lastIteration) {
      this.lastIteration = iteration;
      this.write(`[iteration ${iteration}]`);
    }
    switch (message.role) {
      case 'user':
        this.write(`  user: ${shorten(message.content)}`);
        return;
      case 'assistant':
        if (message.content) this.write(`  model: ${shorten(message.content)}`);
        for (const call of message.tool_calls ?? []) {
          this.toolNames.set(call.id, call.function.name);
          this.write(`  → ${call.function.name} ${shorten(call.function.arguments)}`);
        }
        return;
      case 'tool':
        this.write(`  ← ${this.toolNames.get(message.tool_call_id) ?? 'tool'}: ${shorten(message.content)}`);
        return;
      default:
        this.write(`  ${message.meta?.injected ?? message.role}: ${shorten(message.content)}`);
    }
  }
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SHOWN ? `${line.slice(0, MAX_SHOWN - 1)}…` : line;
}
