import { getAgentTranscript, readAgentTranscript } from '../../client';
import type { ChatMessage } from '../../shared/messages';
import { withAgentClient } from '../agent-client';
import { ExitCode } from '../exit-codes';
import { createOutput } from '../output';
import { oneLine } from '../one-line';

/**
 * `agent-runner messages`: the run's whole conversation, a page at a time
 * (`--from`, `--limit`) or all of it (`--all`); answers during and after the run.
 */
export async function messagesCommand(
  workflowId: string,
  options: { from?: number; limit?: number; all?: boolean; json?: boolean },
): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  await withAgentClient(async (client) => {
    if (options.all === true) {
      let index = options.from ?? 0;
      for await (const message of readAgentTranscript(client, workflowId, index)) {
        if (output.json) output.jsonLine({ index, message });
        else output.line(messageLine(index, message));
        index += 1;
      }
      return;
    }
    const page = await getAgentTranscript(client, workflowId, {
      from: options.from ?? 0,
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    });
    if (output.json) {
      output.jsonDocument(page);
      return;
    }
    for (const [offset, message] of page.messages.entries()) output.line(messageLine(page.from + offset, message));
    const next = page.from + page.messages.length;
    output.line(
      next < page.total
        ? `(messages ${page.from}–${next - 1} of ${page.total}; more with --from ${next})`
        : `(${page.total} message(s) in all)`,
    );
  });
  return ExitCode.ok;
}

/** One message on one line: its index, role, and text or tool calls, cut to a line (`--json` prints them whole). */
function messageLine(index: number, message: ChatMessage): string {
  switch (message.role) {
    case 'assistant': {
      const calls = (message.tool_calls ?? []).map(
        (call) => `${call.function.name}(${oneLine(call.function.arguments, 80)})`,
      );
      return `#${index} assistant: ${[oneLine(message.content ?? ''), ...calls].filter((part) => part !== '').join(' · ')}`;
    }
    case 'tool':
      return `#${index} tool ${message.tool_call_id}: ${oneLine(message.content)}`;
    default:
      return `#${index} ${message.role}: ${oneLine(message.content)}`;
  }
}
