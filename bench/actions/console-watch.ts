import type { Client } from '@temporalio/client';
import { buildApiServer } from '../../src/api/server';
import { CONSOLE_CSRF_HEADER, CONSOLE_SESSION_COOKIE } from '../../src/shared/defaults/console';

/** Most times a run page's event stream is opened again after it broke, as the page's reader does. */
const STREAM_ATTEMPTS = 5;

/** Reads a run's event stream to its `end` event, resuming after the last event id when it breaks. */
async function readEventsToEnd(base: string, path: string, headers: Record<string, string>): Promise<void> {
  let lastId: string | undefined;
  for (let attempt = 1; attempt <= STREAM_ATTEMPTS; attempt += 1) {
    const response = await fetch(`${base}${path}/events`, {
      headers: { ...headers, ...(lastId === undefined ? {} : { 'last-event-id': lastId }) },
    }).catch(() => undefined);
    if (response?.status === 204) return;
    const text = response?.ok === true ? await response.text().catch(() => '') : '';
    for (const match of text.matchAll(/^id: (\d+)$/gm)) lastId = match[1];
    if (/^event: end$/m.test(text)) return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error(`GET ${path}/events: no end after ${STREAM_ATTEMPTS} attempts`);
}

/** How often the console's runs list asks the API again (the page's `REFRESH_MS`). */
const RUNS_LIST_REFRESH_MS = 3_000;

/**
 * The console open on `workflowIds` while they run, making the requests its page makes: signed in with a session
 * cookie, the approvals inbox open throughout, the runs list read every 3 s, and each run's page open (its event
 * stream to the end; its limits and stored transcript are read only when a person opens them). The worst case of one
 * browser: a page on every live run at once. Ends when every run's stream has.
 */
export async function watchWithConsole(
  client: Client,
  taskQueue: string,
  token: string,
  workflowIds: readonly string[],
  cleanups: (() => Promise<unknown>)[],
): Promise<void> {
  const api = buildApiServer({ client, taskQueue, auth: { token }, defaults: { tools: [] }, console: {} });
  cleanups.push(() => api.close());
  await api.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(api.server.address() as { port: number }).port}`;
  const signIn = await fetch(`${base}/console/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (signIn.status !== 200) throw new Error(`the console's sign-in answered ${signIn.status}`);
  const cookie = /agent_console_session=[^;]*/.exec(signIn.headers.get('set-cookie') ?? '')?.[0] ?? '';
  const { csrf_token: csrf } = (await signIn.json()) as { csrf_token: string };
  const headers = { cookie: cookie.startsWith(CONSOLE_SESSION_COOKIE) ? cookie : '', [CONSOLE_CSRF_HEADER]: csrf };
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
  };

  const inbox = new AbortController();
  const inboxDone = fetch(`${base}/console/api/approvals`, { headers, signal: inbox.signal })
    .then((response) => response.arrayBuffer())
    .catch(() => undefined);
  const list = setInterval(() => void get('/runs?limit=20').catch(() => undefined), RUNS_LIST_REFRESH_MS);
  try {
    await Promise.all(
      workflowIds.map(async (workflowId) => {
        await readEventsToEnd(base, `/runs/${encodeURIComponent(workflowId)}`, headers);
      }),
    );
  } finally {
    clearInterval(list);
    inbox.abort();
    await inboxDone;
  }
}
