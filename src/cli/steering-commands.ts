/**
 * The exact command lines the tool prints for steering a run from another
 * terminal. They are built in one place so what the output suggests is
 * always what the parser accepts, quoted so that pasting them works.
 */

/** The name the tool is installed under (`bin` in package.json). */
export const CLI_NAME = 'agent-runner';

/** Characters a POSIX shell passes through unquoted. */
const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `text` as one shell word: unchanged when safe, otherwise single-quoted. */
export function shellWord(text: string): string {
  if (SHELL_SAFE.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `agent-runner <words...>`, each word quoted as needed. */
function cliCommand(...words: string[]): string {
  return [CLI_NAME, ...words.map(shellWord)].join(' ');
}

/** `agent-runner watch <id>`: follow the run again from another terminal. */
export const watchCommand = (workflowId: string) => cliCommand('watch', workflowId);
/** `agent-runner status <id>`. */
export const statusCommand = (workflowId: string) => cliCommand('status', workflowId);
/** `agent-runner terminate <id>`: stop the run gracefully. */
export const terminateCommand = (workflowId: string) => cliCommand('terminate', workflowId);
/** `agent-runner approve <id> <callId>`: run the call as the model asked. */
export const approveCommand = (workflowId: string, callId: string) => cliCommand('approve', workflowId, callId);

/** The deny command with a reason to fill in: the model hears it, so the hint asks for one. */
export const denyCommand = (workflowId: string, callId: string) =>
  `${cliCommand('deny', workflowId, callId)} --reason "..."`;

/** `agent-runner answer <id> "..."`: answer `ask_question` (or add a message before the next model call). */
export const answerCommand = (workflowId: string) => `${cliCommand('answer', workflowId)} "..."`;

/** `agent-runner answer <id> --id <question> --accept '{...}'`: answer an MCP server's question (or --decline, --cancel). */
export const elicitationAnswerCommand = (workflowId: string, elicitationId: string) =>
  `${cliCommand('answer', workflowId, '--id', elicitationId)} --accept '{...}' (or --decline, --cancel)`;
