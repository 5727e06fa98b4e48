import { useEffect, useState } from 'react';
import { can, readStream, type Session } from './api';
import { ApprovalCard } from './approval-card';
import type { InboxItem } from '../shared/approval-inbox-item';

/** Every call waiting for a decision, across runs, pushed by the API as it changes. */
export function Inbox({ session }: { session: Session }) {
  const [items, setItems] = useState<InboxItem[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  // Redrawn every 5 s, so each call's "waiting" age stays true.
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((tick) => tick + 1), 5_000);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      try {
        for await (const frame of readStream('/console/api/approvals', stop.signal))
          if (frame.event === 'inbox') setItems((JSON.parse(frame.data) as { approvals: InboxItem[] }).approvals);
      } catch (error) {
        if (!stop.signal.aborted) setProblem(String(error));
      }
    })();
    return () => stop.abort();
  }, []);
  const decide = can(session, 'approvals:decide');
  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">Approvals</h1>
      {decide ? null : <p className="note">Your scopes let you see these calls, not decide them.</p>}
      {problem === undefined ? null : <p role="alert">{problem}</p>}
      {items === undefined ? (
        <p className="loading">Loading…</p>
      ) : items.length === 0 ? (
        <p className="empty">Nothing waits for a decision.</p>
      ) : (
        <ul className="cards" aria-live="polite">
          {items.map((item) => (
            <li key={`${item.run_id}/${item.call_id}`}>
              <ApprovalCard item={item} canDecide={decide} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
