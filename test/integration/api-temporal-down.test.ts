import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/server';
import { API_TEMPORAL_DEADLINE_MS } from '../../src/shared';
import { startDevServer, type StartedDevServer } from '../../src/temporal/dev-server';
import { TEST_TOKEN } from '../helpers/api';
import { waitFor } from '../helpers/wait';

/**
 * A Temporal dev server of this file's own, stopped mid-test (the suite's
 * server stays up for the other files), with an API pointed at it.
 */
let server: StartedDevServer;
let connection: Connection;
let app: FastifyInstance;
let url: string;
let port: number;
const log = (line: string) => process.stderr.write(`[temporal-down] ${line}\n`);

beforeAll(async () => {
  server = await startDevServer({ port: 0, uiPort: 0, log });
  port = Number(server.address.split(':').at(-1));
  connection = await Connection.connect({ address: server.address });
  app = buildApiServer({
    client: new Client({ connection, namespace: 'default' }),
    taskQueue: 'temporal-down-test',
    auth: { token: TEST_TOKEN },
    defaults: { tools: ['calculator'] },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the API did not listen on a TCP port');
  url = `http://127.0.0.1:${address.port}`;
}, 90_000);

afterAll(async () => {
  await app.close();
  // A request answered 503 leaves the client's retry of its call pending (up to 5 s, then it fails on the passed
  // deadline); closing the channel under it would throw from the retry's timer, so let those end first.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  await connection.close();
  await server.stop();
});

/** One request with the token; its status, JSON body and how long it took. */
async function timed(method: string, path: string, body?: unknown): Promise<{ path: string; status: number; body: unknown; ms: number }> {
  const started = Date.now();
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { path: `${method} ${path}`, status: response.status, body: JSON.parse(text) as unknown, ms: Date.now() - started };
}

test('with Temporal down, requests answer 503 temporal_unavailable within ~2 s and /readyz says not ready; /readyz recovers with Temporal', async () => {
  // Readiness needs no token, like liveness: it says nothing about runs.
  const ready = await fetch(`${url}/readyz`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: 'ready' });

  await server.stop();

  const answers = await Promise.all([
    timed('GET', '/readyz'),
    timed('POST', '/runs', { input: { model: 'm', message: 'hi', tools: ['calculator'] }, run_id: 'down-run' }),
    timed('GET', '/runs'),
    timed('GET', '/runs/some-run'),
    timed('GET', '/runs/some-run/result'),
    timed('GET', '/runs/some-run/events'),
    timed('POST', '/runs/some-run/approve', { call_id: 'call_1' }),
    timed('POST', '/runs/some-run/messages', { content: 'hello' }),
    timed('POST', '/runs/some-run/terminate', {}),
    timed('POST', '/chat', { context_id: 'down-context', message: 'hi' }),
    timed('POST', '/chat/invoke', { context_id: 'down-context' }),
    timed('GET', '/conversations/down-context'),
    timed('DELETE', '/conversations/down-context'),
  ]);
  for (const answer of answers) {
    expect({ path: answer.path, status: answer.status, body: answer.body }).toEqual({
      path: answer.path,
      status: 503,
      body: { error: { code: 'temporal_unavailable', message: expect.stringContaining('try again shortly') } },
    });
    // The deadline plus room for a loaded machine; before the deadline, each took the client's ~20 s of retries.
    expect(answer.ms).toBeLessThan(API_TEMPORAL_DEADLINE_MS + 1_500);
  }
  // Liveness stays green: the process is fine, only its dependency is not.
  expect((await fetch(`${url}/healthz`)).status).toBe(200);

  // The same address again (a fresh in-memory server): the client reconnects and readiness turns green.
  server = await startDevServer({ port, uiPort: 0, log });
  const recovered = await waitFor(
    () => fetch(`${url}/readyz`).then(async (response) => ({ status: response.status, body: (await response.json()) as unknown })),
    (answer) => answer.status === 200,
    60_000,
  );
  expect(recovered.body).toEqual({ status: 'ready' });
}, 120_000);
