import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { getAgentResult, getAgentState } from '../../src/client';
import type { CodecKey } from '../../src/codec/codec-keys';
import { payloadCodecDataConverter } from '../../src/codec/data-converter';
import { approveSignal } from '../../src/workflow-contract/definitions';
import { defineTool } from '../../src/tools/define-tool';
import { rawHistory } from '../helpers/raw-history';
import { TestEnv } from '../helpers/test-env';
import { waitFor, waitForState } from '../helpers/wait';

/*
 * Key rotation and a missing key, on real workers: a run started under k1 stays readable, queryable and resumable
 * once k2 is primary; a worker without k1 fails the run's workflow task with an error naming "k1", and the run goes
 * on once a worker with k1 is back.
 */

const k1: CodecKey = { id: 'k1', key: randomBytes(32) };
const k2: CodecKey = { id: 'k2', key: randomBytes(32) };
const ARGUMENT = 'argument-puffin-6620';
const RESULT = 'result-otter-1187';
const ANSWER = 'answer-beacon-3045';

const lookupTool = defineTool({
  name: 'lookup',
  description: 'Looks a topic up.',
  parameters: z.object({ topic: z.string() }),
  execute: () => RESULT,
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [lookupTool], dataConverter: payloadCodecDataConverter([k1]) });
});
afterAll(async () => {
  await env.close();
});

/** A run, started under k1, that waits for the approval of its lookup call. */
async function startGatedRun() {
  const model = env.scenario([
    { toolCalls: [{ name: 'lookup', arguments: { topic: ARGUMENT }, id: 'call_lookup' }] },
    { content: ANSWER },
  ]);
  const handle = await env.start({ model, tools: ['lookup'], message: 'look it up', approval: { tools: ['lookup'] } });
  await waitForState(handle, (state) => state.status === 'waiting_for_approval');
  return handle;
}

/** The key ids of the encrypted payloads of one event type in the raw history. */
async function keyIdsOf(workflowId: string, eventType: string): Promise<Set<string>> {
  const history = await rawHistory(workflowId);
  const index = history.json.events.findIndex((event) => event.eventType === eventType);
  return new Set(
    history
      .payloads()
      .filter((payload) => payload.path.startsWith(`.events[${index}].`))
      .map((payload) => payload.metadata['encryption-key-id'] ?? 'in clear'),
  );
}

describe('key rotation', () => {
  test('a run started under k1 is queried, resumed and completed once k2 is primary; new payloads carry k2', async () => {
    const handle = await startGatedRun();
    await env.restartWorker({ dataConverter: payloadCodecDataConverter([k2, k1]) });
    const rotated = env.clientWith(payloadCodecDataConverter([k2, k1]));

    const state = await getAgentState(rotated, handle.workflowId);
    expect(state).toMatchObject({
      status: 'waiting_for_approval',
      pendingApprovals: [{ toolName: 'lookup', arguments: { topic: ARGUMENT } }],
    });
    await rotated.workflow.getHandle(handle.workflowId).signal(approveSignal, { callId: 'call-1-1' });
    expect((await getAgentResult(rotated, handle.workflowId)).response).toBe(ANSWER);

    expect(await keyIdsOf(handle.workflowId, 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED')).toEqual(new Set(['k1']));
    expect(await keyIdsOf(handle.workflowId, 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED')).toEqual(new Set(['k2']));
    expect(await keyIdsOf(handle.workflowId, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED')).toEqual(new Set(['k2']));
    // A client that holds only the old key no longer reads the new payloads, and says which key it lacks.
    const old = await getAgentResult(env.clientWith(payloadCodecDataConverter([k1])), handle.workflowId).catch(
      (error: unknown) => error,
    );
    expect(String(old)).toMatch(/encrypted with key "k2", which this process does not hold \(it holds "k1"\)/);
    await env.restartWorker();
  });

  test('a worker without k1 fails the workflow task naming "k1"; the run is not lost and completes once k1 is back', async () => {
    const handle = await startGatedRun();
    await env.restartWorker({ dataConverter: payloadCodecDataConverter([k2]) });
    const client = env.clientWith(payloadCodecDataConverter([k2, k1]));
    await client.workflow.getHandle(handle.workflowId).signal(approveSignal, { callId: 'call-1-1' });

    // The new worker replays the run from its history, whose input only k1 opens.
    const failed = await waitFor(
      async () => (await rawHistory(handle.workflowId)).events('EVENT_TYPE_WORKFLOW_TASK_FAILED'),
      (events) => events.length > 0,
      30_000,
    );
    const failure = JSON.stringify(failed[0]);
    expect(failure).toMatch(
      /A payload is encrypted with key \\"k1\\", which this process does not hold \(it holds \\"k2\\"\)/,
    );
    // Not failed, not terminated: the run waits, its workflow task retried, for a worker that holds k1.
    const description = await client.workflow.getHandle(handle.workflowId).describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.raw.pendingWorkflowTask?.attempt).toBeGreaterThanOrEqual(1);
    const history = await rawHistory(handle.workflowId);
    expect(history.events('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED')).toEqual([]);
    expect(history.events('EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED')).toEqual([]);

    await env.restartWorker({ dataConverter: payloadCodecDataConverter([k2, k1]) });
    expect((await getAgentResult(client, handle.workflowId)).response).toBe(ANSWER);
    await env.restartWorker();
  });
});
