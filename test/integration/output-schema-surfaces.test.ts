import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { outputSchema, runAgent } from '../../src/client';
import { AgentOutputMissingError } from '../../src/client/agent-output-missing-error';
import { defineAgentTool } from '../../src/tools/define-agent-tool';
import { runAgentRunner, runTemporalCli } from '../helpers/cli-process';
import { useApiWorld } from '../helpers/api-world';

/**
 * Structured output from every surface, through a real worker and the scripted model: the typed client
 * (`outputSchema` + `runAgent`), a nested agent with an output schema, the HTTP API and the CLI.
 */
const Weather = z.object({ city: z.string(), celsius: z.number() });
const oslo = { city: 'Oslo', celsius: 4 };
const answer = (value: unknown) => ({ toolCalls: [{ name: 'final_answer', arguments: JSON.stringify(value) }] });

const forecaster = defineAgentTool({
  name: 'forecaster',
  description: 'Tells the weather of a city.',
  instructions: 'Answer with the weather.',
  tools: [],
  output: outputSchema(Weather),
});

const world = useApiWorld({ env: { extraTools: [forecaster] } });

describe('structured output surfaces', () => {
  test('runAgent with outputSchema(zod) returns the typed output', async () => {
    const model = world.env.scenario([answer(oslo)]);
    const result = await runAgent(
      world.env.client,
      { model, tools: [], message: 'weather in Oslo?', output: outputSchema(Weather) },
      { taskQueue: world.env.taskQueue },
    );
    const celsius: number = result.output.celsius;
    expect(celsius).toBe(4);
    expect(result.output).toEqual(oslo);
  });

  test('runAgent throws AgentOutputMissingError when a stop condition ends the run before an answer', async () => {
    const model = world.env.scenario([{ toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] }]);
    const running = runAgent(
      world.env.client,
      { model, tools: ['calculator'], message: 'go', stopWhen: { maxIterations: 1 }, output: outputSchema(Weather) },
      { taskQueue: world.env.taskQueue },
    );
    await expect(running).rejects.toBeInstanceOf(AgentOutputMissingError);
    await expect(running).rejects.toMatchObject({ result: { terminationReason: { type: 'stop_condition' } } });
  });

  test('a nested agent with an output schema gives its parent the value as JSON text in the tool result', async () => {
    // The parent and its nested agent share the scenario's script: the parent calls the agent, the child
    // answers through final_answer, the parent answers with text.
    const model = world.env.scenario([
      { toolCalls: [{ name: 'forecaster', arguments: { task: 'Oslo' }, id: 'call_f' }] },
      answer(oslo),
      { content: 'It is 4 degrees in Oslo.' },
    ]);
    const result = await world.env.run({ model, tools: ['forecaster'], message: 'weather in Oslo?' });
    expect(result.response).toBe('It is 4 degrees in Oslo.');
    const toolMessage = result.messages.find((message) => message.role === 'tool');
    expect(JSON.parse(String(toolMessage?.content))).toEqual(oslo);
    const childRequest = world.env.model.requests(model)[1];
    expect(childRequest?.tools?.map((tool) => tool.function.name)).toEqual(['final_answer']);
  });

  test('the HTTP API starts a run with `output` and answers its result with `output`; a bad schema is a 400', async () => {
    const model = world.env.scenario([answer(oslo)]);
    const started = await world.api.request('POST', '/runs', {
      input: { model, tools: [], message: 'weather?', output: { schema: z.toJSONSchema(Weather) } },
    });
    expect(started.status).toBe(202);
    const runId = String(started.body.run_id);
    let ended = await world.api.request('GET', `/runs/${runId}/result`);
    for (let tries = 0; ended.status === 202 && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ended = await world.api.request('GET', `/runs/${runId}/result`);
    }
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ outcome: 'completed', result: { output: oslo } });

    const refused = await world.api.request('POST', '/runs', {
      input: { tools: [], message: 'weather?', output: { schema: { type: 'object', properties: { a: { type: 7 } } } } },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('output.schema');
  });

  test('`agent-runner run --output-schema file.json` ends with the answer as JSON; --json carries `output`', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'output-schema-'));
    const file = path.join(folder, 'weather.json');
    await writeFile(file, JSON.stringify(z.toJSONSchema(Weather)));
    const model = world.env.scenario([answer(oslo)]);
    const finished = await runAgentRunner(world.env.taskQueue, [
      'run',
      '--json',
      '--model',
      model,
      '--tools',
      'calculator',
      '--output-schema',
      file,
      'weather?',
    ]);
    expect(finished.code).toBe(0);
    const last = JSON.parse(finished.stdout.trim().split('\n').at(-1) ?? '{}') as {
      outcome: { kind: string; result: { output: unknown; response: string } };
    };
    expect(last.outcome.kind).toBe('completed');
    expect(last.outcome.result.output).toEqual(oslo);
    expect(JSON.parse(last.outcome.result.response)).toEqual(oslo);
    const request = world.env.model.requests(model)[0];
    expect(request?.tools?.map((tool) => tool.function.name)).toEqual(['calculator', 'final_answer']);
  });

  test('the Temporal CLI starts a run with `output` in its JSON input; the result carries `output`', async () => {
    const model = world.env.scenario([answer(oslo)]);
    const workflowId = `temporal-cli-${randomUUID()}`;
    const input = { model, tools: [], message: 'weather?', output: { schema: z.toJSONSchema(Weather) } };
    const started = await runTemporalCli([
      'workflow',
      'start',
      '--type',
      'agentWorkflow',
      '--task-queue',
      world.env.taskQueue,
      '--workflow-id',
      workflowId,
      '--input',
      JSON.stringify(input),
    ]);
    expect(started.code).toBe(0);
    const result = (await world.env.client.workflow.getHandle(workflowId).result()) as { output: unknown };
    expect(result.output).toEqual(oslo);
  });

  test('--output-schema with a file that is not JSON is a usage error (exit 2)', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'output-schema-'));
    const file = path.join(folder, 'bad.json');
    await writeFile(file, 'not json');
    const finished = await runAgentRunner(world.env.taskQueue, ['run', '--output-schema', file, 'weather?']);
    expect(finished.code).toBe(2);
    expect(finished.stderr).toContain('--output-schema');
    expect(finished.stderr).toContain('not valid JSON');
  });
});
