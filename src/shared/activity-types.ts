import type { ChatMessage, AssistantMessage, Usage } from './messages';
import type { ModelRequestReference } from './transcript';
import type { OutputSpecInput } from './output-schema';
import type { SamplingSettings } from './sampling';

/**
 * The contract between the workflow and its activities. Workflow code imports
 * these as types only; the worker's activities implement them.
 */

/** A registered tool as the workflow needs to know it. */
export interface ToolDescription {
  name: string;
  description: string;
  /** JSON Schema of the arguments, derived from the tool's zod schema. */
  parameters: Record<string, unknown>;
  /** Calling this tool ends the run (loop-breaking tools). */
  terminating: boolean;
  /** Whether calls wait for approval: always, never, or as the tool's function of the arguments decides. */
  needsApproval: 'always' | 'never' | 'dynamic';
  /** Start-to-close timeout of one execution, in milliseconds, when the tool sets one. */
  timeoutMs?: number;
  /** Schedule-to-close deadline of a call (all its attempts), in milliseconds, when the tool sets one. */
  deadlineMs?: number;
  /** Calls run as local activities (`defineTool({ local: true })`); absent for a regular tool, and in catalogs from before local tools. */
  local?: true;
  /** A nested agent (`defineAgentTool`): the workflow runs it as a child `agentWorkflow`, never as an activity. Absent for any other tool. */
  agent?: AgentToolSpec;
}

/**
 * What the workflow needs to start a nested agent: the child run's input, but for the task (the model's
 * `{ task }` argument) and what the parent hands down (depth, what is left of its budgets).
 */
export interface AgentToolSpec {
  kind: 'agent';
  instructions: string;
  /** The child run's tools. */
  tools: string[];
  /** The child's model; the parent's when absent. */
  model?: string;
  /** Model calls the child may make. @default the run's default, 64 */
  maxInvocations?: number;
  /** Tools whose call ends the child run (its `terminating.toolIds`). */
  terminatingToolIds?: string[];
  /** Tools of the child whose calls wait for approval (its `approval.tools`). */
  approvalTools?: string[];
  /** The child's output schema (its `output`): its answer, valid against it, is the tool result as JSON text. */
  output?: OutputSpecInput;
  /** The child's `modelSettings`; absent, the parent's without `toolChoice`. */
  modelSettings?: SamplingSettings;
}

export interface DescribeToolsResult {
  /** Every tool defined on the worker and the MCP servers' tools the run names, sorted by name. */
  tools: ToolDescription[];
  /** MCP servers the run names that could not be listed, or tools of theirs that cannot be offered; absent when none. */
  unavailable?: ToolServerProblem[];
  /** What the run's calls take from the worker that loaded the catalog; absent from workers that predate it. */
  worker?: CatalogWorkerSettings;
}

/** The worker's settings a run's activities are scheduled with, and the run's stream key. */
export interface CatalogWorkerSettings {
  /** The heartbeat timeout of the run's model and tool calls (`AGENT_HEARTBEAT_TIMEOUT`). */
  heartbeatTimeoutMs: number;
  /**
   * A random secret of this Temporal run (256 bits, base64url), made by the worker, so kept only in the run's history
   * (encrypted with it): each model call presents it as its stream's credential, and a follower that can read the
   * history reads it there.
   */
  streamKey: string;
}

/** What `describeTools` is asked: the run's `tools`, so it lists only the MCP servers they name. */
export interface DescribeToolsInput {
  tools: string[];
}

/** An MCP server whose tools could not be listed (or a tool of it that cannot be offered), and why. */
export interface ToolServerProblem {
  server: string;
  /** The one tool (its runner name, `<server>__<tool>`) the problem is about; absent: the whole server. */
  tool?: string;
  reason: string;
}

/** Tools that live outside the worker (MCP servers' tools), as the registry lists them. */
export interface ExternalToolDescriptions {
  tools: ToolDescription[];
  problems: ToolServerProblem[];
}

export interface ModelCallInput {
  /** Model name, or `<endpoint>/<model>`; the worker's default when absent. */
  model?: string;
  /**
   * The run's `modelFallbacks`: endpoints (`<endpoint>` or `<endpoint>/<model>`) tried in order when a call fails in a
   * way another endpoint can fix. Absent when the run names none, so recorded activity inputs stay the same.
   */
  fallbacks?: string[];
  /**
   * The run's iteration this call belongs to, announced with the call's stream so a follower puts the deltas under
   * the right `iteration-start`; optional, since recorded histories hold calls without it.
   */
  iteration?: number;
  instructions?: string;
  /** The conversation, when it is small enough to travel in the input. */
  messages?: ChatMessage[];
  /**
   * Otherwise where it is: the activity reads it from its own workflow run
   * with the `modelRequest` query (`src/activities/model-request.ts`).
   */
  conversation?: ModelRequestReference;
  /** Names of the tools offered to the model. */
  toolNames: string[];
  /**
   * Tools the workflow answers itself (`context_release`, the result cache's `result_cache`), offered besides
   * `toolNames`; absent when there are none, so recorded activity inputs stay the same.
   */
  workflowTools?: WorkflowToolSpec[];
  parallelToolCalls: boolean;
  /**
   * Structured output in `response_format` mode: sent as the request's `response_format`; absent otherwise, so
   * recorded activity inputs stay the same.
   */
  responseFormat?: ResponseFormat;
  /** The run has a `costBudget`: a model the worker has no price for fails the call (`ModelCall.PriceUnknown`) before it is sent. */
  requirePrice?: true;
  /** The run's `modelSettings`, over the worker's; absent when the run sets none, so recorded inputs stay the same. */
  sampling?: SamplingSettings;
  /**
   * The run's stream key (see {@link CatalogWorkerSettings.streamKey}): the call streams at the path followers derive
   * from the run's description, without announcing it in a heartbeat. Absent in runs whose catalog had none.
   */
  streamKey?: string;
}

