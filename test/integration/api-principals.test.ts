import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { newApiToken } from '../../src/config/principals';
import { API_SCOPE_NAMES, OPEN_ROUTES, ROUTE_SCOPES, type ApiScope } from '../../src/api/scopes';
import { buildApiServer, type ApiAuth } from '../../src/api/server';
import { openApiDocument, openApiPath } from '../../src/api/openapi/document';
import { eventsQuery, stateQuery } from '../../src/workflow-contract/definitions';
import type { RunEvent } from '../../src/shared/run-events';
import { startAgentRun } from '../../src/client';
import { decideToolCall } from '../../src/client/run-control';
import { TEST_TOKEN, type Json } from '../helpers/api';
import { cleanEnv, startScript, stopChild } from '../helpers/processes';
import { TestEnv, testServerAddress } from '../helpers/test-env';
import { waitFor, waitForState } from '../helpers/wait';
import { AesGcmPayloadCodec } from '../../src/codec/aes-gcm-codec';

/**
 * Principals of the HTTP API, over real HTTP against a real worker: a read-only principal cannot decide (403,
 * and the run keeps waiting); an approver's decision names it in the run's events, the API's answer and the
 * API's audit line; an unknown token is 401; AGENT_API_TOKEN keeps every scope; each route needs its scope;
 * and the API process's log holds no token sent in a query string.
 */

const viewer = newApiToken();
const approver = newApiToken();

function principal(name: string, token: { tokenSha256: string }, scopes: ApiScope[]) {
  return { name, tokenSha256: Buffer.from(token.tokenSha256, 'hex'), scopes: new Set(scopes) };
}

const auth: ApiAuth = {
  token: TEST_TOKEN,
  principals: [
    principal('viewer', viewer, ['runs:read']),
    principal('approver', approver, ['runs:read', 'approvals:decide']),
  ],
};

let env: TestEnv;
let app: FastifyInstance;
let url: string;
const logLines: Json[] = [];

