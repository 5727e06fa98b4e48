import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { WorkflowHandle } from '@temporalio/client';
import { mcpElicitationAnswerQuery, mcpElicitationSignal, mcpSamplingSignal } from '../workflow-contract/definitions';
import { HistoryWatch } from '../temporal/history-watch';
import { MCP_DEFAULTS } from '../shared/defaults/mcp';
import { cappedSamplingTokens, type McpSamplingUsage } from '../shared/mcp-sampling';
import { elicitationQuestion, elicitResultOf, schemaText, type McpElicitResult } from '../shared/mcp-elicitation';
import type { McpLog } from './mcp-connection';
import type { SamplingModel } from './sampling-model';
import type { McpServers } from '../config/mcp-servers';

/** A tool call in flight on an MCP server: whom a question the server asks during it goes to. */
export interface McpCallInFlight {
  callId: string;
  /** The run the call belongs to, reached with the activity's client; absent outside a workflow (nobody to ask). */
  workflow: WorkflowHandle | undefined;
  /** The Temporal run the call belongs to, whose history says when to ask it again. */
  runId: string;
  /** Aborted when the call ends (finished, timed out, cancelled): a question still waiting is given up. */
  signal: AbortSignal;
  /** Questions asked so far in this attempt: the n-th has the id `<callId>#<n>` on every attempt. */
  asked: number;
}

/**
 * What MCP servers ask of the worker's client during their tools' calls (`docs/guide/mcp-elicitation.md`):
 * elicitation goes to the run whose call is in flight on that server (signal `mcpElicitation`, answer read back with
 * the `mcpElicitationAnswer` query) while the call heartbeats in `tools/call`; sampling is refused unless the entry
 * has `sampling: true`, then answered by the worker's default model and signalled to the run (`mcpSampling`). MCP does
 * not say which call a request belongs to, so with none or several in flight on the server it is refused. Both are
 * announced to every server, so a server that needs one still offers its tools.
 */
export class McpServerRequests {
  /** What the client announces in the handshake. */
  readonly capabilities = { elicitation: { form: {} }, sampling: {} };
  private readonly inFlight = new Map<string, Set<McpCallInFlight>>();

  constructor(
    private readonly servers: McpServers,
    private readonly settings: { model: SamplingModel | undefined; log: McpLog },
  ) {}

