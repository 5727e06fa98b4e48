import { oneLine } from './one-line';
import type { AgentState, ChatMessage } from './shared';

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
        this.write(`  user: ${oneLine(message.content)}`);
        return;
      case 'assistant':
        if (message.content) this.write(`  model: ${oneLine(message.content)}`);
        for (const call of message.tool_calls ?? []) {
          this.toolNames.set(call.id, call.function.name);
          this.write(`  → ${call.function.name} ${oneLine(call.function.arguments)}`);
        }
        return;
      case 'tool':
        this.write(`  ← ${this.toolNames.get(message.tool_call_id) ?? 'tool'}: ${oneLine(message.content)}`);
        return;
      default:
        this.write(`  ${message.meta?.injected ?? message.role}: ${oneLine(message.content)}`);
    }
  }
}
