import path from 'node:path';
import { getAgentState } from '../../src/client';
import type { AgentResult } from '../../src/shared/agent-result';
import { defineAgentTool } from '../../src/tools/define-agent-tool';
import { TestApi, type Json } from '../helpers/api';
import { everythingStdio } from '../helpers/mcp-servers';
import { PROJECT_ROOT, cleanEnv, runProcess } from '../helpers/processes';
import { TestEnv, testServerAddress } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';

/**
 * An MCP server's question asked inside a nested agent is listed in its parent's state (`nestedQuestions`), naming
 * the nested run that waits, so an operator finds it from the run they started and answers it there.
 */

const asker = defineAgentTool({
  name: 'asker',
  description: 'Asks the person a question through the MCP server.',
  instructions: 'You ask.',
  tools: ['everything__trigger-elicitation-request'],
});

let env: TestEnv;
let api: TestApi;
beforeAll(async () => {
  env = await TestEnv.create({
    extraTools: [asker],
    mcpServers: { everything: { ...everythingStdio(), timeout: '2 minutes' } },
  });
  api = await TestApi.start(env);
});
afterAll(async () => {
  await api.close();
  await env.close();
});

test("the parent's status lists its nested agent's question; answered on the nested run, both go on", async () => {
  const model = env.scenario([
    { toolCalls: [{ name: 'asker', arguments: { task: 'Ask for a name.' } }] },
    { toolCalls: [{ name: 'everything__trigger-elicitation-request', arguments: {} }] }, // the nested agent
    { content: 'The name is Ada.' }, // the nested agent's answer
    { content: 'done' }, // the parent again
  ]);
  const parent = await env.start({ model, tools: ['asker'], message: 'find a name' });
  const childId = `${parent.workflowId}/call-1-1`;

  const waiting = await waitForState(parent, (state) => (state.nestedQuestions?.length ?? 0) > 0, 90_000);
  const listed = {
    workflowId: childId,
    callId: 'call-1-1',
    elicitationId: 'call-1-1#1',
    server: 'everything',
    question: expect.stringMatching(/MCP server "everything" asks: Please provide inputs/),
    askedAt: expect.any(String),
  };
  expect(waiting.nestedQuestions).toEqual([listed]);
  // The client's status and GET /runs/:run_id of the parent say the same.
  expect((await getAgentState(env.client, parent.workflowId)).nestedQuestions).toEqual([listed]);
  const status = await api.get<Json>(`/runs/${encodeURIComponent(parent.workflowId)}`);
  expect(status.status).toBe(200);
  expect(status.body.state.nestedQuestions).toEqual([listed]);
  // `agent-runner status` of the parent names the nested run and the command that answers there.
  const printed = await runProcess(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bin', 'agent-runner.js'), 'status', parent.workflowId],
    {
      env: cleanEnv({
        ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_TASK_QUEUE: env.taskQueue,
      }),
      timeoutMs: 60_000,
    },
  );
  expect(printed.code).toBe(0);
  expect(printed.stdout).toContain(`(run ${childId}, since`);
  expect(printed.stdout).toMatch(/agent-runner answer \S*call-1-1\S* --id \S*call-1-1#1/);

  const answered = await api.post<Json>(`/runs/${encodeURIComponent(childId)}/answer`, {
    elicitation_id: 'call-1-1#1',
    action: 'accept',
    content: { name: 'Ada' },
  });
  expect(answered.status).toBe(200);
  const result = (await parent.result()) as AgentResult;
  expect(result.response).toBe('done');
  expect(result.messages.find((message) => message.role === 'tool')?.content).toContain('The name is Ada.');
  expect((await getAgentState(env.client, parent.workflowId)).nestedQuestions).toBeUndefined();
}, 150_000);
