import net from 'node:net';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/server';
import { API_QUERY_DEADLINE_MS, API_TEMPORAL_DEADLINE_MS } from '../../src/shared/defaults/api';
import { startDevServer, type StartedDevServer } from '../../src/dev-server/dev-server';
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

/** One request with the token to `base`; its status, JSON body and how long it took. */
async function timed(
  method: string,
  path: string,
  body?: unknown,
  base = url,
): Promise<{ path: string; status: number; body: unknown; ms: number }> {
  const started = Date.now();
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TEST_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    path: `${method} ${path}`,
    status: response.status,
    body: JSON.parse(text) as unknown,
    ms: Date.now() - started,
  };
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
    // The deadline plus room for a loaded machine (typically 2.1-2.4 s here); before the deadline, each took ~20 s.
    expect({
      path: answer.path,
      status: answer.status,
      body: answer.body,
      time: answer.ms < API_TEMPORAL_DEADLINE_MS + 3_000 ? 'in time' : `${answer.ms} ms`,
    }).toEqual({
      path: answer.path,
      status: 503,
      body: { error: { code: 'temporal_unavailable', message: expect.stringContaining('try again shortly') } },
      time: 'in time',
    });
  }
  // Liveness stays green: the process is fine, only its dependency is not.
  expect((await fetch(`${url}/healthz`)).status).toBe(200);

  // The same address again (a fresh in-memory server): the client reconnects and readiness turns green.
  server = await startDevServer({ port, uiPort: 0, log });
  const recovered = await waitFor(
    () =>
      fetch(`${url}/readyz`).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as unknown,
      })),
    (answer) => answer.status === 200,
    60_000,
  );
  expect(recovered.body).toEqual({ status: 'ready' });
}, 120_000);

test('a Temporal that accepts connections but never answers gets 503 temporal_unavailable at the deadline too', async () => {
  // A black hole: TCP connects, no gRPC answer ever comes, so no call fails by itself and the client never retries.
  const sockets = new Set<net.Socket>();
  const hole = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
  const holeAddress = hole.address() as net.AddressInfo;
  const lazy = Connection.lazy({ address: `127.0.0.1:${holeAddress.port}` });
  const stuck = buildApiServer({
    client: new Client({ connection: lazy, namespace: 'default' }),
    taskQueue: 'hung',
    auth: { token: TEST_TOKEN },
    defaults: { tools: ['calculator'] },
  });
  await stuck.listen({ host: '127.0.0.1', port: 0 });
  const stuckUrl = `http://127.0.0.1:${(stuck.server.address() as net.AddressInfo).port}`;
  try {
    const answers = await Promise.all([
      timed('GET', '/readyz', undefined, stuckUrl),
      timed('GET', '/runs/some-run', undefined, stuckUrl),
      timed('POST', '/chat', { context_id: 'hung-context', message: 'hi' }, stuckUrl),
    ]);
    for (const answer of answers) {
      expect({
        path: answer.path,
        status: answer.status,
        code: (answer.body as { error?: { code?: string } }).error?.code,
      }).toEqual({
        path: answer.path,
        status: 503,
        code: 'temporal_unavailable',
      });
      expect(answer.ms).toBeGreaterThanOrEqual(API_TEMPORAL_DEADLINE_MS - 100);
      expect(answer.ms).toBeLessThan(API_TEMPORAL_DEADLINE_MS + 3_000);
    }
  } finally {
    await stuck.close();
    await lazy.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hole.close(resolve));
  }
}, 60_000);

test("a run's state that no worker can answer is 503 no_worker at once, naming the queue, not a hang", async () => {
  // This file's API starts runs on a task queue no worker polls: the API says so before it asks the query.
  await waitFor(
    () => fetch(`${url}/readyz`).then((response) => response.status),
    (status) => status === 200,
    60_000,
  );
  const started = await timed('POST', '/runs', {
    input: { model: 'm', message: 'hi', tools: ['calculator'] },
    run_id: 'no-worker-run',
  });
  expect(started.status).toBe(202);
  const state = await timed('GET', '/runs/no-worker-run');
  expect(state.status).toBe(503);
  expect(state.body).toEqual({
    error: {
      code: 'no_worker',
      message: expect.stringContaining('No worker polls task queue "temporal-down-test"'),
    },
  });
  expect(state.ms).toBeLessThan(API_QUERY_DEADLINE_MS);
}, 90_000);
