import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { TestEnv } from '../helpers/test-env';
import { consoleHeaders, openInbox, signIn, startConsoleApi, testPrincipal } from '../helpers/console';
import { CONSOLE_CSRF_HEADER } from '../../src/shared/defaults/console';
import type { AgentResult } from '../../src/shared/agent-result';

/**
 * The console's server side against a real worker and dev server: the sign-in and its cookie, the CSRF rules that
 * keep the cookie from authenticating anything but the console's own requests, the rate limit on failed sign-ins,
 * and the approvals inbox pushed to every open console as calls wait and are decided.
 */

const admin = testPrincipal('alice', ['admin']);
const reader = testPrincipal('rita-reader', ['runs:read']);
let env: TestEnv;
let api: { app: FastifyInstance; url: string };

beforeAll(async () => {
  env = await TestEnv.create();
  api = await startConsoleApi(env, [admin.principal, reader.principal], {
    loginLimit: { failures: 3, windowMs: 60_000 },
  });
}, 120_000);
afterAll(async () => {
  await api?.app.close();
  await env?.close();
});

/** A run whose first answer writes `file` (which waits for approval), then finishes. */
async function startApprovalRun(file: string): Promise<string> {
  const model = env.scenario([
    { toolCalls: [{ name: 'write_file', arguments: { path: file, content: 'first draft' } }] },
    { toolCalls: [{ name: 'finish', arguments: { note: `finished ${file}` } }] },
  ]);
  const handle = await env.start({
    model,
    tools: ['write_file', 'finish'],
    message: `write ${file}`,
    approval: { tools: ['write_file'] },
    terminating: { toolIds: ['finish'] },
  });
  return handle.workflowId;
}

describe('the console sign-in', () => {
  test('a token becomes an HttpOnly, SameSite=Strict, expiring session cookie; the page is served with its CSP', async () => {
    const session = await signIn(api.url, admin.token);
    expect(session.setCookie).toMatch(/^agent_console_session=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    expect(session.body).toMatchObject({ principal: 'alice', namespace: 'default' });
    expect(session.body.scopes).toContain('approvals:decide');
    expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const again = await fetch(`${api.url}/console/api/session`, { headers: { cookie: session.cookie } });
    expect(await again.json()).toMatchObject({ principal: 'alice', csrf_token: session.csrf });

    const page = await fetch(`${api.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script src="console.js"></script>');
    const script = await fetch(`${api.url}/console/console.js`);
    expect(script.headers.get('content-type')).toContain('text/javascript');
    expect((await fetch(`${api.url}/console/..%2Fpackage.json`)).status).toBe(404);
  });

  test('failed sign-ins are refused with 401, then 429 with Retry-After, even for the right token', async () => {
    const attempt = (token: string) =>
      fetch(`${api.url}/console/api/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': 'ignored' },
        body: JSON.stringify({ token }),
      });
    const statuses = [];
    for (let index = 0; index < 3; index += 1) statuses.push((await attempt('wrong-token')).status);
    expect(statuses).toEqual([401, 401, 401]);
    const limited = await attempt(admin.token);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('too_many_logins');
  });
});

