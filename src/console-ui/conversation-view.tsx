import { useState } from 'react';
import { api } from './api';
import { ApiRequestError } from './api-request-error';
import { conversationOf, type ConversationEntry } from './conversation';
import { json, runHref } from './format';
import { useRunEvents } from './run-events';

/**
 * The conversation: iterations (each with "fork from here"), messages, tool calls folded with their results, and a
 * nested agent's own conversation folded under its call.
 */
export function ConversationView({
  entries,
  draft,
  canFork,
  runId,
  label = 'Conversation',
}: {
  entries: ConversationEntry[];
  draft: string;
  canFork: boolean;
  runId: string;
  label?: string;
}) {
  return (
    <section aria-label={label} className="conversation">
      <ol>
        {entries.map((entry, index) => (
          <li key={index}>
            <Entry entry={entry} canFork={canFork} runId={runId} />
          </li>
        ))}
        {draft === '' ? null : (
          <li>
            <div className="message assistant streaming" aria-live="polite">
              <h3 className="label">Model (writing)</h3>
              <p>{draft}</p>
            </div>
          </li>
        )}
      </ol>
    </section>
  );
}

function Entry({ entry, canFork, runId }: { entry: ConversationEntry; canFork: boolean; runId: string }) {
  switch (entry.kind) {
    case 'iteration':
      return (
        <div className="iteration">
          <h2>Iteration {entry.iteration}</h2>
          {canFork ? <ForkButton runId={runId} iteration={entry.iteration} /> : null}
        </div>
      );
    case 'user':
      return (
        <div className="message user">
          <h3 className="label">User</h3>
          <p>{entry.text}</p>
        </div>
      );
    case 'assistant':
      return (
        <div className="message assistant">
          <h3 className="label">Model</h3>
          <p>{entry.text}</p>
        </div>
      );
    case 'tool':
      return (
        <details className={`tool${entry.isError ? ' failed' : ''}`} open={entry.output === undefined}>
          <summary>
            <code>{entry.toolName}</code>{' '}
            {entry.output === undefined ? '(running or waiting)' : entry.isError ? '(failed)' : ''}
            {entry.decision === undefined ? '' : ` · ${entry.decision}`}
          </summary>
          <h4 className="label">Arguments</h4>
          <pre>{json(entry.arguments)}</pre>
          {entry.nestedRunId === undefined ? null : (
            <>
              <p>
                Nested agent: <a href={runHref(entry.nestedRunId)}>{entry.nestedRunId}</a>
              </p>
              <NestedConversation runId={entry.nestedRunId} toolName={entry.toolName} />
            </>
          )}
          {entry.output === undefined ? null : (
            <>
              <h4 className="label">Result</h4>
              <pre>{entry.output}</pre>
            </>
          )}
        </details>
      );
    case 'question':
      return (
        <div className="message question">
          <h3 className="label">{entry.server === undefined ? 'The agent asks' : `${entry.server} asks`}</h3>
          <p>{entry.question}</p>
        </div>
      );
    case 'end':
      return <p className="end">The run ended: {entry.status}.</p>;
  }
}

/** A nested agent's conversation, folded: its run's events are read, as the page reads its own, only while open. */
function NestedConversation({ runId, toolName }: { runId: string; toolName: string }) {
  const [open, setOpen] = useState(false);
  const { events, draft, problem } = useRunEvents(runId, open);
  return (
    <details className="nested" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        The conversation of <code>{toolName}</code>
      </summary>
      {problem === undefined ? null : (
        <p role="alert" className="problem">
          {problem}
        </p>
      )}
      {!open ? null : (
        <ConversationView
          entries={conversationOf(events)}
          draft={draft}
          canFork={false}
          runId={runId}
          label={`Conversation of ${toolName} (${runId})`}
        />
      )}
    </details>
  );
}

/** "Fork from here": a new run from the conversation as it stood when the iteration began. */
function ForkButton({ runId, iteration }: { runId: string; iteration: number }) {
  const [problem, setProblem] = useState<string | undefined>();
  const fork = async () => {
    try {
      const answer = await api<{ run_id: string }>(`/runs/${encodeURIComponent(runId)}/fork`, {
        method: 'POST',
        body: { at_iteration: iteration },
      });
      window.location.hash = runHref(answer.run_id);
    } catch (error) {
      setProblem(ApiRequestError.isInstance(error) ? error.message : String(error));
    }
  };
  return (
    <>
      <button type="button" className="small" onClick={() => void fork()}>
        Fork from here<span className="visually-hidden"> (iteration {iteration})</span>
      </button>
      {problem === undefined ? null : (
        <span role="alert" className="problem">
          {problem}
        </span>
      )}
    </>
  );
}
