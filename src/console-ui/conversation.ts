/** A run event as the console reads it: the fields it shows, by type. */
export interface RunEventView {
  seq: number;
  at: string;
  type: string;
  iteration?: number;
  callId?: string;
  toolName?: string;
  arguments?: unknown;
  argumentsText?: string;
  output?: string;
  isError?: boolean;
  content?: string;
  question?: string;
  server?: string;
  elicitationId?: string;
  workflowId?: string;
  status?: string;
  decision?: string;
  reason?: string | null;
  by?: { name?: string; via: string };
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number; costUsd?: number };
}

/** One tool call in the conversation: its arguments, its result once it ended, a nested agent's run if it is one. */
interface ToolCallEntry {
  kind: 'tool';
  iteration: number;
  callId: string;
  toolName: string;
  arguments: unknown;
  output?: string;
  isError?: boolean;
  nestedRunId?: string;
  decision?: string;
}

/** One entry of the conversation the console shows. */
export type ConversationEntry =
  | { kind: 'iteration'; iteration: number }
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; iteration: number; text: string }
  | ToolCallEntry
  | { kind: 'question'; question: string; server?: string }
  | { kind: 'end'; status: string };

/** The conversation a run's events tell, in order: iterations, the model's text, tool calls with their results. */
export function conversationOf(events: readonly RunEventView[]): ConversationEntry[] {
  const entries: ConversationEntry[] = [];
  const calls = new Map<string, ToolCallEntry>();
  // A call's decision is recorded before the call starts: kept until its start comes.
  const decisions = new Map<string, string>();
  let iteration = 0;
  for (const event of events) {
    switch (event.type) {
      case 'iteration-start':
        iteration = event.iteration ?? iteration;
        entries.push({ kind: 'iteration', iteration });
        break;
      case 'user-message':
        entries.push({ kind: 'user', text: event.content ?? '' });
        break;
      case 'model-response':
        if (event.content) entries.push({ kind: 'assistant', iteration: event.iteration ?? 0, text: event.content });
        break;
      case 'approval-request':
      case 'tool-call-start': {
        // A call waiting for a decision shows from its request on, so a denied one (which never starts) shows too.
        const known = calls.get(event.callId ?? '');
        const call: ToolCallEntry = known ?? {
          kind: 'tool',
          iteration: event.iteration ?? iteration,
          callId: event.callId ?? '',
          toolName: event.toolName ?? '',
          arguments: event.arguments ?? event.argumentsText,
        };
        if (event.type === 'tool-call-start') call.arguments = event.arguments ?? event.argumentsText;
        const decision = decisions.get(call.callId);
        if (decision !== undefined) call.decision = decision;
        if (known === undefined) {
          calls.set(call.callId, call);
          entries.push(call);
        }
        break;
      }
      case 'approval-decision': {
        const decision = `${event.decision === 'approve' ? 'approved' : 'denied'} by ${event.by?.name ?? event.by?.via ?? 'someone'}`;
        decisions.set(event.callId ?? '', decision);
        const call = calls.get(event.callId ?? '');
        if (call !== undefined) call.decision = decision;
        break;
      }
      case 'nested-agent-start': {
        const call = calls.get(event.callId ?? '');
        if (call !== undefined && event.workflowId !== undefined) call.nestedRunId = event.workflowId;
        break;
      }
      case 'tool-call-end': {
        const call = calls.get(event.callId ?? '');
        if (call !== undefined) {
          call.output = event.output ?? '';
          call.isError = event.isError ?? false;
        }
        break;
      }
      case 'input-request':
        entries.push({
          kind: 'question',
          question: event.question ?? '',
          ...(event.server === undefined ? {} : { server: event.server }),
        });
        break;
      case 'run-end':
        entries.push({ kind: 'end', status: event.status ?? 'ended' });
        break;
    }
  }
  return entries;
}
