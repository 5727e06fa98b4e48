import { useId, useState } from 'react';
import { api } from './api';
import { ApiRequestError } from './api-request-error';
import { argumentProblems } from './argument-problems';
import { age, json, runHref } from './format';
import type { InboxItem } from '../shared/approval-inbox-item';

/** A waiting call: its run, tool and exact arguments, and (when the scopes allow) approve, deny or modify. */
export function ApprovalCard({ item, canDecide }: { item: InboxItem; canDecide: boolean }) {
  const [mode, setMode] = useState<'view' | 'deny' | 'modify'>('view');
  const [reason, setReason] = useState('');
  const [edited, setEdited] = useState(() => json(item.arguments));
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const id = useId();
  const problems = mode === 'modify' ? argumentProblems(edited, item.parameters) : [];
  const send = async (path: 'approve' | 'deny', body: Record<string, unknown>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await api(`/runs/${encodeURIComponent(item.run_id)}/${path}`, {
        method: 'POST',
        body: { call_id: item.call_id, ...body },
      });
    } catch (error) {
      setProblem(ApiRequestError.isInstance(error) ? error.message : String(error));
      setBusy(false);
    }
  };
  return (
    <article className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        <code>{item.tool_name}</code> in <a href={runHref(item.run_id)}>{item.run_id}</a>
      </h2>
      <p className="meta">
        Call {item.call_id}, waiting {age(item.requested_at)}
        {item.policy === undefined ? '' : ` (policy ${item.policy}${item.reason ? `: ${item.reason}` : ''})`}
      </p>
      <h3 className="label">Arguments under review</h3>
      <pre className="arguments">{json(item.arguments)}</pre>
      {!canDecide ? null : mode === 'view' ? (
        <div className="actions">
          <button type="button" className="primary" disabled={busy} onClick={() => void send('approve', {})}>
            Approve
          </button>
          <button type="button" disabled={busy} onClick={() => setMode('modify')}>
            Modify…
          </button>
          <button type="button" className="danger" disabled={busy} onClick={() => setMode('deny')}>
            Deny…
          </button>
        </div>
      ) : mode === 'deny' ? (
        <form
          className="decision"
          onSubmit={(event) => {
            event.preventDefault();
            void send('deny', reason.trim() === '' ? {} : { reason: reason.trim() });
          }}
        >
          <label htmlFor={`${id}-reason`}>Reason for the model</label>
          <input id={`${id}-reason`} value={reason} onChange={(event) => setReason(event.target.value)} />
          <div className="actions">
            <button type="submit" className="danger" disabled={busy}>
              Deny
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <form
          className="decision"
          onSubmit={(event) => {
            event.preventDefault();
            if (problems.length === 0) void send('approve', { arguments: JSON.parse(edited) as unknown });
          }}
        >
          <label htmlFor={`${id}-arguments`}>
            Arguments (JSON{item.parameters === undefined ? '' : ', checked against the tool’s schema'})
          </label>
          <textarea
            id={`${id}-arguments`}
            rows={Math.min(16, edited.split('\n').length + 1)}
            spellCheck={false}
            value={edited}
            aria-invalid={problems.length > 0}
            aria-describedby={`${id}-problems`}
            onChange={(event) => setEdited(event.target.value)}
          />
          <ul id={`${id}-problems`} className="problems">
            {problems.map((text) => (
              <li key={text}>{text}</li>
            ))}
          </ul>
          <div className="actions">
            <button type="submit" className="primary" disabled={busy || problems.length > 0}>
              Approve with these arguments
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {problem === undefined ? null : (
        <p role="alert" className="problem">
          {problem}
        </p>
      )}
    </article>
  );
}
