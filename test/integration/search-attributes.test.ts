import { SEARCH_ATTRIBUTE_COUNTER_STEP } from '../../src/shared/defaults/activities';
import { type AgentResult } from '../../src/shared/agent-result';
import { TestEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * Search attributes are upserted on a meaningful change only: the status and
 * the rest at once, the counters every SEARCH_ATTRIBUTE_COUNTER_STEP
 * iterations. A run's history shows how often; visibility still shows the
 * right status and exact counters once the run has ended.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

/** The run's upserts of the agent's attributes (the SDK's own patch upserts left out), by attribute names. */
async function agentUpserts(workflowId: string): Promise<string[][]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    const names = Object.keys(fields ?? {}).filter((name) => name.startsWith('Agent'));
    return names.length > 0 ? [names.sort()] : [];
  });
}

test('a 12-iteration run upserts at its start, after 10 iterations and at its end, and ends with exact values', async () => {
  expect(SEARCH_ATTRIBUTE_COUNTER_STEP).toBe(10);
  const model = env.scenario([
    ...Array.from({ length: 11 }, (_, index) => ({
      toolCalls: [{ name: 'calculator', arguments: { expression: `${index} + 1` } }],
    })),
    { content: 'counted to eleven' },
  ]);
  const handle = await env.start({ model, tools: ['calculator'], message: 'count' });
  const result = (await handle.result()) as AgentResult;
  expect(result.iterations).toBe(12);

  expect(await agentUpserts(handle.workflowId)).toEqual([
    ['AgentIterations', 'AgentPendingApprovals', 'AgentStatus', 'AgentTotalTokens'],
    ['AgentIterations', 'AgentTotalTokens'],
    ['AgentIterations', 'AgentStatus', 'AgentTerminationReason', 'AgentTotalTokens'],
  ]);
  const attributes = (await handle.describe()).searchAttributes;
  expect(attributes).toMatchObject({
    AgentStatus: ['completed'],
    AgentIterations: [12],
    AgentTotalTokens: [result.usage.totalTokens],
    AgentPendingApprovals: [0],
    AgentTerminationReason: ['complete'],
  });
  // What `agent-runner list --status completed` and the web UI's filters ask.
  const listed = await waitFor(
    async () => {
      const ids: string[] = [];
      for await (const execution of env.client.workflow.list({
        query: `AgentStatus='completed' AND AgentIterations = 12 AND WorkflowId='${handle.workflowId}'`,
      })) {
        ids.push(execution.workflowId);
      }
      return ids;
    },
    (ids) => ids.length === 1,
  );
  expect(listed).toEqual([handle.workflowId]);
});
