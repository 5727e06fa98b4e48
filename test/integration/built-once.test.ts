import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { FailureType } from '../../src/shared/failure-catalogue';
import { type AgentResult } from '../../src/shared/agent-result';
import { TestEnv } from '../helpers/test-env';

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ workflowsPath: path.join(__dirname, '..', 'fixtures', 'workflows-built-once.ts') });
});
afterAll(async () => {
  await env.close();
});

const probe = () =>
  env.client.workflow.execute('builtOnceProbe', {
    taskQueue: env.taskQueue,
    workflowId: `probe-${randomUUID()}`,
  }) as Promise<{ runs: number; sameSchema: boolean }>;

describe('schemas built once per worker thread (preloaded built-once module)', () => {
  test('a later run takes the schemas the first run built, and agent runs between them are unaffected', async () => {
    const first = await probe();
    const model = env.scenario([{ content: 'hello' }]);
    const run = (await env.run({ model, tools: [], message: 'hi' })) as AgentResult;
    expect(run.response).toBe('hello');
    // Bad input is still refused by the shared schema, with the same failure.
    const refused = await env.runExpectingFailure({ model, tools: 'calculator', message: 'hi' });
    expect(refused.type).toBe(FailureType.invalidInput);
    expect(refused.message).toContain('tools');
    const second = await probe();
    expect(first.sameSchema).toBe(true);
    // The worker has one workflow thread (a reused V8 context): the second probe saw the first one's object.
    expect(second).toEqual({ runs: first.runs + 1, sameSchema: true });
  });
});
