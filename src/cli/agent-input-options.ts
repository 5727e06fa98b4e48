import { readFile } from 'node:fs/promises';
import { defaultAgentTools, withTerminatingTools } from '../config/agent-tools';
import { InvalidAgentInputError } from '../client/run-failures';
import { parseAgentInput, type AgentInput } from '../shared/agent-input';
import { UsageError } from './usage-error';

/**
 * How `run` and `start` turn their options into the run's `AgentInput`:
 * an optional whole input from `--input`, with each flag given laid over
 * the field it names.
 */

/** The input options `run` and `start` share, as commander parsed them. */
export interface AgentInputOptions {
  tools?: string[];
  model?: string;
  /** `modelFallbacks`. */
  fallbacks?: string[];
  instructions?: string;
  terminateOn?: string[];
  maxInvocations?: number;
  approve?: string[] | 'all';
  /** `modelSettings.maxTokens`. */
  maxTokens?: number;
  /** `modelSettings.temperature`. */
  temperature?: number;
  /** `modelSettings.toolChoice`. */
  toolChoice?: 'auto' | 'required' | 'none';
  /** A file with a whole `AgentInput` as JSON, or `-` for stdin. */
  input?: string;
  /** A file with the JSON Schema of the final answer (`output.schema`). */
  outputSchema?: string;
  /** `output.mode`. */
  outputMode?: 'tool' | 'response_format';
}

/** Reads the text behind `--input`; swapped in unit tests. */
export type InputSource = (source: string) => Promise<string>;

/**
 * The run's input, checked: `--input` (if any), then the flags. Throws
 * {@link UsageError} when `--input` cannot be read, and
 * {@link InvalidAgentInputError} with every problem when the result is not a valid input.
 */
export async function loadAgentInput(
  messageWords: string[],
  options: AgentInputOptions,
  readSource: InputSource = readInputSource,
): Promise<AgentInput> {
  const base =
    options.input === undefined
      ? {}
      : parseInputDocument(options.input, await readOrExplain(options.input, readSource));
  const schema =
    options.outputSchema === undefined
      ? undefined
      : parseJsonObject(
          `--output-schema ${options.outputSchema}`,
          await readOrExplain(options.outputSchema, readSource, '--output-schema'),
          'a JSON Schema object ({"type": "object", ...})',
        );
  const input = buildAgentInput(
    schema === undefined ? base : { ...base, output: { ...asObject(base.output), schema } },
    messageWords,
    options,
    () => defaultAgentTools(),
  );
  const parsed = parseAgentInput(input);
  if (!parsed.ok) throw new InvalidAgentInputError(parsed.problems);
  return input;
}

/**
 * `base` with the flags laid over it. Tools come from `--tools`, else from
 * `base`, else from `defaultTools` (`AGENT_TOOLS` or the built-in default);
 * terminating tools are added to them, so `--terminate-on finish` alone is enough.
 */
export function buildAgentInput(
  base: Record<string, unknown>,
  messageWords: string[],
  options: AgentInputOptions,
  defaultTools: () => string[],
): AgentInput {
  const input: Record<string, unknown> = { ...base };
  if (options.tools !== undefined) input.tools = options.tools;
  else if (input.tools === undefined) input.tools = defaultTools();
  if (messageWords.length > 0) input.message = messageWords.join(' ');
  if (options.model !== undefined) input.model = options.model;
  if (options.fallbacks !== undefined) input.modelFallbacks = options.fallbacks;
  if (options.instructions !== undefined) input.instructions = options.instructions;
  if (options.maxInvocations !== undefined) input.maxInvocations = options.maxInvocations;
  if (options.terminateOn !== undefined)
    input.terminating = { ...asObject(input.terminating), toolIds: options.terminateOn };
  if (options.approve !== undefined) input.approval = { ...asObject(input.approval), tools: options.approve };
  if (options.outputMode !== undefined) input.output = { ...asObject(input.output), mode: options.outputMode };
  const modelSettings = {
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.toolChoice === undefined ? {} : { toolChoice: options.toolChoice }),
  };
  if (Object.keys(modelSettings).length > 0)
    input.modelSettings = { ...asObject(input.modelSettings), ...modelSettings };

  const terminatingIds = asObject(input.terminating).toolIds;
  if (isStringArray(input.tools) && isStringArray(terminatingIds))
    input.tools = withTerminatingTools(input.tools, terminatingIds);
  // The schema check that follows reports whatever is still wrong, field by field.
  return input as AgentInput;
}

/** `-` is stdin; anything else a file path. */
async function readInputSource(source: string): Promise<string> {
  if (source !== '-') return readFile(source, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

async function readOrExplain(source: string, readSource: InputSource, flag = '--input'): Promise<string> {
  try {
    return await readSource(source);
  } catch (error) {
    throw new UsageError({
      problems: [`${flag} ${source}: cannot read it: ${error instanceof Error ? error.message : String(error)}`],
    });
  }
}

function parseInputDocument(source: string, text: string): Record<string, unknown> {
  return parseJsonObject(`--input ${source}`, text, "a JSON object with the run's input (tools, message, ...)");
}

/** `text` as a JSON object; a {@link UsageError} naming `what` (the flag and its file) otherwise. */
function parseJsonObject(what: string, text: string, expected: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError({
      problems: [`${what}: not valid JSON: ${error instanceof Error ? error.message : String(error)}`],
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError({ problems: [`${what}: expected ${expected}`] });
  }
  return parsed as Record<string, unknown>;
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