  /** Installs the handlers on a server's new client (the connection's `setup`). */
  readonly setup = (client: Client, server: string): void => {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      this.elicit(server, request.params, extra.signal),
    );
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      this.sample(server, request.params, extra.signal),
    );
  };

  /** Registers a call in flight on `server` until the returned function is called. */
  track(server: string, call: McpCallInFlight): () => void {
    const calls = this.inFlight.get(server) ?? new Set<McpCallInFlight>();
    calls.add(call);
    this.inFlight.set(server, calls);
    return () => {
      calls.delete(call);
      if (calls.size === 0 && this.inFlight.get(server) === calls) this.inFlight.delete(server);
    };
  }

  /**
   * The one call in flight on `server`, of a run: whom the server's request (`doing` says what it asks) belongs to.
   * MCP does not say which request a server's request belongs to: with none or several in flight it is refused.
   */
  private onlyCall(server: string, doing: string): McpCallInFlight & { workflow: WorkflowHandle } {
    const calls = [...(this.inFlight.get(server) ?? [])];
    if (calls.length !== 1) {
      throw refusal(
        calls.length === 0
          ? `agent-runner: MCP server "${server}" asked to ${doing} with no tool call in flight; no run to ${doing} for`
          : `agent-runner: MCP server "${server}" asked to ${doing} while ${calls.length} of its tool calls are in flight, and MCP does not say which one asks; refused rather than put to the wrong run (run one call at a time on this server)`,
      );
    }
    const call = calls[0]!;
    if (call.workflow === undefined) {
      throw refusal(`agent-runner: MCP server "${server}" asked to ${doing} during a call outside a run`);
    }
    return call as McpCallInFlight & { workflow: WorkflowHandle };
  }

  private async elicit(
    server: string,
    params: { message: string; mode?: string; requestedSchema?: unknown },
    serverSignal: AbortSignal,
  ): Promise<ElicitResult> {
    const call = this.onlyCall(server, 'ask for input');
    const schema = params.requestedSchema;
    const requestedSchema = schemaText(schema);
    let retry = '';
    for (let tries = 1; ; tries += 1) {
      // Counted per attempt: a retried attempt asks under the same ids, and the run hands it the answers it has.
      call.asked += 1;
      const id = `${call.callId}#${call.asked}`;
      const question = `${retry}${elicitationQuestion(server, params.message, schema)}`;
      try {
        await call.workflow.signal(mcpElicitationSignal, {
          id,
          callId: call.callId,
          server,
          question,
          ...(requestedSchema === undefined ? {} : { requestedSchema }),
        });
      } catch (error) {
        throw refusal(`agent-runner could not put MCP server "${server}"'s question to its run: ${describe(error)}`);
      }
      const answered = await this.awaitAnswer(call, id, serverSignal);
      // Answered by `answerElicitation`: checked against the form by the run already.
      if (answered.result !== undefined) return answered.result;
      const answer = answered.answer;
      const result = elicitResultOf(answer, schema);
      if (result !== undefined) return result;
      if (tries >= MCP_DEFAULTS.elicitationTries) {
        this.settings.log.warn(
          `MCP server "${server}": ${tries} answers to its question did not fit its form; declined`,
          { callId: call.callId, elicitationId: id },
        );
        return { action: 'decline' };
      }
      retry = `Your answer ${JSON.stringify(answer.length > 200 ? `${answer.slice(0, 200)}…` : answer)} did not fit the form; try again.\n`;
    }
  }

  /**
   * Asks the run for the answer (a billed query) only after one of its workflow tasks finished, found by long-polling
   * its history (unbilled), so a long wait costs nothing; ends with the answer, the call's end or the server giving up.
   */
  private async awaitAnswer(
    call: McpCallInFlight,
    id: string,
    serverSignal: AbortSignal,
  ): Promise<{ answer: string; result?: McpElicitResult }> {
    const workflow = call.workflow!;
    const stop = AbortSignal.any([call.signal, serverSignal]);
    const watch = new HistoryWatch(workflow.client, workflow.workflowId, call.runId);
    for (;;) {
      if (stop.aborted) {
        throw refusal(`agent-runner: the tool call ended before its question (${id}) was answered`);
      }
      let failed = false;
      try {
        const state = await workflow.query(mcpElicitationAnswerQuery, { id });
        if (state.status === 'answered') return state;
        if (state.status === 'unknown') {
          throw refusal(`agent-runner: the run no longer waits for the answer to ${id} (its call or the run ended)`);
        }
      } catch (error) {
        if (error instanceof McpError) throw error;
        // The run's worker may be restarting: ask again while the call lasts.
        failed = true;
      }
      if (failed) await delay(MCP_DEFAULTS.elicitationRetryMs, call.signal, serverSignal);
      else await watch.next(stop).catch(() => delay(MCP_DEFAULTS.elicitationRetryMs, call.signal, serverSignal));
    }
  }

  private async sample(
    server: string,
    params: CreateMessageRequestParams,
    serverSignal: AbortSignal,
  ): Promise<CreateMessageResult> {
    if (this.servers[server]?.sampling !== true || this.settings.model === undefined) {
      throw refusal(
        `agent-runner: this worker does not allow MCP server "${server}" to sample its model (sampling/createMessage); enable it with "sampling": true in the server's entry of mcpServers (AGENT_MCP_CONFIG)`,
      );
    }
    const call = this.onlyCall(server, 'sample the model');
    const sampler = this.settings.model;
    const { redact } = sampler;
    const messages = [
      ...(params.systemPrompt === undefined ? [] : [{ role: 'system' as const, content: params.systemPrompt }]),
      ...params.messages.map((message) => ({ role: message.role, content: samplingText(message.content) })),
    ];
    const cap = this.servers[server]?.samplingMaxTokens ?? MCP_DEFAULTS.samplingMaxTokens;
    let answer;
    try {
      answer = await sampler.complete(
        {
          messages,
          maxTokens: cappedSamplingTokens(params.maxTokens, cap),
          ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
          ...(params.stopSequences === undefined ? {} : { stop: params.stopSequences }),
        },
        serverSignal,
      );
    } catch (error) {
      throw new McpError(
        ErrorCode.InternalError,
        `agent-runner: the worker's model did not answer the sampling request: ${redact(describe(error))}`,
      );
    }
    const { model, usage } = answer;
    const report: McpSamplingUsage = { callId: call.callId, server, model, usage };
    try {
      await call.workflow.signal(mcpSamplingSignal, report);
    } catch (error) {
      // The answer is spent already; a run that cannot be told of it has ended or is gone.
      this.settings.log.warn(`MCP server "${server}": the sampling call's usage could not reach its run`, {
        callId: call.callId,
        error: redact(describe(error)),
      });
    }
    this.settings.log.info(`MCP server "${server}" sampled the worker's model`, {
      model,
      callId: call.callId,
      totalTokens: usage.totalTokens,
    });
    return {
      role: 'assistant',
      content: { type: 'text', text: answer.text },
      model,
      stopReason: answer.truncated ? 'maxTokens' : 'endTurn',
    };
  }
}

/** A sampling message's content as text: text blocks as they are, anything else named. */
function samplingText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block) => {
      const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown };
      return type === 'text' && typeof text === 'string' ? text : `[${String(type)} content]`;
    })
    .join('\n');
}

function refusal(message: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, message);
}

function delay(ms: number, ...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', done);
      resolve();
    }
    for (const signal of signals) signal.addEventListener('abort', done, { once: true });
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
