import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { api, useCsrfToken, type Session } from './api';
import { ApiRequestError } from './api-request-error';
import { Inbox } from './inbox';
import { RunList } from './run-list';
import { RunView } from './run-view';
import { SignIn } from './sign-in';

/** The page's place, from its hash: `#/inbox`, `#/runs`, `#/runs/<run id>`. */
function useRoute(): string[] {
  const read = () => window.location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = () => setRoute(read());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const route = useRoute();
  useEffect(() => {
    api<Session>('/console/api/session').then(
      (found) => {
        useCsrfToken(found.csrf_token);
        setSession(found);
      },
      (error: unknown) => setSession(ApiRequestError.isInstance(error) && error.status === 401 ? null : null),
    );
  }, []);
  if (session === undefined) return <p className="loading">Loading…</p>;
  if (session === null)
    return (
      <SignIn
        onSignedIn={(signed) => {
          useCsrfToken(signed.csrf_token);
          setSession(signed);
        }}
      />
    );
  const [section = 'inbox', runId] = route;
  const signOut = async () => {
    await api('/console/api/sign-out', { method: 'POST' }).catch(() => undefined);
    useCsrfToken('');
    setSession(null);
  };
  return (
    <>
      <header className="bar">
        <span className="brand">agent-runner</span>
        <nav aria-label="Sections">
          <a href="#/inbox" aria-current={section === 'inbox' ? 'page' : undefined}>
            Approvals
          </a>
          <a href="#/runs" aria-current={section === 'runs' && runId === undefined ? 'page' : undefined}>
            Runs
          </a>
        </nav>
        <span className="who">
          {session.principal ?? 'local'} <span className="scopes">({session.scopes.join(', ')})</span>
        </span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main>
        {section === 'runs' && runId !== undefined ? (
          <RunView key={runId} runId={runId} session={session} />
        ) : section === 'runs' ? (
          <RunList />
        ) : (
          <Inbox session={session} />
        )}
      </main>
    </>
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
