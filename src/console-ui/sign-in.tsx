import { useState, type FormEvent } from 'react';
import { api, type Session } from './api';
import { ApiRequestError } from './api-request-error';

/** The sign-in form: a principal's API token, exchanged for the session cookie. */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      onSignedIn(await api<Session>('/console/api/sign-in', { method: 'POST', body: { token } }));
    } catch (error) {
      setProblem(ApiRequestError.isInstance(error) ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="sign-in">
      <h1>agent-runner console</h1>
      <form onSubmit={(event) => void submit(event)}>
        <label htmlFor="token">API token</label>
        <input
          id="token"
          type="password"
          autoComplete="current-password"
          required
          value={token}
          onChange={(event) => setToken(event.target.value)}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {problem === undefined ? null : (
          <p role="alert" className="problem">
            {problem}
          </p>
        )}
      </form>
      <p className="hint">The token of a principal (or AGENT_API_TOKEN); the browser keeps only a session cookie.</p>
    </main>
  );
}
