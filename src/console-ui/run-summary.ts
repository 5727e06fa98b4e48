import type { RunEventView } from './conversation';

/** Tokens and cost, as a model response or the run's end reports them. */
interface UsageView {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  costUsd?: number;
}

/** What the run page shows of a run, read from its events alone (no query). */
export interface RunSummary {
  status: string;
  iterations: number;
  usage: UsageView;
  /** Calls waiting for a decision, by call id. */
  pending: string[];
  /** The open question of `ask_question` or an MCP server, when the run waits for an answer. */
  question?: { callId: string; question: string; server?: string; elicitationId?: string };
}

/** The run's status, iterations, usage, waiting calls and open question, from its event log. */
export function summaryOf(events: readonly RunEventView[]): RunSummary {
  const usage: UsageView = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  const pending = new Set<string>();
  let iterations = 0;
  let question: RunSummary['question'];
  let ended: string | undefined;
  for (const event of events) {
    switch (event.type) {
      case 'iteration-start':
        iterations = Math.max(iterations, event.iteration ?? 0);
        break;
      case 'model-response':
        if (event.usage !== undefined) add(usage, event.usage);
        break;
      case 'approval-request':
        pending.add(event.callId ?? '');
        break;
      case 'approval-decision':
      case 'approval-abandonment':
        pending.delete(event.callId ?? '');
        break;
      case 'input-request':
        question = {
          callId: event.callId ?? '',
          question: event.question ?? '',
          ...(event.server === undefined ? {} : { server: event.server }),
          ...(event.elicitationId === undefined ? {} : { elicitationId: event.elicitationId }),
        };
        break;
      case 'user-message':
      case 'mcp-elicitation-end':
        question = undefined;
        break;
      case 'tool-call-end':
        if (question?.callId === event.callId) question = undefined;
        break;
      case 'run-end':
        ended = event.status ?? 'ended';
        if (event.usage !== undefined) Object.assign(usage, event.usage);
        pending.clear();
        question = undefined;
        break;
    }
  }
  const status =
    ended ?? (pending.size > 0 ? 'waiting_for_approval' : question !== undefined ? 'waiting_for_input' : 'running');
  return { status, iterations, usage, pending: [...pending], ...(question === undefined ? {} : { question }) };
}

function add(total: UsageView, more: UsageView): void {
  total.promptTokens += more.promptTokens;
  total.completionTokens += more.completionTokens;
  total.totalTokens += more.totalTokens;
  if (more.costUsd !== undefined) total.costUsd = (total.costUsd ?? 0) + more.costUsd;
}
