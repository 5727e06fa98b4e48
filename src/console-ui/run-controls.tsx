import { useId, useState, type FormEvent } from 'react';
import { api, can, type Session } from './api';
import { ApiRequestError } from './api-request-error';
import type { RunSummary } from './run-summary';

const ENDED = new Set(['completed', 'failed', 'terminated']);

/** What may be done to a live run, as the scopes allow: a message or an answer, stopping and terminating it. */
export function RunControls({ runId, session, summary }: { runId: string; session: Session; summary: RunSummary }) {
  const [text, setText] = useState('');
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const [confirmingStop, setConfirmingStop] = useState(false);
  const id = useId();
  if (ENDED.has(summary.status)) return null;
  const path = `/runs/${encodeURIComponent(runId)}`;
  const question = summary.question;
  const mcp = question?.elicitationId !== undefined;
  const reasonBody = () => (reason.trim() === '' ? {} : { reason: reason.trim() });
  const act = async (what: string, call: () => Promise<unknown>) => {
    setProblem(undefined);
    setDone(undefined);
    try {
      await call();
      setDone(what);
      setText('');
    } catch (error) {
      setProblem(ApiRequestError.isInstance(error) ? error.message : String(error));
    }
  };
  const send = (event: FormEvent) => {
    event.preventDefault();
    if (mcp)
      void act('Answer sent.', () =>
        api(`${path}/answer`, {
          method: 'POST',
          body: { elicitation_id: question.elicitationId, action: 'accept', content: JSON.parse(text) as unknown },
        }),
      );
    else void act('Message sent.', () => api(`${path}/messages`, { method: 'POST', body: { content: text } }));
  };
  const mayMessage = mcp ? can(session, 'approvals:decide') : can(session, 'runs:write');
  return (
    <section aria-label="Act on the run" className="controls">
      {summary.pending.length === 0 ? null : (
        <p>
          {summary.pending.length} call(s) wait for a decision: <a href="#/inbox">open the inbox</a>.
        </p>
      )}
      {!mayMessage ? null : (
        <form onSubmit={send}>
          <label htmlFor={`${id}-text`}>
            {question === undefined
              ? 'Message to the run'
              : mcp
                ? `Answer to ${question.server ?? 'the server'} (JSON fields): ${question.question}`
                : `Answer: ${question.question}`}
          </label>
          <textarea id={`${id}-text`} rows={3} value={text} onChange={(event) => setText(event.target.value)} />
          <div className="actions">
            <button type="submit" disabled={text.trim() === ''}>
              Send
            </button>
            {mcp ? (
              <button
                type="button"
                onClick={() =>
                  void act('Declined.', () =>
                    api(`${path}/answer`, {
                      method: 'POST',
                      body: { elicitation_id: question.elicitationId, action: 'decline' },
                    }),
                  )
                }
              >
                Decline
              </button>
            ) : null}
          </div>
        </form>
      )}
      {!can(session, 'runs:write') ? null : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void act('Terminating.', () => api(`${path}/terminate`, { method: 'POST', body: reasonBody() }));
          }}
        >
          <label htmlFor={`${id}-reason`}>Reason to stop or terminate</label>
          <input id={`${id}-reason`} value={reason} onChange={(event) => setReason(event.target.value)} />
          <div className="actions">
            <button type="button" aria-expanded={confirmingStop} onClick={() => setConfirmingStop(true)}>
              Stop…
            </button>
            <button type="submit" className="danger">
              Terminate
            </button>
          </div>
          {!confirmingStop ? null : (
            <div role="group" aria-label="Confirm the stop" className="confirm">
              <p>
                Stop at the next check, cancelling nothing? Only a run whose <code>stopWhen</code> contains{' '}
                <code>{'{ "external": true }'}</code> ends there; any other records the request and goes on. Terminate
                ends a run now.
              </p>
              <div className="actions">
                <button
                  type="button"
                  onClick={() => {
                    setConfirmingStop(false);
                    void act('Stop requested: the run ends at its next check if its stopWhen allows it.', () =>
                      api(`${path}/stop`, { method: 'POST', body: reasonBody() }),
                    );
                  }}
                >
                  Confirm stop
                </button>
                <button type="button" onClick={() => setConfirmingStop(false)}>
                  Cancel
                </button>
              </div>
            </div>
          )}
        </form>
      )}
      <p role="status">{done ?? ''}</p>
      {problem === undefined ? null : (
        <p role="alert" className="problem">
          {problem}
        </p>
      )}
    </section>
  );
}