beforeAll(async () => {
  env = await TestEnv.create();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk
        .toString()
        .split('\n')
        .filter((text) => text !== ''))
        logLines.push(JSON.parse(line));
      done();
    },
  });
  app = buildApiServer({
    client: env.client,
    taskQueue: env.taskQueue,
    auth,
    defaults: { tools: ['calculator'] },
    logger: { level: 'info', stream },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no TCP port');
  url = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

async function call(method: string, route: string, token: string | undefined, body?: unknown) {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed };
}

/** A run waiting for a decision on `call-1-1` (write_file), started with the full-scope token. */
async function waitingRun(file: string): Promise<string> {
  const model = env.scenario([
    { toolCalls: [{ name: 'write_file', arguments: { path: file, content: 'x' } }] },
    { content: `done ${file}` },
  ]);
  const started = await call('POST', '/runs', TEST_TOKEN, {
    input: { model, tools: ['write_file'], message: `write ${file}`, approval: { tools: ['write_file'] } },
  });
  expect(started.status).toBe(202);
  const runId = started.body.run_id as string;
  await waitForState(env.client.workflow.getHandle(runId), (state) => state.status === 'waiting_for_approval');
  return runId;
}

async function decisionEvents(runId: string) {
  const { events } = await env.client.workflow.getHandle(runId).query(eventsQuery, { after: 0 });
  return events.filter((event: RunEvent) => event.type === 'approval-decision');
}

describe('principals and scopes over HTTP', () => {
  test('a read-only principal reads the run but cannot approve it: 403 naming the scope, and the run keeps waiting', async () => {
    const runId = await waitingRun('viewer.txt');
    const read = await call('GET', `/runs/${runId}`, viewer.token);
    expect(read.status).toBe(200);
    expect(read.body.state.status).toBe('waiting_for_approval');

    const refused = await call('POST', `/runs/${runId}/approve`, viewer.token, { call_id: 'call-1-1' });
    expect(refused).toEqual({
      status: 403,
      body: {
        error: {
          code: 'forbidden',
          message:
            'POST /runs/:run_id/approve needs the scope "approvals:decide"; principal "viewer" holds "runs:read".',
        },
      },
    });
    // Nothing reached the run: it still waits, with no decision recorded.
    const state = await env.client.workflow.getHandle(runId).query(stateQuery);
    expect(state).toMatchObject({ status: 'waiting_for_approval', pendingApprovals: [{ callId: 'call-1-1' }] });
    expect(await decisionEvents(runId)).toEqual([]);
    await env.client.workflow.getHandle(runId).terminate('test over');
  });

  test("an approver's decision names it: in the API's answer, the run's approval-decision event, and one audit line", async () => {
    const runId = await waitingRun('approver.txt');
    // Whatever the body says about who decides, the API records its principal (the body has no such field).
    const approved = await call('POST', `/runs/${runId}/approve`, approver.token, { call_id: 'call-1-1' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      callId: 'call-1-1',
      decision: 'approve',
      via: 'update',
      by: { name: 'approver', via: 'api' },
    });
    expect(await env.client.workflow.getHandle(runId).result()).toMatchObject({ response: 'done approver.txt' });
    expect(await decisionEvents(runId)).toEqual([
      expect.objectContaining({ callId: 'call-1-1', decision: 'approve', by: { name: 'approver', via: 'api' } }),
    ]);
    const audit = logLines.filter((line) => line.audit === 'approval-decision' && line.runId === runId);
    expect(audit).toEqual([
      expect.objectContaining({
        msg: 'Approval decision',
        runId,
        callId: 'call-1-1',
        toolName: 'write_file',
        decision: 'approve',
        decidedBy: 'approver',
        decidedVia: 'api',
      }),
    ]);
  });

  test('AGENT_API_TOKEN is the principal "api-token" with every scope; an unknown or missing token is 401', async () => {
    const runId = await waitingRun('api-token.txt');
    const denied = await call('POST', `/runs/${runId}/deny`, TEST_TOKEN, { call_id: 'call-1-1', reason: 'no' });
    expect(denied.status).toBe(200);
    expect(denied.body.by).toEqual({ name: 'api-token', via: 'api' });
    expect((await call('GET', '/runs?limit=1', TEST_TOKEN)).status).toBe(200);

    for (const token of [undefined, 'not-a-token-of-anyone', `${approver.token}x`]) {
      const answer = await call('POST', `/runs/${runId}/approve`, token, { call_id: 'call-1-1' });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('unauthorized');
    }
  });

  test('every route needs its scope: without it 403 naming it, with only it past authorisation; the document says it', async () => {
    const document = openApiDocument() as Json;
    // For each scope, a principal that holds every other one (but admin) and one that holds only it.
    const tokens = new Map<string, string>();
    const principals = API_SCOPE_NAMES.flatMap((scope) => {
      const lacking = newApiToken();
      const holding = newApiToken();
      tokens.set(`lacking ${scope}`, lacking.token);
      tokens.set(`holding ${scope}`, holding.token);
      return [
        principal(
          `lacking-${scope}`,
          lacking,
          API_SCOPE_NAMES.filter((name) => name !== scope && name !== 'admin'),
        ),
        principal(`holding-${scope}`, holding, [scope]),
      ];
    });
    const server = buildApiServer({
      client: env.client,
      taskQueue: env.taskQueue,
      auth: { principals },
      defaults: { tools: [] },
      // With a codec, so the codec routes are there too.
      codec: new AesGcmPayloadCodec([{ id: 'k', key: randomBytes(32) }]),
    });
    await server.listen({ host: '127.0.0.1', port: 0 });
    const address = server.server.address();
    const base = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : '';
    try {
      for (const [route, scope] of Object.entries(ROUTE_SCOPES)) {
        const [method, pattern] = route.split(' ') as [string, string];
        const target = `${base}${pattern.replace(/:[a-z_]+/g, `no-such-${randomUUID().slice(0, 8)}`)}`;
        const without = await fetch(target, {
          method,
          headers: { authorization: `Bearer ${tokens.get(`lacking ${scope}`)}` },
        });
        expect({ route, status: without.status }).toEqual({ route, status: 403 });
        expect(((await without.json()) as Json).error.message).toContain(`needs the scope "${scope}"`);
        const withIt = await fetch(target, {
          method,
          headers: { authorization: `Bearer ${tokens.get(`holding ${scope}`)}`, 'content-type': 'application/json' },
          ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
        });
        await withIt.text();
        expect({ route, status: withIt.status }).not.toEqual({ route, status: 403 });
        expect({ route, status: withIt.status }).not.toEqual({ route, status: 401 });

        const operation = document.paths[openApiPath(pattern)][method.toLowerCase()];
        expect({ route, scope: operation['x-required-scope'] }).toEqual({ route, scope });
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403']));
      }
    } finally {
      await server.close();
    }
    // Open routes are in no scope.
    for (const route of OPEN_ROUTES) expect(ROUTE_SCOPES[route]).toBeUndefined();
  });

  test('a route missing from the scope table cannot be registered', async () => {
    const server = buildApiServer({ client: env.client, taskQueue: env.taskQueue, auth, defaults: { tools: [] } });
    let problem: unknown;
    try {
      server.get('/unguarded', async () => ({ secret: true }));
      await server.ready();
    } catch (error) {
      problem = error;
    }
    expect(String(problem)).toContain(
      'The route GET /unguarded has no scope: add it to ROUTE_SCOPES (or OPEN_ROUTES) in src/api/scopes.ts.',
    );
    await server.close().catch(() => undefined);
  });
});

describe("the API process's request log holds no token", () => {
  test('a token in the query string (AGENT_API_TOKEN or a principal’s) is redacted, the other parameters kept', async () => {
    const apiToken = `tok-${randomUUID()}`;
    const ops = newApiToken();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'principals-'));
    const file = path.join(dir, 'principals.json');
    await writeFile(file, JSON.stringify([{ name: 'ops', tokenSha256: ops.tokenSha256, scopes: ['runs:read'] }]));
    const { child, output } = await startScript(
      'src/api/main.ts',
      cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_API_TOKEN: apiToken,
        AGENT_API_PRINCIPALS_FILE: file,
        AGENT_API_PORT: '0',
        LOG_LEVEL: 'INFO',
      }),
      /Agent API at (http:\/\/127\.0\.0\.1:\d+)/,
    );
    try {
      const base = /Agent API at (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1] as string;
      expect(output()).toContain(
        'bearer token from AGENT_API_TOKEN or 1 principal of AGENT_API_PRINCIPALS_FILE required',
      );
      // A careless client: the token in the query string (and, for the principal, as a path segment too).
      const careless = [
        `/runs?token=${apiToken}&limit=1`,
        `/runs?access_token=${ops.token}`,
        `/runs?api_key=${encodeURIComponent(apiToken)}`,
        `/runs?q=${ops.token}`,
        `/runs/${ops.token}`,
        `/nowhere/${apiToken}?key=k-123456`,
      ];
      for (const route of careless) await fetch(`${base}${route}`);
      const lines = await waitFor(
        async () => output(),
        (text) => text.split('\n').filter((line) => line.includes('"incoming request"')).length >= careless.length,
      );
      expect(lines).not.toContain(apiToken);
      expect(lines).not.toContain(encodeURIComponent(apiToken));
      expect(lines).not.toContain(ops.token);
      expect(lines).not.toContain('k-123456');
      expect(lines).toContain('"url":"/runs?token=[redacted]&limit=1"');
      expect(lines).toContain('"url":"/runs?access_token=[redacted]"');
      expect(lines).toContain('"url":"/runs?q=[redacted]"');
      expect(lines).toContain('"url":"/runs/[redacted]"');
    } finally {
      await stopChild(child);
    }
  });
});

