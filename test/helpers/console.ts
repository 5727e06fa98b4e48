import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/server';
import { newApiToken, type Principal } from '../../src/config/principals';
import type { ApiScope } from '../../src/api/scopes';
import { CONSOLE_CSRF_HEADER, CONSOLE_SESSION_COOKIE } from '../../src/shared/defaults/console';
import { buildConsole } from '../../scripts/build-console';
import { parseBlock } from './api';
import type { TestEnv } from './test-env';

/** A principal for a test, with its token. */
export function testPrincipal(name: string, scopes: ApiScope[]): { principal: Principal; token: string } {
  const { token, tokenSha256 } = newApiToken();
  return { principal: { name, tokenSha256: Buffer.from(tokenSha256, 'hex'), scopes: new Set(scopes) }, token };
}

let bundle: Promise<string> | undefined;

/** The console's bundle, built once per test process into a temporary folder. */
export function consoleBundle(): Promise<string> {
  return (bundle ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'console-bundle-'));
    await buildConsole(dir);
    return dir;
  })());
}

/** An API with the console on, listening on a free loopback port. */
export async function startConsoleApi(
  env: TestEnv,
  principals: Principal[],
  options: { loginLimit?: { failures: number; windowMs: number }; temporalUiUrl?: string } = {},
): Promise<{ app: FastifyInstance; url: string }> {
  const app = buildApiServer({
    client: env.client,
    taskQueue: env.taskQueue,
    auth: { principals },
    defaults: { tools: ['calculator'] },
    keepAliveMs: 1_000,
    console: {
      bundleDir: await consoleBundle(),
      inboxPollMs: 300,
      ...(options.loginLimit === undefined ? {} : { loginLimit: options.loginLimit }),
      ...(options.temporalUiUrl === undefined ? {} : { temporalUiUrl: options.temporalUiUrl }),
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the API did not listen on a TCP port');
  return { app, url: `http://127.0.0.1:${address.port}` };
}

/** A signed-in console session: its cookie header and CSRF header, as the console's page sends them. */
export interface ConsoleCredentials {
  cookie: string;
  csrf: string;
  setCookie: string;
  body: Record<string, unknown>;
}

/** Signs in to the console at `url` with `token`. */
export async function signIn(url: string, token: string): Promise<ConsoleCredentials> {
  const response = await fetch(`${url}/console/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ token }),
  });
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const value = new RegExp(`${CONSOLE_SESSION_COOKIE}=([^;]*)`).exec(setCookie)?.[1] ?? '';
  const body = (await response.json()) as Record<string, unknown>;
  return { cookie: `${CONSOLE_SESSION_COOKIE}=${value}`, csrf: String(body.csrf_token), setCookie, body };
}

/** The headers of a console request with `credentials`. */
export function consoleHeaders(credentials: ConsoleCredentials, url: string): Record<string, string> {
  return { cookie: credentials.cookie, [CONSOLE_CSRF_HEADER]: credentials.csrf, origin: url };
}

/** One open inbox stream: every snapshot it received, and a wait for one that fits. */
export interface InboxStream {
  snapshots: Array<Array<Record<string, unknown>>>;
  waitFor(
    check: (items: Array<Record<string, unknown>>) => boolean,
    timeoutMs?: number,
  ): Promise<Array<Record<string, unknown>>>;
  close(): void;
}

/** Opens `GET /console/api/approvals` with `headers` and collects its `inbox` events. */
export async function openInbox(url: string, headers: Record<string, string>): Promise<InboxStream> {
  const controller = new AbortController();
  const response = await fetch(`${url}/console/api/approvals`, { headers, signal: controller.signal });
  if (response.status !== 200 || response.body === null) throw new Error(`the inbox answered ${response.status}`);
  const snapshots: Array<Array<Record<string, unknown>>> = [];
  const waiters = new Set<() => void>();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const event = parseBlock(block);
          if (event?.event !== 'inbox') continue;
          snapshots.push((event.data as { approvals: Array<Record<string, unknown>> }).approvals);
          for (const wake of waiters) wake();
        }
      }
    } catch {
      // Closed by the test.
    }
  })();
  return {
    snapshots,
    close: () => controller.abort(),
    waitFor: (check, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const look = () => {
          const last = snapshots[snapshots.length - 1];
          if (last !== undefined && check(last)) {
            waiters.delete(look);
            clearTimeout(timer);
            resolve(last);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          reject(new Error(`no inbox snapshot fit within ${timeoutMs} ms; last: ${JSON.stringify(snapshots.at(-1))}`));
        }, timeoutMs);
        waiters.add(look);
        look();
      }),
  };
}
