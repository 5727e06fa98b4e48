import { z } from 'zod';
import { INPUT_BOUNDS } from '../shared/defaults/input-bounds';
import { type AgentToolSpec } from '../shared/activity-types';
import { defineTool, type ToolDefinition } from './define-tool';
import { outputSpecSchema, type OutputSpecInput } from '../shared/output-schema';
import { samplingSettingsSchema, type SamplingSettings } from '../shared/sampling';

/** The arguments the model gives a nested agent: the task, in words. */
const agentTaskParameters = z.object({
  task: z
    .string()
    .min(1)
    .max(INPUT_BOUNDS.textChars)
    .describe('What the agent should do, with everything it needs to know.'),
});

/** What {@link defineAgentTool} takes. */
export interface AgentToolDefinition {
  /** The name the model calls; letters, digits, `_` and `-`, at most 64 characters. */
  name: string;
  /** Tells the model what the agent does and when to hand it a task. */
  description: string;
  /** The nested agent's system prompt. */
  instructions: string;
  /** The nested agent's tools, registered on the same worker (agent tools included, up to `maxDepth`). */
  tools: string[];
  /** The nested agent's model. @default the calling run's model */
  model?: string;
  /** Calling the agent ends the calling run, its response the run's response (as `defineTool`'s `terminating`). @default false */
  terminating?: boolean;
  /** Model calls the nested agent may make. @default 64 */
  maxInvocations?: number;
  /** The nested agent's terminating tools (its input's `terminating.toolIds`): it ends when it calls one. @default none */
  terminatingToolIds?: string[];
  /** Tools of the nested agent whose calls wait for a person's approval (its input's `approval.tools`). @default none */
  approvalTools?: string[];
  /** Whether a call of the agent itself waits for approval, as `defineTool`'s. @default false */
  needsApproval?: boolean;
  /**
   * The nested agent's output schema (its input's `output`, e.g. `outputSchema(zodSchema)`): it ends only with an
   * answer valid against it, and that answer, as JSON text, is the tool's result. @default none: its text answer
   */
  output?: OutputSpecInput;
  /** The nested agent's sampling settings (its input's `modelSettings`). @default the calling run's, without `toolChoice` */
  modelSettings?: SamplingSettings;
}

/** A tool definition that is a nested agent: `agent` is what the workflow starts it with. */
export type AgentToolDefinitionOf = ToolDefinition & { agent: AgentToolSpec };

/**
 * Declares a nested agent: a tool whose call runs `{ task }` as a child `agentWorkflow` one level deeper, with
 * what is left of the caller's token budget and timeout; `execute` only answers a worker too old to know it.
 */
export function defineAgentTool(definition: AgentToolDefinition): AgentToolDefinitionOf {
  if (definition.tools.length > INPUT_BOUNDS.tools)
    throw new TypeError(`Agent tool "${definition.name}": at most ${INPUT_BOUNDS.tools} tools.`);
  if (definition.instructions.length > INPUT_BOUNDS.textChars)
    throw new TypeError(`Agent tool "${definition.name}": its instructions are too long.`);
  if (
    definition.maxInvocations !== undefined &&
    !(Number.isInteger(definition.maxInvocations) && definition.maxInvocations > 0)
  ) {
    throw new TypeError(`Agent tool "${definition.name}": maxInvocations must be a positive whole number.`);
  }
  for (const [field, names] of [
    ['terminatingToolIds', definition.terminatingToolIds],
    ['approvalTools', definition.approvalTools],
  ] as const) {
    const stray = (names ?? []).filter((name) => !definition.tools.includes(name));
    if (stray.length > 0)
      throw new TypeError(
        `Agent tool "${definition.name}": ${field} names ${stray.join(', ')}, which are not among its tools.`,
      );
  }
  if (definition.output !== undefined) {
    const parsed = outputSpecSchema.safeParse(definition.output);
    if (!parsed.success)
      throw new TypeError(
        `Agent tool "${definition.name}": its output is not a usable output schema: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`,
      );
  }
  const agent: AgentToolSpec = {
    kind: 'agent',
    instructions: definition.instructions,
    tools: [...definition.tools],
    ...(definition.model === undefined ? {} : { model: definition.model }),
    ...(definition.maxInvocations === undefined ? {} : { maxInvocations: definition.maxInvocations }),
    ...(definition.terminatingToolIds === undefined ? {} : { terminatingToolIds: [...definition.terminatingToolIds] }),
    ...(definition.approvalTools === undefined ? {} : { approvalTools: [...definition.approvalTools] }),
    ...(definition.output === undefined ? {} : { output: toPlainOutput(definition.output) }),
    ...(definition.modelSettings === undefined ? {} : { modelSettings: checkedModelSettings(definition) }),
  };
  const tool = defineTool({
    name: definition.name,
    description: definition.description,
    parameters: agentTaskParameters,
    terminating: definition.terminating ?? false,
    needsApproval: definition.needsApproval ?? false,
    execute: () =>
      `Error: "${definition.name}" is a nested agent, which the workflow runs as a child workflow; this call reached a tool activity instead.`,
  });
  // Registered beside tools of any parameters: a registry holds `ToolDefinition`s of the general type.
  return { ...(tool as unknown as ToolDefinition), agent };
}

/** The output spec as plain JSON: what travels in the tool catalog and the child's input (a typed spec's marker dropped). */
function toPlainOutput(output: OutputSpecInput): OutputSpecInput {
  return JSON.parse(JSON.stringify(output)) as OutputSpecInput;
}

/** The definition's `modelSettings`, checked against the run input's bounds when the tool is defined, not when a run calls it. */
function checkedModelSettings(definition: AgentToolDefinition): SamplingSettings {
  const parsed = samplingSettingsSchema.safeParse(definition.modelSettings);
  if (!parsed.success)
    throw new TypeError(
      `Agent tool "${definition.name}": modelSettings: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`).join('; ')}.`,
    );
  return parsed.data;
}