describe("the worker's audit line", () => {
  test('a decision is one line in the log of `npm run worker`, naming the call, the tool, the decision and who', async () => {
    const taskQueue = `audit-${randomUUID()}`;
    const model = env.scenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'audited.txt', content: 'x' } }] },
      { content: 'done audited.txt' },
    ]);
    const worker = await startScript(
      'src/processes/worker.ts',
      cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_TASK_QUEUE: taskQueue,
        OPENAI_BASE_URL: env.model.baseURL,
        OPENAI_MODEL: model,
        AGENT_WORKSPACE: await mkdtemp(path.join(os.tmpdir(), 'audit-workspace-')),
        LOG_LEVEL: 'INFO',
      }),
      /Worker polling task queue/,
    );
    try {
      const run = await startAgentRun(
        env.client,
        { model, tools: ['write_file'], message: 'write', approval: { tools: ['write_file'] } },
        { taskQueue },
      );
      const handle = env.client.workflow.getHandle(run.workflowId);
      await waitForState(handle, (state) => state.status === 'waiting_for_approval');
      await decideToolCall(env.client, run.workflowId, {
        callId: 'call-1-1',
        decision: 'approve',
        by: { name: 'release-bot' },
      });
      expect(await handle.result()).toMatchObject({ response: 'done audited.txt' });
      const output = await waitFor(
        async () => worker.output(),
        (text) => text.includes('Approval decision'),
      );
      const lines = output.split('Approval decision').slice(1);
      // One decision, one line (the SDK prints its fields after the message, with the workflow's ids).
      expect(lines).toHaveLength(1);
      const line = lines[0]!.slice(0, 1_000);
      for (const field of [
        "callId: 'call-1-1'",
        "toolName: 'write_file'",
        "decision: 'approve'",
        "decidedBy: 'release-bot'",
        "decidedVia: 'client'",
        `workflowId: '${run.workflowId}'`,
      ])
        expect(line).toContain(field);
    } finally {
      await stopChild(worker.child);
    }
  });
});
