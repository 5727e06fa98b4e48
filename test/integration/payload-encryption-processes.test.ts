import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { PROJECT_ROOT, cleanEnv, runProcess, runScript, startScript, stopChild } from '../helpers/processes';
import { rawHistory } from '../helpers/raw-history';
import { testServerAddress } from '../helpers/test-env';

/*
 * The processes read their keys from the environment: `npm run worker` with a key file and `agent-runner run` with
 * AGENT_CODEC_KEYS hold a run whose raw history has none of its text, and `npm run api` with the keys reads it; the
 * demo with a key does the same.
 */

const keyLine = (id: string) => `${id}=${randomBytes(32).toString('base64')}`;

describe('processes with codec keys', () => {
  let model: ScriptedModelServer;
  beforeAll(async () => {
    model = await ScriptedModelServer.start();
  });
  afterAll(async () => {
    await model.close();
  });

  test('npm run worker (key file) and agent-runner run (AGENT_CODEC_KEYS) run it, the history holds none of its text, npm run api reads it', async () => {
    const keys = keyLine('proc-1');
    const keyFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'codec-keys-')), 'keys');
    await writeFile(keyFile, `# the worker's keys\n${keys}\n`, { mode: 0o600 });
    const taskQueue = `codec-${randomUUID()}`;
    const modelName = `codec-model-${randomUUID()}`;
    const prompt = 'prompt-ibis-2719: what is 6 * 7?';
    const answer = 'answer-kestrel-5530: forty-two';
    model.script(modelName, [
      { toolCalls: [{ name: 'calculator', arguments: { expression: '6 * 7 + 0.5 - 0.5' } }] },
      { content: answer },
    ]);
    const address = testServerAddress();
    const worker = await startScript(
      'src/processes/worker.ts',
      cleanEnv({
        TEMPORAL_ADDRESS: address,
        AGENT_TASK_QUEUE: taskQueue,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_MODEL: modelName,
        AGENT_CODEC_KEY_FILE: keyFile,
      }),
      /Worker polling task queue/,
    );
    let failure: unknown;
    try {
      expect(worker.output()).toContain('payloads encrypted (AES-256-GCM, key "proc-1")');
      const workflowId = `codec-run-${randomUUID()}`;
      const run = await runProcess(
        process.execPath,
        [path.join(PROJECT_ROOT, 'bin', 'agent-runner.js'), 'run', prompt, '--tools', 'calculator', '--id', workflowId],
        {
          env: cleanEnv({ TEMPORAL_ADDRESS: address, AGENT_TASK_QUEUE: taskQueue, AGENT_CODEC_KEYS: keys }),
          timeoutMs: 90_000,
        },
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(answer);
      expect(run.stdout).toContain('6 * 7 + 0.5 - 0.5');
      const history = await rawHistory(workflowId);
      expect(history.holding([prompt, answer, '6 * 7 + 0.5 - 0.5', 'forty-two'])).toEqual([]);

      // npm run api with the same keys reads the run in clear.
      const token = randomUUID();
      const api = await startScript(
        'src/api/main.ts',
        cleanEnv({
          TEMPORAL_ADDRESS: address,
          AGENT_TASK_QUEUE: taskQueue,
          AGENT_API_TOKEN: token,
          AGENT_API_PORT: '0',
          AGENT_CODEC_KEYS: keys,
        }),
        /Agent API at http:\/\/127\.0\.0\.1:\d+.*\n/,
      );
      try {
        expect(api.output()).toContain('payloads encrypted (AES-256-GCM, key "proc-1")');
        const url = /Agent API at (http:\/\/127\.0\.0\.1:\d+)/.exec(api.output())?.[1];
        const messages = await fetch(`${url}/runs/${workflowId}/messages`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(messages.status).toBe(200);
        const body = await messages.text();
        expect(body).toContain(prompt);
        expect(body).toContain(answer);
      } finally {
        await stopChild(api.child);
      }
    } catch (error) {
      failure = error;
    }
    await stopChild(worker.child);
    if (failure !== undefined) throw failure;
  }, 180_000);

  test('npm run demo with a key says so, runs as before, and its history holds none of the task or the answer', async () => {
    const workspace = await mkdtemp(path.join(os.tmpdir(), 'demo-codec-'));
    const finished = await runScript('src/processes/demo.ts', {
      env: cleanEnv({ TEMPORAL_ADDRESS: testServerAddress(), AGENT_CODEC_KEYS: keyLine('demo-1') }),
      args: ['--workspace', workspace],
      timeoutMs: 120_000,
    });
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    expect(finished.stdout).toContain(
      'Payloads encrypted (AES-256-GCM, key "demo-1"); the web UI shows them as ciphertext.',
    );
    expect(finished.stdout).toContain('Response: Summarised 3 files into summary.md.');
    const workflowId = /Started run (demo-\S+) on task queue/.exec(finished.stdout)?.[1];
    expect(workflowId).toBeDefined();
    const history = await rawHistory(workflowId!);
    expect(history.holding(['Read every file in the workspace', 'Summarised 3 files', 'roadmap.md'])).toEqual([]);
  }, 150_000);
});