describe('the cookie and CSRF', () => {
  let headers: Record<string, string>;
  beforeAll(async () => {
    // The sign-ins above exhausted this address's failures: a fresh API process counts afresh.
    await api.app.close();
    api = await startConsoleApi(env, [admin.principal, reader.principal]);
    headers = consoleHeaders(await signIn(api.url, admin.token), api.url);
  });

  test('the cookie with its CSRF header reads the runs; without the header, from another origin, or on /chat it is refused', async () => {
    expect((await fetch(`${api.url}/runs?limit=1`, { headers })).status).toBe(200);
    const withoutHeader = await fetch(`${api.url}/runs?limit=1`, { headers: { cookie: headers.cookie! } });
    expect(withoutHeader.status).toBe(403);
    expect(((await withoutHeader.json()) as { error: { code: string } }).error.code).toBe('console_csrf');
    const wrongToken = await fetch(`${api.url}/runs?limit=1`, {
      headers: { ...headers, [CONSOLE_CSRF_HEADER]: 'x'.repeat(32) },
    });
    expect(wrongToken.status).toBe(403);
    const foreign = await fetch(`${api.url}/runs`, {
      method: 'POST',
      headers: { ...headers, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ input: { message: 'hi' } }),
    });
    expect(foreign.status).toBe(403);
    const crossSite = await fetch(`${api.url}/runs?limit=1`, {
      headers: { ...headers, 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    const chat = await fetch(`${api.url}/chat`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ context_id: 'c-1', message: 'hi' }),
    });
    expect(chat.status).toBe(403);
    // A bearer token still works as before, with or without a cookie.
    expect(
      (await fetch(`${api.url}/runs?limit=1`, { headers: { authorization: `Bearer ${admin.token}` } })).status,
    ).toBe(200);
  });

  test('signing out revokes the session server-side: the copied cookie is refused afterwards', async () => {
    const session = await signIn(api.url, admin.token);
    const copied = consoleHeaders(session, api.url);
    expect((await fetch(`${api.url}/runs?limit=1`, { headers: copied })).status).toBe(200);
    const out = await fetch(`${api.url}/console/api/sign-out`, { method: 'POST', headers: copied });
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await fetch(`${api.url}/runs?limit=1`, { headers: copied })).status).toBe(401);
    expect((await fetch(`${api.url}/console/api/session`, { headers: copied })).status).toBe(401);
  });

  test('a reader signs in with read scopes only, sees the inbox, and may not decide', async () => {
    const session = await signIn(api.url, reader.token);
    expect(session.body.scopes).toEqual(['runs:read']);
    const readerHeaders = consoleHeaders(session, api.url);
    const runId = await startApprovalRun('reader.txt');
    const inbox = await openInbox(api.url, readerHeaders);
    try {
      const [item] = await inbox.waitFor((items) => items.some((entry) => entry.run_id === runId));
      expect(item).toMatchObject({ run_id: runId, tool_name: 'write_file' });
      const refused = await fetch(`${api.url}/runs/${runId}/approve`, {
        method: 'POST',
        headers: { ...readerHeaders, 'content-type': 'application/json' },
        body: JSON.stringify({ call_id: 'call-1-1' }),
      });
      expect(refused.status).toBe(403);
    } finally {
      inbox.close();
      await env.client.workflow.getHandle(runId).terminate('test over');
    }
  });

  test('the inbox lists a waiting call with its exact arguments in two consoles; an approval with new arguments, named after the principal, leaves both at once', async () => {
    const first = await openInbox(api.url, headers);
    const second = await openInbox(api.url, consoleHeaders(await signIn(api.url, admin.token), api.url));
    const runId = await startApprovalRun('inbox.txt');
    try {
      const waiting = (items: Array<Record<string, unknown>>) => items.some((entry) => entry.run_id === runId);
      const [listed] = (await first.waitFor(waiting)).filter((entry) => entry.run_id === runId);
      await second.waitFor(waiting);
      expect(listed).toMatchObject({
        call_id: 'call-1-1',
        tool_name: 'write_file',
        arguments: { path: 'inbox.txt', content: 'first draft' },
      });
      // The tool's schema from the run's catalog, for the console's editor.
      expect(listed?.parameters).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
      const approved = await fetch(`${api.url}/runs/${runId}/approve`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ call_id: 'call-1-1', arguments: { path: 'inbox.txt', content: 'edited' } }),
      });
      expect(approved.status).toBe(200);
      expect(await approved.json()).toMatchObject({ decision: 'approve', by: { name: 'alice', via: 'api' } });
      const gone = (items: Array<Record<string, unknown>>) => !waiting(items);
      const started = Date.now();
      await Promise.all([first.waitFor(gone, 10_000), second.waitFor(gone, 10_000)]);
      // Pushed as the run records the decision, well within the inbox's own poll.
      expect(Date.now() - started).toBeLessThan(5_000);
      const result = (await env.client.workflow.getHandle(runId).result()) as AgentResult;
      expect(result.terminationReason).toMatchObject({ type: 'terminating_tool', toolName: 'finish' });
      expect(await readFile(path.join(env.workspace, 'inbox.txt'), 'utf8')).toBe('edited');
    } finally {
      first.close();
      second.close();
    }
  });
});