/** The chat-completions `response_format` that asks for JSON valid against a schema. */
export interface ResponseFormat {
  type: 'json_schema';
  json_schema: { name: string; schema: Record<string, unknown> };
}

/** A tool the workflow answers itself, as the model is offered it. */
export interface WorkflowToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ModelCallResult {
  message: AssistantMessage;
  usage: Usage;
  /** The model that answered, as the provider names it. */
  model: string;
  finishReason: string | null;
  /** Calls whose tool's `needsApproval` function asked for approval of these arguments. */
  approvalRequired: string[];
  /** The worker's endpoint that answered (`default` for the top-level settings); absent from older workers. */
  endpoint?: string;
  /** The endpoints this attempt tried before, and why each failed; absent when the first one answered. */
  fallbacks?: EndpointFailure[];
}

/** An endpoint a model call left for the next one, and why. */
export interface EndpointFailure {
  endpoint: string;
  model: string;
  /** The failure's type: `ModelCall.ConnectionError`, `ModelCall.RateLimited`, ... */
  type: string;
  /** The failure's message, redacted. */
  message: string;
}

/** What `compactConversation` summarises, and how. */
export interface CompactionInput {
  /** Model name; the worker's default when absent. */
  model?: string;
  /** The summarisation prompt, sent as the system message. */
  instructions: string;
  /**
   * The messages to summarise, oldest first, as the model saw them: the
   * previous summary (when there is one) and the messages after it.
   */
  messages: ChatMessage[];
  /** Longest summary returned, in characters; a longer one is cut, with a note. */
  maxSummaryChars: number;
  /** The run has a `costBudget`: a model the worker has no price for fails the call (`ModelCall.PriceUnknown`) before it is sent. */
  requirePrice?: true;
  /** The run's `modelSettings` but `toolChoice`, over the worker's; absent when the run sets none. */
  sampling?: SamplingSettings;
}

/** A summary written by the model. */
export interface CompactionResult {
  /** The summary, trimmed; empty when the model wrote none. */
  summary: string;
  /** The summary was longer than `maxSummaryChars` and was cut. */
  cut: boolean;
  usage: Usage;
  /** The model that answered, as the provider names it. */
  model: string;
}

/** What `extractToolResult` condenses, and how. */
export interface ExtractionInput {
  /** Model name; the worker's default when absent. */
  model?: string;
  /** The extraction prompt, sent as the system message. */
  instructions: string;
  toolName: string;
  /** The tool result to condense (after the processor). */
  content: string;
  /** The last user message of the conversation: what the condensed text must serve. Absent when there is none. */
  guidance?: string;
  /** Longest condensed text returned, in characters; a longer one is cut, with a note. */
  maxChars: number;
  /** The run has a `costBudget`: a model the worker has no price for fails the call (`ModelCall.PriceUnknown`) before it is sent. */
  requirePrice?: true;
  /** The run's `modelSettings` but `toolChoice`, over the worker's; absent when the run sets none. */
  sampling?: SamplingSettings;
}

/** A tool result condensed by the model. */
export interface ExtractionResult {
  /** The condensed text, trimmed; empty when the model wrote none. */
  content: string;
  /** The text was longer than `maxChars` and was cut. */
  cut: boolean;
  usage: Usage;
  /** The model that answered, as the provider names it. */
  model: string;
}

export interface ToolCallInput {
  toolName: string;
  callId: string;
  /** The key the tool's `idempotencyKey` is, chosen by the workflow; absent when the activity is called otherwise (`workflowId:callId` then). */
  idempotencyKey?: string;
  /** The raw JSON text the model produced. */
  arguments: string;
  /** Tools this run may use; a call to any other is answered with an error. */
  allowedTools: string[];
}

export interface ToolCallResult {
  /** The tool message content sent back to the model. */
  content: string;
  /** The tool failed, was unknown, or got bad arguments; `content` starts with `Error:`. */
  isError: boolean;
  /** The tool returned a `TerminateResponse`: the run ends with `content` as its response. */
  terminate: boolean;
  /** The tool returned `WaitForInput`: the run pauses until the `userMessage` signal answers. */
  waitForInput?: { question: string };
}

/** The activities the workflow schedules, by name. */
export interface AgentActivities {
  /** Without input (runs from before MCP tools): the defined tools only. */
  describeTools(input?: DescribeToolsInput): Promise<DescribeToolsResult>;
  callModel(input: ModelCallInput): Promise<ModelCallResult>;
  executeTool(input: ToolCallInput): Promise<ToolCallResult>;
  compactConversation(input: CompactionInput): Promise<CompactionResult>;
  extractToolResult(input: ExtractionInput): Promise<ExtractionResult>;
}

/** What the model hears when it calls a tool this run may not use (from the workflow, or the activity's own check). */
export function unknownToolMessage(name: string, allowed: readonly string[]): string {
  return `Error: there is no tool named "${name}". Available tools: ${allowed.join(', ') || 'none'}.`;
}
