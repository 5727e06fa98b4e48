import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { cleanEnv, runScript } from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';

/**
 * `npm run demo` against an OpenAI-compatible server whose model never
 * calls a tool: the run fails by its own rules (MaxConsecutiveNudgesExceeded)
 * and the demo says so in one clean line, with no `Workflow failed` stack
 * from its worker before it. And one whose model repeats a failing call: the
 * circuit breaker ends the run, and the demo does not claim a summary.
 */
describe('npm run demo, a run that does not do its task', () => {
  let model: ScriptedModelServer;

  beforeAll(async () => {
    model = (await ScriptedModelServer.start())
      .respond('chatty', () => ({ content: 'I would rather talk than use tools.' }))
      // The same failing call every time: the circuit breaker ends the run, completed, with no summary written.
      .respond('stubborn', () => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'no-such-file.txt' } }] }));
  });

  afterAll(async () => {
    await model.close();
  });

  test("prints the failure once, without the worker's stack trace", async () => {
    const workspace = await mkdtemp(path.join(os.tmpdir(), 'demo-failing-'));

    const finished = await runScript('src/processes/demo.ts', {
      env: cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: 'sk-test',
        // A queue of its own: other tests' workers must not pick the run up.
        AGENT_TASK_QUEUE: `demo-failing-${randomUUID()}`,
      }),
      args: ['--workspace', workspace, '--model', 'chatty'],
      timeoutMs: 120_000,
    });

    const output = `${finished.stdout}\n${finished.stderr}`;
    expect(output).toContain('Failed (MaxConsecutiveNudgesExceeded)');
    expect(finished.code).not.toBe(0);
    expect(output).not.toContain('Workflow failed');
    expect(output).not.toMatch(/^\s+at /m);
  }, 150_000);

  test('a run the circuit breaker ended says no summary was written, and why', async () => {
    const workspace = await mkdtemp(path.join(os.tmpdir(), 'demo-breaker-'));

    const finished = await runScript('src/processes/demo.ts', {
      env: cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: 'sk-test',
        AGENT_TASK_QUEUE: `demo-breaker-${randomUUID()}`,
      }),
      args: ['--workspace', workspace, '--model', 'stubborn'],
      timeoutMs: 120_000,
    });

    const output = `${finished.stdout}\n${finished.stderr}`;
    expect(output).toContain('Completed: circuit_breaker (read_file failed 5 times in a row)');
    expect(output).toContain(
      `No summary was written to ${path.join(workspace, 'summary.md')}: the run ended by circuit_breaker (read_file failed 5 times in a row) before writing one.`,
    );
    expect(output).not.toContain('Summary written to');
    expect(finished.code).toBe(0);
  }, 150_000);
});
