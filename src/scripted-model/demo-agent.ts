import type { ChatCompletionRequest, ScriptStep } from './script';

/** The model name the offline demo runs under. */
export const DEMO_MODEL = 'scripted-demo-agent';
/** Where the demo agent writes its summary. */
export const SUMMARY_FILE = 'summary.md';

/** A tool call the conversation holds, with its result once it has one. */
export interface ObservedCall {
  name: string;
  args: Record<string, unknown>;
  result?: string;
}

/**
 * The offline demo's agent, a deterministic policy deciding each step from the conversation it is sent: list the
 * workspace, read every file, write a summary of what it read, call `finish`.
 */
export function demoAgent(request: ChatCompletionRequest): ScriptStep {
  const calls = observeCalls(request);
  const listing = calls.find((call) => call.name === 'list_files' && call.result !== undefined);
  if (listing === undefined) {
    return {
      content: 'First I will see what is in the workspace.',
      toolCalls: [{ name: 'list_files', arguments: {} }],
    };
  }

  const files = parseListing(listing.result ?? '').filter((file) => file !== SUMMARY_FILE);
  const reads = calls.filter((call) => call.name === 'read_file');
  const unread = files.filter((file) => !reads.some((call) => call.args.path === file));
  if (unread.length > 0) {
    return {
      content: `There are ${files.length} files. Reading them all at once.`,
      toolCalls: unread.map((file) => ({ name: 'read_file', arguments: { path: file } })),
    };
  }

  if (!calls.some((call) => call.name === 'write_file' && call.result?.startsWith('Wrote'))) {
    return {
      toolCalls: [{ name: 'write_file', arguments: { path: SUMMARY_FILE, content: summarize(reads) } }],
    };
  }
  return {
    toolCalls: [{ name: 'finish', arguments: { note: `Summarised ${reads.length} files into ${SUMMARY_FILE}.` } }],
  };
}

/** The tool calls of the conversation, each with its result when the conversation has it. */
export function observeCalls(request: ChatCompletionRequest): ObservedCall[] {
  const results = new Map(
    request.messages.flatMap((message) =>
      message.role === 'tool' && message.tool_call_id ? [[message.tool_call_id, message.content ?? '']] : [],
    ),
  );
  return request.messages.flatMap((message) =>
    ((message.tool_calls ?? []) as { id: string; function: { name: string; arguments: string } }[]).map((call) => ({
      name: call.function.name,
      args: parseObject(call.function.arguments),
      result: results.get(call.id),
    })),
  );
}

/** File names from `list_files` output: `name (N bytes)` lines; directories end with `/`. */
function parseListing(listing: string): string[] {
  return listing.split('\n').flatMap((line) => {
    const match = /^(.+?) \(\d+ bytes\)$/.exec(line.trim());
    return match?.[1] === undefined ? [] : [match[1]];
  });
}

function summarize(reads: ObservedCall[]): string {
  const entries = reads.map((call) => {
    const text = call.result ?? '';
    const words = text.split(/\s+/).filter(Boolean).length;
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    const title = (lines[0] ?? '(empty)').replace(/^#+\s*/, '').trim();
    const gist =
      lines
        .slice(1)
        .find((line) => /[a-z]/i.test(line))
        ?.replace(/^[-\d.\s"]+/, '')
        .trim() ?? '';
    return { path: String(call.args.path), words, title, gist };
  });
  const total = entries.reduce((sum, entry) => sum + entry.words, 0);
  return [
    '# Workspace summary',
    '',
    `${entries.length} files, ${total} words in all.`,
    '',
    ...entries.map((entry) => `- **${entry.path}** — ${entry.title} (${entry.words} words). ${entry.gist}`),
    '',
  ].join('\n');
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
