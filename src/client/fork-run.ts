import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { AgentForkedFromKey } from '../workflow-contract/search-attributes';
import { parseAgentInput, type AgentInput } from '../shared/agent-input';
import { WORKFLOW_TYPE } from '../shared/defaults/names';
import { type ForkedFrom } from '../shared/fork';
import { addUsage, type ChatMessage, ZERO_USAGE } from '../shared/messages';
import { ForkRefusedError } from './fork-refused-error';
import { readIterationStart } from './iteration-start';

/** Input fields a fork may change; `null` removes an optional one (the output schema, a budget). */
export type ForkInputChanges = {
  [Field in keyof Omit<AgentInput, 'message' | 'messages' | 'forkedFrom'>]?: AgentInput[Field] | null;
};

/** What a fork changes in the conversation it takes over, and in its input. Any combination. */
export interface ForkEdit {
  /** New results of tool calls made before the fork point, by the runner's call id (`call-3-1`). */
  toolResults?: Record<string, string>;
  /** A user message appended to the conversation. */
  message?: string;
  /** Fields of the source's input to change: instructions, tools, model, modelSettings, limits, output, ... */
  input?: ForkInputChanges;
}

/** Options of {@link forkRun}. */
export interface ForkRunOptions {
  /** The fork takes the source's conversation as it stood when this iteration began (from 1). */
  atIteration: number;
  edit?: ForkEdit;
  /** The fork's id. @default `agent-<uuid>` */
  workflowId?: string;
  /** @default the source's task queue */
  taskQueue?: string;
}

/** A started fork. */
export interface ForkedRun {
  workflowId: string;
  runId: string;
  handle: WorkflowHandle;
  forkedFrom: ForkedFrom;
  /** The input it was started with. */
  input: AgentInput;
}

/**
 * Starts a new run from run `runId`'s conversation as it stood when iteration `atIteration` began (taken from its
 * history, not run again), with `edit` applied and the source untouched; the fork spends and is approved on its own.
 * Refuses before starting anything with `RunNotFoundError` or `ForkRefusedError`.
 */
export async function forkRun(client: Client, runId: string, options: ForkRunOptions): Promise<ForkedRun> {
  const { atIteration, edit = {} } = options;
  const source = await readIterationStart(client, runId, atIteration);
  const messages = withToolResults(source.state.messages, edit.toolResults ?? {}, atIteration);
  const sourceForkedFrom = source.input.forkedFrom as ForkedFrom | undefined;
  const forkedFrom: ForkedFrom = {
    runId,
    iteration: atIteration,
    inherited: addUsage(sourceForkedFrom?.inherited ?? ZERO_USAGE, source.state.usage),
  };
  const input = forkInput(source.input, edit, messages, forkedFrom);
  const parsed = parseAgentInput(input);
  if (!parsed.ok)
    throw new ForkRefusedError(
      'input',
      `The fork's input is not valid: ${parsed.problems.join('; ')}`,
      parsed.problems,
    );
  const workflowId = options.workflowId ?? `agent-${randomUUID()}`;
  const handle = await client.workflow.start(WORKFLOW_TYPE, {
    taskQueue: options.taskQueue ?? source.taskQueue,
    workflowId,
    args: [input],
    typedSearchAttributes: [{ key: AgentForkedFromKey, value: runId }],
    ...(options.workflowId === undefined ? {} : { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const }),
  });
  return { workflowId, runId: handle.firstExecutionRunId, handle, forkedFrom, input };
}

/** The source's input with the fork's conversation and changes: its own `message` is already in the conversation. */
function forkInput(
  sourceInput: Record<string, unknown>,
  edit: ForkEdit,
  messages: ChatMessage[],
  forkedFrom: ForkedFrom,
): AgentInput {
  const fields: Record<string, unknown> = { ...sourceInput };
  delete fields.message;
  delete fields.forkedFrom;
  for (const [field, value] of Object.entries(edit.input ?? {})) {
    if (value === null) delete fields[field];
    else if (value !== undefined) fields[field] = value;
  }
  return {
    ...fields,
    messages,
    ...(edit.message === undefined ? {} : { message: edit.message }),
    forkedFrom,
  } as AgentInput;
}

/** The conversation with the given tool calls' results replaced; a call it does not hold is refused. */
function withToolResults(
  messages: readonly ChatMessage[],
  results: Readonly<Record<string, string>>,
  atIteration: number,
): ChatMessage[] {
  const wanted = new Map(Object.entries(results));
  const edited = messages.map((message) => {
    if (message.role !== 'tool' || !wanted.has(message.tool_call_id)) return message;
    return { ...message, content: wanted.get(message.tool_call_id)! };
  });
  const held = new Set(messages.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])));
  for (const callId of wanted.keys()) {
    if (held.has(callId)) continue;
    const madeAt = /^call-(\d+)-\d+$/.exec(callId)?.[1];
    throw new ForkRefusedError(
      'call',
      madeAt !== undefined && Number(madeAt) >= atIteration
        ? `Tool call "${callId}" was made in iteration ${madeAt}, at or after the fork point (iteration ${atIteration}): only a result from before it can be replaced.`
        : `No tool call "${callId}" is in the conversation at iteration ${atIteration}; give a runner call id (call-<iteration>-<n>) from before it.`,
    );
  }
  return edited;
}
