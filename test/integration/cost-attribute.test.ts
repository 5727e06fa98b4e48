import type { PriceTable } from '../../src/shared/prices';
import type { AgentResult } from '../../src/shared/agent-result';
import { TestApi } from '../helpers/api';
import { TestEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * `AgentCostUsd`: a priced run's cost in visibility, sent in the upserts the other attributes decide (never one of
 * its own), listed by `GET /runs` as `cost_usd` and selectable by a query.
 */
const PRICES: PriceTable = { 'priced-cost-attribute': { inputPerMTok: 3, outputPerMTok: 15 } };

let env: TestEnv;
let api: TestApi;
beforeAll(async () => {
  env = await TestEnv.create({ prices: PRICES });
  api = await TestApi.start(env);
});
afterAll(async () => {
  await api.close();
  await env.close();
});

const steps = [
  ...Array.from({ length: 3 }, (_, index) => ({
    toolCalls: [{ name: 'calculator', arguments: { expression: `${index} + 1` } }],
  })),
  { content: 'counted' },
];

/** The run's upserts of the agent's attributes, as name-to-value records, in order. */
async function agentUpserts(workflowId: string): Promise<Record<string, unknown>[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {};
    const names = Object.keys(fields).filter((name) => name.startsWith('Agent'));
    if (names.length === 0) return [];
    return [
      Object.fromEntries(
        names.map((name) => [name, JSON.parse(Buffer.from(fields[name]!.data ?? new Uint8Array()).toString())]),
      ),
    ];
  });
}

test('a priced run carries its cost in the upserts it makes anyway; GET /runs lists and selects it by cost', async () => {
  env.model.script('priced-cost-attribute', steps);
  const priced = await env.start({ model: 'priced-cost-attribute', tools: ['calculator'], message: 'count' });
  const unpriced = await env.start({ model: env.scenario(steps), tools: ['calculator'], message: 'count' });
  const pricedResult = (await priced.result()) as AgentResult;
  await unpriced.result();
  const cost = pricedResult.usage.costUsd;
  expect(cost).toBeGreaterThan(0);

  const pricedUpserts = await agentUpserts(priced.workflowId);
  const unpricedUpserts = await agentUpserts(unpriced.workflowId);
  // As many upserts as an unpriced run: the cost never makes one of its own.
  expect(pricedUpserts.length).toBe(unpricedUpserts.length);
  expect(unpricedUpserts.every((upsert) => !('AgentCostUsd' in upsert))).toBe(true);
  // Whenever the token counter is sent after the first call, the cost goes with it, in the same upsert.
  const withTokens = pricedUpserts.filter((upsert) => Number(upsert.AgentTotalTokens) > 0);
  expect(withTokens.length).toBeGreaterThan(0);
  expect(withTokens.every((upsert) => typeof upsert.AgentCostUsd === 'number')).toBe(true);
  expect(pricedUpserts.at(-1)?.AgentCostUsd).toBe(cost);
  expect((await priced.describe()).searchAttributes.AgentCostUsd).toEqual([cost]);

  const both = `WorkflowId IN ('${priced.workflowId}', '${unpriced.workflowId}')`;
  const listed = await waitFor(
    () => api.get(`/runs?query=${encodeURIComponent(both)}`),
    (answer) =>
      answer.status === 200 &&
      (answer.body.runs as { status: string }[]).length === 2 &&
      (answer.body.runs as { status: string }[]).every((row) => row.status === 'completed'),
  );
  const rows = new Map(
    (listed.body.runs as { run_id: string; cost_usd: number | null }[]).map((row) => [row.run_id, row]),
  );
  expect(rows.get(priced.workflowId)?.cost_usd).toBe(cost);
  expect(rows.get(unpriced.workflowId)?.cost_usd).toBeNull();

  const selected = await api.get(`/runs?query=${encodeURIComponent(`${both} AND AgentCostUsd >= ${cost! / 2}`)}`);
  expect(selected.status).toBe(200);
  expect((selected.body.runs as { run_id: string }[]).map((row) => row.run_id)).toEqual([priced.workflowId]);
}, 90_000);
