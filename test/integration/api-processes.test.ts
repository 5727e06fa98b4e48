import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { PROJECT_ROOT, cleanEnv, runScript } from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';

describe('npm run api refuses to run unauthenticated by accident', () => {
  test('no token and no explicit opt-out: exit 1, naming both ways out', async () => {
    const finished = await runScript('src/api/main.ts', { env: cleanEnv({ TEMPORAL_ADDRESS: testServerAddress() }) });
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain('The API needs a bearer token: set AGENT_API_TOKEN');
    expect(finished.stderr).toContain('AGENT_API_AUTH=none');
  });

  test('a short token is refused without being echoed; bad port and body limit are named too', async () => {
    const finished = await runScript('src/api/main.ts', {
      env: cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_API_TOKEN: 'short-secret',
        AGENT_API_PORT: '70000',
        AGENT_API_BODY_LIMIT: '12',
      }),
    });
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain('AGENT_API_TOKEN=(hidden): use at least 16 characters');
    expect(finished.stderr).toContain('AGENT_API_PORT="70000"');
    expect(finished.stderr).toContain('AGENT_API_BODY_LIMIT="12"');
    expect(finished.stderr).not.toContain('short-secret');
  });
});

describe('npm start', () => {
  test('runs a worker and the API on the server in TEMPORAL_ADDRESS; a chat works over HTTP; Ctrl-C stops it cleanly', async () => {
    const model = await ScriptedModelServer.start();
    const name = `start-${randomUUID().slice(0, 8)}`;
    model.script(name, [{ content: 'Hello from npm start.' }]);
    const token = randomUUID();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/processes/start.ts'], {
      cwd: PROJECT_ROOT,
      env: cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_TASK_QUEUE: `start-${randomUUID()}`,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: 'test-key',
        OPENAI_MODEL: name,
        AGENT_API_TOKEN: token,
        AGENT_API_PORT: '0',
        AGENT_WORKSPACE: await mkdtemp(path.join(os.tmpdir(), 'start-workspace-')),
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`npm start did not announce the API:\n${output}`)), 90_000);
        const check = () => {
          const found = /Agent API at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (found?.[1]) {
            clearTimeout(timer);
            resolve(found[1]);
          }
        };
        child.stdout.on('data', check);
        void exited.then((code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
      });
      expect(output).toContain('bearer token from AGENT_API_TOKEN required');
      expect(output).not.toContain(token);

      const response = await fetch(`${url}/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ context_id: `start-${randomUUID().slice(0, 8)}`, message: 'hello' }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ response: 'Hello from npm start.', saved_ai_messages: true });

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output).toContain('Stopping the API');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await model.close();
    }
  }, 120_000);
});
