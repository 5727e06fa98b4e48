import { api, can, type Session } from './api';
import { conversationOf } from './conversation';
import { ConversationView } from './conversation-view';
import { OnDemand } from './on-demand';
import { RunControls } from './run-controls';
import { useRunEvents } from './run-events';
import { summaryOf } from './run-summary';
import { dollars, json } from './format';

/**
 * One run: its conversation, status and usage as its events tell them (model text streaming in as it is written),
 * and what the scopes allow doing to it. Everything comes from `GET /runs/:id/events`, one shared follow of the run
 * in the API process; the limits and the stored transcript are read (a query each) only when asked for.
 */
export function RunView({ runId, session }: { runId: string; session: Session }) {
  const { events, draft, problem } = useRunEvents(runId);
  const path = `/runs/${encodeURIComponent(runId)}`;
  const summary = summaryOf(events);
  const { usage } = summary;
  const webUi = `${session.temporal_ui_url}/namespaces/${encodeURIComponent(session.namespace)}/workflows/${encodeURIComponent(runId)}`;
  return (
    <article aria-labelledby="run-title" className="run">
      <h1 id="run-title">
        Run <code>{runId}</code>
      </h1>
      <p className="meta">
        <span className={`status status-${summary.status}`}>{summary.status}</span> ·{' '}
        <a href={webUi}>Open in the Temporal web UI</a>
      </p>
      {problem === undefined ? null : (
        <p role="alert" className="problem">
          {problem}
        </p>
      )}
      <dl className="usage">
        <dt>Iterations</dt>
        <dd>{summary.iterations}</dd>
        <dt>Tokens</dt>
        <dd>{`${usage.totalTokens} (${usage.promptTokens} in, ${usage.completionTokens} out)`}</dd>
        <dt>Cost</dt>
        <dd>{dollars(usage.costUsd)}</dd>
      </dl>
      <OnDemand
        label="Limits"
        read={() =>
          api<{ state: { limits?: { maxInvocations: number; tokenBudget?: unknown } } }>(path).then(
            ({ state }) => state.limits,
          )
        }
        render={(limits) => <pre>{json(limits)}</pre>}
      />
      <OnDemand
        label="Stored transcript"
        read={() => api<{ messages: unknown[]; total: number }>(`${path}/messages?limit=50`)}
        render={(page) => (
          <pre>
            {page.total} messages; the first {page.messages.length}: {json(page.messages)}
          </pre>
        )}
      />
      <ConversationView
        entries={conversationOf(events)}
        draft={draft}
        canFork={can(session, 'runs:write')}
        runId={runId}
      />
      <RunControls runId={runId} session={session} summary={summary} />
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
