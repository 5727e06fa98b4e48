import { mkdtemp, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { newApiToken } from '../../src/config/principals';
import { cleanEnv, startScript, stopChild } from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * The API as `npm run api` runs it, a real process on the real dev server: with authentication off it answers
 * only loopback host names (a DNS rebinding guard), and its log never holds a principal's token, wherever in
 * the request it was sent.
 */

const API_AT = /Agent API at (http:\/\/127\.0\.0\.1:\d+)/;

/** A GET with a `Host` header of the test's choosing and the path sent byte for byte (fetch normalises both). */
function rawGet(base: string, rawPath: string, headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest({ host: hostname, port, path: rawPath, method: 'GET', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

test('with AGENT_API_AUTH=none only localhost, 127.0.0.1 and [::1] are answered', async () => {
  const { child, output } = await startScript(
    'src/api/main.ts',
    cleanEnv({ TEMPORAL_ADDRESS: testServerAddress(), AGENT_API_AUTH: 'none', AGENT_API_PORT: '0' }),
    API_AT,
  );
  try {
    const base = API_AT.exec(output())?.[1] as string;
    const port = new URL(base).port;
    for (const host of ['localhost', `localhost:${port}`, `127.0.0.1:${port}`, '[::1]', `[::1]:${port}`, 'LOCALHOST'])
      expect([host, (await rawGet(base, '/healthz', { host })).status]).toEqual([host, 200]);
    for (const host of [
      `attacker.example:${port}`,
      'attacker.example',
      'localhost.attacker.example',
      '127.0.0.1.nip.io',
      `127.0.0.2:${port}`,
    ]) {
      const answer = await rawGet(base, '/runs', { host });
      expect([host, answer.status]).toEqual([host, 403]);
      expect(JSON.parse(answer.body).error.code).toBe('host_not_allowed');
    }
  } finally {
    await stopChild(child);
  }
});

test("a principal's token in a path, valid or malformed, never reaches the log", async () => {
  const ops = newApiToken();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'principals-'));
  const file = path.join(dir, 'principals.json');
  await writeFile(file, JSON.stringify([{ name: 'ops', tokenSha256: ops.tokenSha256, scopes: ['runs:read'] }]));
  const { child, output } = await startScript(
    'src/api/main.ts',
    cleanEnv({
      TEMPORAL_ADDRESS: testServerAddress(),
      AGENT_API_PRINCIPALS_FILE: file,
      AGENT_API_PORT: '0',
      LOG_LEVEL: 'DEBUG',
    }),
    API_AT,
  );
  try {
    const base = API_AT.exec(output())?.[1] as string;
    const authorization = { authorization: `Bearer ${ops.token}` };
    const careless = [
      `/runs/${ops.token}`,
      `/runs/${ops.token}/events`,
      `/runs/${ops.token}%`,
      `/runs/%${ops.token}`,
      `/runs/%07${ops.token}`,
      `/runs/${ops.token}%zz/result`,
      `/nowhere/${ops.token}`,
      `/runs/${encodeURIComponent(ops.token)}/messages?from=${ops.token}`,
    ];
    for (const route of careless) {
      await rawGet(base, route, authorization);
      await rawGet(base, route);
    }
    // The process logs in order: once the last request's answer is logged, every line before it is too.
    await rawGet(base, '/healthz?last=1');
    const lines = await waitFor(
      async () => output(),
      (text) => /"url":"\/healthz\?last=1"[^\n]*\n[^\n]*"request completed"/.test(text),
    );
    expect(lines).toContain('[redacted]');
    expect(lines).not.toContain(ops.token);
  } finally {
    await stopChild(child);
  }
});
