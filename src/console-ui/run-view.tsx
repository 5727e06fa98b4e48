import { useCallback, useEffect, useState } from 'react';
import { ApiFailure, api, can, readStream, type Session } from './api';
import { conversationOf, type RunEventView } from './conversation';
import { ConversationView } from './conversation-view';
import { RunControls } from './run-controls';
import { dollars, json } from './format';

/** The token budget in words, when the run has one. */
function budgetText(budget: unknown): string {
  if (budget === undefined || budget === null) return '';
  if (typeof budget === 'object' && Object.keys(budget).length === 0) return '';
  return `, token budget ${json(budget)}`;
}

/** What `GET /runs/:id` answers, the parts the console shows. */
export interface RunStateView {
  temporal_status: string;
  state: {
    status: string;
    iteration?: number;
    activity?: string;
    usage: { promptTokens: number; completionTokens: number; totalTokens: number; costUsd?: number };
    limits?: { maxInvocations: number; tokenBudget?: unknown };
    pendingApprovals: { callId: string; toolName: string }[];
    question?: { question: string; server?: string; elicitationId?: string };
  };
}

/**
 * One run: its conversation as its events tell it (model text streaming in as it is written), its usage and limits,
 * its events, and what the scopes allow doing to it. The events come from `GET /runs/:id/events` (one shared follow
 * of the run in the API process); the state is read once, and again when the run ends or is acted on.
 */
export function RunView({ runId, session }: { runId: string; session: Session }) {
  const [state, setState] = useState<RunStateView | undefined>();
  const [events, setEvents] = useState<RunEventView[]>([]);
  const [draft, setDraft] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [task, setTask] = useState<string | undefined>();
  const path = `/runs/${encodeURIComponent(runId)}`;
  const refresh = useCallback(
    () =>
      api<RunStateView>(path).then(setState, (error: unknown) =>
        setProblem(error instanceof ApiFailure ? error.message : String(error)),
      ),
    [path],
  );
  useEffect(() => {
    void refresh();
    api<{ messages: { role: string; content?: unknown }[] }>(`${path}/messages?limit=3`).then(
      (page) => {
        const first = page.messages.find((message) => message.role === 'user');
        if (typeof first?.content === 'string') setTask(first.content);
      },
      () => undefined,
    );
    const stop = new AbortController();
    void (async () => {
      try {
        for await (const frame of readStream(`${path}/events`, stop.signal)) {
          if (frame.event === 'model-text-delta')
            setDraft((text) => text + (JSON.parse(frame.data) as { text: string }).text);
          else if (frame.event === 'model-delta-reset') setDraft('');
          else if (frame.id !== undefined) {
            const event = JSON.parse(frame.data) as RunEventView;
            if (event.type === 'model-response') setDraft('');
            setEvents((seen) => [...seen, event]);
            if (event.type === 'run-end' || event.type === 'approval-request' || event.type === 'input-request')
              void refresh();
          } else if (frame.event === 'end') void refresh();
        }
      } catch (error) {
        if (!stop.signal.aborted) setProblem(String(error));
      }
    })();
    return () => stop.abort();
  }, [path, refresh]);
  const usage = state?.state.usage;
  const webUi = `${session.temporal_ui_url}/namespaces/${encodeURIComponent(session.namespace)}/workflows/${encodeURIComponent(runId)}`;
  return (
    <article aria-labelledby="run-title" className="run">
      <h1 id="run-title">
        Run <code>{runId}</code>
      </h1>
      <p className="meta">
        <span className={`status status-${state?.state.status ?? 'unknown'}`}>{state?.state.status ?? '…'}</span>{' '}
        {state?.state.activity ?? ''} · <a href={webUi}>Open in the Temporal web UI</a>
      </p>
      {problem === undefined ? null : (
        <p role="alert" className="problem">
          {problem}
        </p>
      )}
      <dl className="usage">
        <dt>Iterations</dt>
        <dd>{state?.state.iteration ?? '—'}</dd>
        <dt>Tokens</dt>
        <dd>
          {usage === undefined ? '—' : `${usage.totalTokens} (${usage.promptTokens} in, ${usage.completionTokens} out)`}
        </dd>
        <dt>Cost</dt>
        <dd>{dollars(usage?.costUsd)}</dd>
        <dt>Limits</dt>
        <dd>
          {state?.state.limits === undefined
            ? '—'
            : `${state.state.limits.maxInvocations} model calls${budgetText(state.state.limits.tokenBudget)}`}
        </dd>
      </dl>
      {task === undefined ? null : (
        <section aria-label="Task" className="message user">
          <h2 className="label">Task</h2>
          <p>{task}</p>
        </section>
      )}
      <ConversationView
        entries={conversationOf(events)}
        draft={draft}
        canFork={can(session, 'runs:write')}
        runId={runId}
      />
      {state === undefined ? null : <RunControls runId={runId} session={session} state={state} onActed={refresh} />}
      <details className="events">
        <summary>Events ({events.length})</summary>
        <ol>
          {events.map((event) => (
            <li key={event.seq}>
              <code>
                {event.seq} {event.type}
              </code>{' '}
              <span className="at">{event.at}</span>
            </li>
          ))}
        </ol>
      </details>
    </article>
  );
}
