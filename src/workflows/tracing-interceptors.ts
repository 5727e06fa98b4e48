/**
 * The agent's workflow-side spans, for a worker with tracing on (`AgentRunnerPlugin` adds this module after
 * `@temporalio/interceptors-opentelemetry`'s own, so it runs inside Temporal's `RunWorkflow` span).
 *
 * - `agentWorkflow`: an `invoke_agent {name}` span around the whole run, so the activities it schedules (and so
 *   their `chat` and `execute_tool` spans) and the nested agents it starts are its descendants. The run's
 *   conversation id rides in the context's baggage to the activities.
 * - `conversationWorkflow`: no span of its own; it puts its `context_id` in the baggage, so each turn's run names
 *   that conversation.
 *
 * Replay-safe: ids and times are deterministic and spans leave only through the exporter sink, which replay does not
 * call. One span per Temporal run, exported when it ends, continues as new or fails.
 */
import * as otel from '@opentelemetry/api';
import * as wf from '@temporalio/workflow';
import { CONVERSATION_BAGGAGE_KEY, DEFAULT_AGENT_NAME, GENAI, GENAI_PROVIDER } from '../shared/genai-attributes';
import { WORKFLOW_TYPE } from '../shared/defaults/names';
import { INPUT_BOUNDS } from '../shared/defaults/input-bounds';
import { CONVERSATION_WORKFLOW_TYPE, conversationWorkflowId } from '../shared/conversation';

/** The span and baggage of one agent run, read from its input (never trusted: a bad input fails in the workflow). */
function agentSpanAttributes(input: unknown): { name: string; attributes: otel.Attributes; depth: number } {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  // Cut to the input's bound: the input is checked after this, and a span name should not carry a megabyte.
  const name =
    typeof fields.name === 'string' && fields.name !== ''
      ? fields.name.slice(0, INPUT_BOUNDS.nameChars)
      : DEFAULT_AGENT_NAME;
  const depth = typeof fields.depth === 'number' ? fields.depth : 0;
  const attributes: otel.Attributes = {
    [GENAI.operationName]: 'invoke_agent',
    [GENAI.providerName]: GENAI_PROVIDER,
    [GENAI.agentName]: name,
    [GENAI.agentId]: wf.workflowInfo().workflowId,
    ...(typeof fields.model === 'string' ? { [GENAI.requestModel]: fields.model } : {}),
  };
  return { name, attributes, depth };
}

/**
 * The conversation a run belongs to: a conversation's turn keeps the conversation's `context_id` (from the
 * baggage its conversation workflow set); any other run, a nested agent included, is a conversation of its own,
 * named by its run id (the workflow id, the same across continue-as-new).
 */
function conversationOf(depth: number): string {
  const inherited = otel.propagation.getBaggage(otel.context.active())?.getEntry(CONVERSATION_BAGGAGE_KEY)?.value;
  const parent = wf.workflowInfo().parent;
  const isTurn = depth === 0 && inherited !== undefined && parent?.workflowId === conversationWorkflowId(inherited);
  return isTurn ? inherited : wf.workflowInfo().workflowId;
}

function withConversation(conversationId: string): otel.Context {
  const active = otel.context.active();
  const baggage = otel.propagation.getBaggage(active) ?? otel.propagation.createBaggage();
  return otel.propagation.setBaggage(active, baggage.setEntry(CONVERSATION_BAGGAGE_KEY, { value: conversationId }));
}

class AgentTracingInbound implements wf.WorkflowInboundCallsInterceptor {
  /** A conversation's `context_id`, once its `execute` has read it. */
  private contextId: string | undefined;

  /**
   * A conversation runs each turn from its `chat` update's handler, which runs in the update's own context
   * (Temporal's `HandleUpdate` span, from the caller's headers), not in `execute`'s: its id is put there too.
   */
  handleUpdate(
    input: wf.UpdateInput,
    next: wf.Next<wf.WorkflowInboundCallsInterceptor, 'handleUpdate'>,
  ): Promise<unknown> {
    if (this.contextId === undefined) return next(input);
    return otel.context.with(withConversation(this.contextId), () => next(input));
  }

  async execute(
    input: wf.WorkflowExecuteInput,
    next: wf.Next<wf.WorkflowInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    const type = wf.workflowInfo().workflowType;
    if (type === CONVERSATION_WORKFLOW_TYPE) {
      const first = input.args[0] as { contextId?: unknown } | undefined;
      if (typeof first?.contextId !== 'string') return next(input);
      this.contextId = first.contextId;
      return otel.context.with(withConversation(first.contextId), () => next(input));
    }
    if (type !== WORKFLOW_TYPE) return next(input);

    const { name, attributes, depth } = agentSpanAttributes(input.args[0]);
    const conversationId = conversationOf(depth);
    const tracer = otel.trace.getTracer('agent-runner');
    return otel.context.with(withConversation(conversationId), () =>
      tracer.startActiveSpan(
        `invoke_agent ${name}`,
        { kind: otel.SpanKind.INTERNAL, attributes: { ...attributes, [GENAI.conversationId]: conversationId } },
        async (span) => {
          try {
            const result = await next(input);
            span.setStatus({ code: otel.SpanStatusCode.OK });
            return result;
          } catch (error) {
            // Continue-as-new is how a long run goes on, not a failure.
            if (!(error instanceof wf.ContinueAsNew)) {
              span.setStatus({
                code: otel.SpanStatusCode.ERROR,
                message: error instanceof Error ? error.message : String(error),
              });
            }
            throw error;
          } finally {
            span.end();
          }
        },
      ),
    );
  }
}

/** The interceptors Temporal loads from this module (`interceptors.workflowModules`). */
export const interceptors = (): wf.WorkflowInterceptors => {
  return { inbound: [new AgentTracingInbound()] };
};
