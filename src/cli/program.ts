import { Command, InvalidArgumentError, Option } from 'commander';
import { CLIENT_DEFAULTS } from '../shared/defaults/client';
import { DEFAULT_AGENT_TOOLS } from '../shared/defaults/tools';
import { DEFAULT_MAX_INVOCATIONS } from '../shared/defaults/run-input';
import { DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE, DEFAULT_TEMPORAL_ADDRESS } from '../shared/defaults/names';
import { agentStatusSchema } from '../shared/agent-result';
import { RUN_VERSIONINGS } from '../shared/versioning';
import { API_SCOPE_NAMES, type ApiScope } from '../api/scopes';
import { answerCommand } from './commands/answer';
import {
  answerElicitationCommand,
  answersElicitation,
  type ElicitationAnswerOptions,
} from './commands/answer-elicitation';
import { codecServerCommand } from './commands/codec-server';
import { apiTokenCommand } from './commands/api-token';
import { decideCommand } from './commands/decide';
import { forkCommand, type ForkOptions } from './commands/fork';
import { listCommand } from './commands/list';
import { runCommand } from './commands/run';
import { startCommand } from './commands/start';
import type { StartOptions } from './commands/start-run';
import { statusCommand } from './commands/status';
import { messagesCommand } from './commands/messages';
import { stopCommand } from './commands/stop';
import { terminateCommand } from './commands/terminate';
import { watchCommand } from './commands/watch';
import { EXIT_CODES_HELP, type ExitCode } from './exit-codes';
import {
  parseApprovalTools,
  parseDeciderName,
  parseDecimal,
  parseJsonObject,
  parseNameList,
  parseNonNegativeInteger,
  parsePort,
  parsePositiveInteger,
  parseToolChoice,
} from './option-parsers';
import { CLI_NAME } from './steering-commands';

/**
 * The `agent-runner` command line: which commands exist, their options and
 * their help. Each command's work lives in `commands/`; this file only
 * describes and wires them.
 */

const ENVIRONMENT_HELP = [
  'Environment:',
  '  TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE   a Temporal profile (temporal.toml), as the temporal CLI reads it',
  `  TEMPORAL_ADDRESS     the Temporal server, host:port, over the profile's (default ${DEFAULT_TEMPORAL_ADDRESS})`,
  `  TEMPORAL_NAMESPACE   its namespace (default "${DEFAULT_NAMESPACE}")`,
  `  AGENT_TASK_QUEUE     the task queue the agent workers poll (default "${DEFAULT_TASK_QUEUE}")`,
  '  TEMPORAL_API_KEY, TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH   credentials for Temporal Cloud or mTLS',
  `  AGENT_TOOLS          tools of a run that names none (default ${DEFAULT_AGENT_TOOLS.join(',')})`,
  '  AGENT_CODEC_KEYS, AGENT_CODEC_KEY_FILE   payload encryption keys, id=base64key, the primary first',
].join('\n');

const RUN_HELP = [
  'Ctrl-C while following:',
  '  on a terminal, asks "Terminate run <id> gracefully? [y/N]"; a second Ctrl-C while asking stops following',
  '  and leaves the run running (exit 130). Without a terminal, the first Ctrl-C terminates the run gracefully',
  '  and follows it to its end (exit 3); a second one stops following and leaves the run.',
  '',
  'Examples:',
  `  $ ${CLI_NAME} run "What is 2^10?" --tools calculator`,
  `  $ ${CLI_NAME} run "Tidy the notes" --terminate-on finish --approve write_file`,
  `  $ ${CLI_NAME} run --input task.json --max-invocations 10 --json`,
].join('\n');

/** Called with the exit code a command's action ends with. */
export type ExitReporter = (code: ExitCode) => void;

/**
 * The program. Commander reports usage errors by throwing `CommanderError`
 * (`exitOverride`), so the caller decides the exit code in one place.
 */
