import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { newApiToken } from '../../src/config/principals';
import { buildApiServer } from '../../src/api/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { testServerAddress } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * `GET /runs?query=` through a real API on the real dev server: a read-only principal's filter, whatever its
 * quotes, escapes and comments, never lists a workflow of another type.
 */

const viewer = newApiToken();
let connection: Connection;
let client: Client;
let app: FastifyInstance;
let url: string;
const otherId = `other-${randomUUID()}`;

beforeAll(async () => {
  connection = await Connection.connect({ address: testServerAddress() });
  client = new Client({ connection, namespace: 'default' });
  // No worker polls this queue: the workflow stays open and listed by visibility.
  await client.workflow.start('otherWorkflow', { taskQueue: `nobody-${randomUUID()}`, workflowId: otherId, args: [] });
  await waitFor(
    async () => {
      const found: string[] = [];
      for await (const execution of client.workflow.list({ query: `WorkflowId = '${otherId}'` }))
        found.push(execution.workflowId);
      return found;
    },
    (found) => found.includes(otherId),
  );
  app = buildApiServer({
    client,
    taskQueue: 'unused',
    auth: {
      principals: [
        { name: 'viewer', tokenSha256: Buffer.from(viewer.tokenSha256, 'hex'), scopes: new Set(['runs:read']) },
      ],
    },
    defaults: { tools: ['calculator'] },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the API did not listen on a TCP port');
  url = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await client?.workflow.getHandle(otherId).terminate('test over');
  await app?.close();
  await connection?.close();
});

async function list(query: string): Promise<{ status: number; body: { runs?: { run_id: string }[] } }> {
  const response = await fetch(`${url}/runs?limit=200&query=${encodeURIComponent(query)}`, {
    headers: { authorization: `Bearer ${viewer.token}` },
  });
  return { status: response.status, body: (await response.json()) as { runs?: { run_id: string }[] } };
}

const escapes = [
  String.raw`AgentStatus = '\'') OR (WorkflowId != '\''`,
  String.raw`AgentStatus = "\"") OR (WorkflowId != "\""`,
  String.raw`AgentStatus = '\\') OR (WorkflowId != '\\'`,
  `AgentStatus = '''') OR (WorkflowId != ''''`,
  `AgentStatus = 'x') OR (WorkflowId != 'x'`,
  `AgentStatus = 'x' /* ) OR (WorkflowId != '' */`,
  `AgentStatus = 'x' -- ) OR (WorkflowId != ''`,
  `AgentStatus = 'x' # ) OR (WorkflowId != ''`,
  `WorkflowType != '${WORKFLOW_TYPE}'`,
  `WorkflowId = '${otherId}' OR WorkflowId != ''`,
];

test.each(escapes)('the filter %s lists no workflow of another type', async (query) => {
  const answer = await list(query);
  expect([200, 400]).toContain(answer.status);
  if (answer.status === 200) expect(answer.body.runs?.map((run) => run.run_id)).not.toContain(otherId);
});

test('quotes and escapes inside a string are values, not syntax', async () => {
  // A quote written each way Temporal reads one: the filter runs (200) and matches no agent status.
  for (const query of [String.raw`AgentStatus = 'it\'s'`, `AgentStatus = 'it''s'`, `AgentStatus = "it's"`]) {
    const answer = await list(query);
    expect(answer.status).toBe(200);
    expect(answer.body.runs).toEqual([]);
  }
  expect((await list(String.raw`AgentStatus = 'x\n'`)).status).toBe(400);
});
