import type { ChatCompletionRequest, ScriptStep } from './script';
import { demoAgent, observeCalls } from './demo-agent';

/** The question the offline agent asks first when the run offers `ask_question`. */
export const OFFLINE_QUESTION = 'Anything I should know before I start?';

/** The example MCP server's tool that asks a person through the client (examples/mcp-everything.json). */
const ELICITATION_TOOL = '__trigger-elicitation-request';

/** What the offline agent answers a task it has no step for. */
const NO_STEP =
  'I am the scripted offline model (AGENT_OFFLINE=1), not an LLM: I do arithmetic with calculator, summarise the ' +
  'workspace with list_files, read_file and write_file, and ask one question with ask_question. ' +
  'Set OPENAI_API_KEY or OPENAI_BASE_URL for a real model.';

/**
 * The scripted offline model, a fixed policy in place of an LLM: it asks its question first when it may, works out
 * arithmetic with `calculator`, else summarises the workspace, and ends with `finish` when the run has it.
 */
export function offlineAgent(request: ChatCompletionRequest): ScriptStep {
  const offered = new Set((request.tools ?? []).map((tool) => tool.function.name));
  const calls = observeCalls(request);
  const asked = calls.find((call) => call.name === 'ask_question');
  if (offered.has('ask_question') && asked === undefined) {
    return {
      content: 'Before I start, one question.',
      toolCalls: [{ name: 'ask_question', arguments: { question: OFFLINE_QUESTION } }],
    };
  }
  const elicitation = [...offered].find((name) => name.endsWith(ELICITATION_TOOL));
  if (elicitation !== undefined) {
    const heard = calls.find((call) => call.name === elicitation && call.result !== undefined);
    if (heard === undefined) return { toolCalls: [{ name: elicitation, arguments: {} }] };
    return ending(`The server's question was answered: ${heard.result?.replace(/\s+/g, ' ').trim()}`, offered);
  }
  const answer = answerTo(request);
  const answered = answer === undefined ? '' : ` You said: ${answer}`;
  const expression = userTexts(request)
    .map(arithmeticIn)
    .findLast((found) => found !== undefined);
  if (expression !== undefined && offered.has('calculator')) {
    const computed = calls.find((call) => call.name === 'calculator' && call.result !== undefined);
    if (computed === undefined) return { toolCalls: [{ name: 'calculator', arguments: { expression } }] };
    return ending(`${expression} = ${computed.result}.${answered}`, offered);
  }
  if (offered.has('list_files') && offered.has('read_file')) return workspaceStep(request, offered, answered);
  return ending(NO_STEP, offered);
}

/** The demo's steps over the workspace, ending as the run's tools allow. */
function workspaceStep(request: ChatCompletionRequest, offered: ReadonlySet<string>, answered: string): ScriptStep {
  const step = demoAgent(request);
  const call = 'toolCalls' in step ? step.toolCalls?.[0] : undefined;
  if (call?.name === 'write_file' && !offered.has('write_file'))
    return ending(`I read the files but cannot write the summary: this run has no write_file.${answered}`, offered);
  if (call?.name === 'finish') {
    const note = `${String((call.arguments as { note?: unknown }).note)}${answered}`;
    return ending(note, offered);
  }
  return step;
}

/** The last word: `finish` with `note` when the run has it, else `note` as the answer. */
function ending(note: string, offered: ReadonlySet<string>): ScriptStep {
  return offered.has('finish') ? { toolCalls: [{ name: 'finish', arguments: { note } }] } : { content: note };
}

/** The text of every user message, oldest first. */
function userTexts(request: ChatCompletionRequest): string[] {
  return request.messages.flatMap((message) =>
    message.role === 'user' && typeof message.content === 'string' ? [message.content] : [],
  );
}

/** The person's answer to `ask_question`: the first user message after the call (the runner adds it there). */
function answerTo(request: ChatCompletionRequest): string | undefined {
  const asked = request.messages.findIndex((message) =>
    (message.tool_calls ?? []).some(
      (call) => (call as { function?: { name?: string } }).function?.name === 'ask_question',
    ),
  );
  if (asked < 0) return undefined;
  const answer = request.messages.slice(asked).find((message) => message.role === 'user');
  return typeof answer?.content === 'string' ? answer.content.trim() : undefined;
}

/** An arithmetic expression in `text` (numbers joined by + - * / ^ and parentheses), if it has one. */
export function arithmeticIn(text: string): string | undefined {
  const match = /[(\d][\d\s.()]*(?:[-+*/^][\d\s.()]+)+/.exec(text);
  const expression = match?.[0].trim();
  return expression !== undefined && /\d\s*[-+*/^]\s*[(\d]/.test(expression) ? expression : undefined;
}