export function createProgram(report: ExitReporter): Command {
  const program = new Command()
    .name(CLI_NAME)
    .description('Start, follow and steer durable agent runs on Temporal, from the command line.')
    .exitOverride()
    .showHelpAfterError(`(${CLI_NAME} --help lists the commands; ${CLI_NAME} <command> --help their options)`)
    .addHelpText('after', `\n${ENVIRONMENT_HELP}\n\n${EXIT_CODES_HELP}`);

  withInputOptions(program.command('run').argument('[message...]', 'the task for the agent (the words are joined)'))
    .description('Start a run and follow it live until it ends; the exit code says how it ended.')
    .option('--json', 'print each event as one JSON line (NDJSON), then a last line {"outcome": ...}')
    .addHelpText('after', `\n${RUN_HELP}\n\n${EXIT_CODES_HELP}`)
    .action(async (words: string[], options: StartOptions) => report(await runCommand(words, options)));

  withInputOptions(program.command('start').argument('[message...]', 'the task for the agent (the words are joined)'))
    .description('Start a run and return at once, printing its id and how to follow and steer it.')
    .option('--json', 'print {"workflowId", "runId"} as JSON')
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .action(async (words: string[], options: StartOptions) => report(await startCommand(words, options)));

  program
    .command('fork')
    .argument('<id>', 'the run to fork (workflow id)')
    .description(
      "Start a new run from a run's conversation as it stood when an iteration began, edited, and follow it like `run`; the run forked is untouched.",
    )
    .requiredOption(
      '--at <k>',
      'the iteration whose start the fork takes the conversation at (from 1)',
      parsePositiveInteger,
    )
    .option('--message <text>', 'append a user message to the conversation')
    .option(
      '--result <callId=file>',
      "replace a tool call's result (the runner's call id, call-<iteration>-<n>) with the file's text; repeatable",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--instructions <file>', "the fork's instructions, from a file")
    .option('--model <name>', "the fork's model")
    .option('--tools <names>', "the fork's tools, comma-separated", parseNameList)
    .option('--max-invocations <n>', "the fork's model-call limit", parsePositiveInteger)
    .option('--input <json>', 'more input fields to change, as a JSON object (null removes one)', parseJsonObject)
    .option('--id <workflowId>', "the fork's id (default: agent-<uuid>)")
    .option('--json', 'print each event as one JSON line (NDJSON), then a last line {"outcome": ...}')
    .addHelpText(
      'after',
      `\nAn iteration the run never began, a call id not before it, or an invalid edited input exits 2; an unknown run or a history past retention exits 4.\n\n${EXIT_CODES_HELP}`,
    )
    .action(async (id: string, options: ForkOptions) => report(await forkCommand(id, options)));

  program
    .command('status')
    .argument('<id>', 'the run (workflow id)')
    .description('Show what a run is doing: status, iteration, model calls, tokens, pending approvals, how it ended.')
    .option('--json', "print the run's state (the `state` query) as JSON")
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .action(async (id: string, options: { json?: boolean }) => report(await statusCommand(id, options)));

  program
    .command('messages')
    .argument('<id>', 'the run (workflow id)')
    .description(
      "Print a run's whole conversation, a page at a time; also when its result carries only the newest messages.",
    )
    .option('--from <index>', 'the first message to print (0: the first)', parseNonNegativeInteger, 0)
    .option('--limit <n>', 'messages in the page (at most 1000)', parsePositiveInteger)
    .option('--all', 'print every message from --from on, reading page after page')
    .option(
      '--json',
      'print the page as JSON {total, from, messages}; with --all, one {index, message} line per message',
    )
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .action(async (id: string, options: { from?: number; limit?: number; all?: boolean; json?: boolean }) =>
      report(await messagesCommand(id, options)),
    );

  program
    .command('watch')
    .argument('<id>', 'the run (workflow id)')
    .description("Follow a run's events until it ends, as `run` prints them. Ctrl-C stops watching; the run goes on.")
    .option('--after <seq>', 'start after this event number (0: from the beginning)', parseNonNegativeInteger, 0)
    .option('--json', 'print each event as one JSON line (NDJSON), then a last line {"outcome": ...}')
    .addHelpText(
      'after',
      `\nThe exit code says how the run ended (0, 1 or 3), or 130 when Ctrl-C stopped watching.\n\n${EXIT_CODES_HELP}`,
    )
    .action(async (id: string, options: { after?: number; json?: boolean }) => report(await watchCommand(id, options)));

  program
    .command('approve')
    .argument('<id>', 'the run (workflow id)')
    .argument('<callId>', 'the pending tool call, as the approval request names it')
    .description('Approve a tool call that waits for a decision; prints the decision as the run recorded it.')
    .option(
      '--args <json>',
      "run the tool with these arguments instead of the model's (a JSON object)",
      parseJsonObject,
    )
    .option('--as <name>', 'who decides, as the run records it (default: the operating system user)', parseDeciderName)
    .option('--json', 'print the recorded decision as JSON')
    .addHelpText(
      'after',
      `\nA decision the run refuses (unknown call, already decided, arguments off the tool's schema) exits 4.\n\n${EXIT_CODES_HELP}`,
    )
    .action(
      async (id: string, callId: string, options: { args?: Record<string, unknown>; as?: string; json?: boolean }) =>
        report(
          await decideCommand(
            id,
            { callId, decision: 'approve', ...(options.args === undefined ? {} : { arguments: options.args }) },
            options,
          ),
        ),
    );

  program
    .command('deny')
    .argument('<id>', 'the run (workflow id)')
    .argument('<callId>', 'the pending tool call, as the approval request names it')
    .description('Deny a tool call that waits for a decision; the model hears "Denied: <reason>" and goes on.')
    .option('--reason <text>', 'why, for the model to read')
    .option('--as <name>', 'who decides, as the run records it (default: the operating system user)', parseDeciderName)
    .option('--json', 'print the recorded decision as JSON')
    .addHelpText('after', `\nA decision the run refuses (unknown call, already decided) exits 4.\n\n${EXIT_CODES_HELP}`)
    .action(async (id: string, callId: string, options: { reason?: string; as?: string; json?: boolean }) =>
      report(
        await decideCommand(
          id,
          { callId, decision: 'deny', ...(options.reason === undefined ? {} : { reason: options.reason }) },
          options,
        ),
      ),
    );

  program
    .command('answer')
    .alias('message')
    .argument('<id>', 'the run (workflow id)')
    .argument('[text...]', 'the message (the words are joined)')
    .description(
      "Send a person's message to a run (an answer to ask_question, or a message before the next model call), or answer an MCP server's question with --accept, --decline or --cancel.",
    )
    .option('--accept [fields]', "accept an MCP server's question, with its fields as a JSON object")
    .option('--decline', "decline an MCP server's question")
    .option('--cancel', "cancel an MCP server's question")
    .option(
      '--id <elicitationId>',
      "the MCP question answered (the status's question id); default: the only waiting one",
    )
    .option('--as <name>', 'who answers, as the run records it (default: the operating system user)', parseDeciderName)
    .option('--json', 'print the request as JSON')
    .addHelpText(
      'after',
      `\nA run that has ended takes no messages (exit 4); an MCP answer the run refuses exits 4 with its reason.\n\n${EXIT_CODES_HELP}`,
    )
    .action(async (id: string, words: string[], options: ElicitationAnswerOptions) =>
      report(
        answersElicitation(options)
          ? await answerElicitationCommand(id, words, options)
          : await answerCommand(id, words, options),
      ),
    );

  program
    .command('stop')
    .argument('<id>', 'the run (workflow id)')
    .description(
      'Ask a run to stop at its next check, cancelling nothing: only a run whose stopWhen contains {"external": true} stops; any other records the request and goes on.',
    )
    .option('--reason <text>', "recorded in the run's stop-request event")
    .option('--json', 'print the request as JSON')
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .action(async (id: string, options: { reason?: string; json?: boolean }) => report(await stopCommand(id, options)));

  program
    .command('terminate')
    .argument('<id>', 'the run (workflow id)')
    .description('Stop a run now, gracefully: in-flight calls are cancelled and the run returns what it has.')
    .option('--reason <text>', "recorded in the run's termination reason")
    .option('--wait', 'follow the run until it has ended, and exit with its code (3 when it ended terminated)')
    .option('--json', 'print the request as JSON (with --wait: events as NDJSON, then {"outcome": ...})')
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .action(async (id: string, options: { reason?: string; wait?: boolean; json?: boolean }) =>
      report(await terminateCommand(id, options)),
    );

  program
    .command('list')
    .description('List agent runs, newest first, by their search attributes.')
    .addOption(new Option('--status <status>', 'only runs in this agent status').choices(agentStatusSchema.options))
    .option('--query <query>', 'a Temporal visibility query, ANDed (for example "AgentTotalTokens > 1000")')
    .option('--limit <n>', 'at most this many runs', parsePositiveInteger, CLIENT_DEFAULTS.listLimit)
    .option('--json', 'print the runs as JSON')
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .action(async (options: { status?: string; query?: string; limit?: number; json?: boolean }) =>
      report(await listCommand(options)),
    );

  program
    .command('codec-server')
    .description(
      "Serve Temporal's codec protocol (/encode, /decode) with the payload keys, so the web UI and CLI show decrypted payloads.",
    )
    .option('--host <address>', 'the address to bind (default: AGENT_CODEC_SERVER_HOST, else 127.0.0.1)')
    .option('--port <n>', 'the port; 0 picks a free one (default: AGENT_CODEC_SERVER_PORT, else 8888)', parsePort)
    .addHelpText(
      'after',
      [
        '',
        'Environment:',
        '  AGENT_CODEC_KEYS or AGENT_CODEC_KEY_FILE   the payload keys, as the workers have them (required)',
        '  AGENT_CODEC_SERVER_TOKEN   the credential (required): the CLI sends --codec-auth "Bearer <token>",',
        '                             a browser signs in once at <server>/login',
        '  AGENT_CODEC_CORS_ORIGINS   web UI origins allowed to call from a browser (default http://localhost:8233,http://127.0.0.1:8233)',
        '',
        'Ctrl-C stops it.',
        '',
        EXIT_CODES_HELP,
      ].join('\n'),
    )
    .action(async (options: { host?: string; port?: number }) => report(await codecServerCommand(options)));

  program
    .command('api-token')
    .description(
      "Print a fresh token for an HTTP API principal and its principals-file entry (the token's SHA-256, not the token).",
    )
    .option('--name <name>', "the principal's name, recorded with its decisions", parseDeciderName, 'ops-bot')
    .option(
      '--scopes <scopes>',
      `comma-separated scopes: ${API_SCOPE_NAMES.join(', ')}`,
      (value: string) => parseScopes(value),
      ['runs:read'] as ApiScope[],
    )
    .option('--json', 'print {token, entry} as JSON')
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .action((options: { name: string; scopes: ApiScope[]; json?: boolean }) => report(apiTokenCommand(options)));

  return program;
}

/** Scope names, each one of the API's. */
function parseScopes(value: string): ApiScope[] {
  const names = parseNameList(value);
  const unknown = names.filter((name) => !(API_SCOPE_NAMES as string[]).includes(name));
  if (unknown.length > 0)
    throw new InvalidArgumentError(`unknown scope ${unknown.join(', ')}; the scopes are ${API_SCOPE_NAMES.join(', ')}`);
  return names as ApiScope[];
}

/** The options `run` and `start` share: the run's input. */
function withInputOptions(command: Command): Command {
  return command
    .option(
      '--tools <names>',
      `comma-separated tools the run may use (default: AGENT_TOOLS, else ${DEFAULT_AGENT_TOOLS.join(',')})`,
      parseNameList,
    )
    .option(
      '--model <name>',
      "model name sent to the provider, or <endpoint>/<model> (default: the worker's OPENAI_MODEL)",
    )
    .option(
      '--fallbacks <endpoints>',
      'comma-separated endpoints (<endpoint> or <endpoint>/<model>) a model call moves to when one is down (modelFallbacks)',
      parseNameList,
    )
    .option('--instructions <text>', 'the system prompt')
    .option(
      '--terminate-on <tools>',
      'tools whose call ends the run (terminating.toolIds); added to the tools',
      parseNameList,
    )
    .option(
      '--max-invocations <n>',
      `model calls the run may make (default ${DEFAULT_MAX_INVOCATIONS})`,
      parsePositiveInteger,
    )
    .option(
      '--max-tokens <n>',
      "most tokens one answer may have (modelSettings.maxTokens; default: the worker's)",
      parsePositiveInteger,
    )
    .option(
      '--temperature <t>',
      "sampling temperature, 0 to 2 (modelSettings.temperature; default: the worker's)",
      parseDecimal,
    )
    .option('--tool-choice <choice>', 'auto, required or none (modelSettings.toolChoice)', parseToolChoice)
    .option('--approve <tools|all>', 'tools whose calls wait for a human decision, or "all"', parseApprovalTools)
    .option('--input <file|->', 'a whole AgentInput as JSON (- reads stdin); the flags given override its fields')
    .option(
      '--output-schema <file>',
      'a JSON Schema the final answer must validate against (output.schema); the answer is printed as JSON',
    )
    .addOption(
      new Option('--output-mode <mode>', 'how the model gives the answer (output.mode; default: tool)').choices([
        'tool',
        'response_format',
      ]),
    )
    .option('--id <workflowId>', "the run's workflow id (default: agent-<uuid>)")
    .addOption(
      new Option(
        '--versioning <behaviour>',
        "pinned (stays on its first build) or auto-upgrade (moves to the current build); default: the workers' AGENT_VERSIONING_DEFAULT",
      ).choices(RUN_VERSIONINGS),
    );
}
