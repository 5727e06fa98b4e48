import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/os/ports';
import { shellBlocks } from '../helpers/doc-commands';
import { cleanEnv, runProcess, startCommand, startScript, stopChild } from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';

/**
 * docs/guide/http.md's offline walkthrough, run as printed: its first block (`npm start`) as one process, the others
 * as one shell script against it. Only the API's address is changed, to a free port; the Temporal server, task
 * queue and workspace come from the environment, as a reader's own would.
 */
describe('the HTTP guide, offline', () => {
  let port: number;
  let api: Awaited<ReturnType<typeof startCommand>>;
  let base: string;
  let blocks: string[];

  beforeAll(async () => {
    blocks = await shellBlocks('docs/guide/http.md', 'Walkthrough, offline');
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env = cleanEnv({
      TEMPORAL_ADDRESS: testServerAddress(),
      AGENT_TASK_QUEUE: `walkthrough-${randomUUID()}`,
      AGENT_API_PORT: String(port),
      AGENT_WORKSPACE: await mkdtemp(path.join(os.tmpdir(), 'walkthrough-')),
      // A reader with a key in the shell: offline still wins, and says it ignores it.
      OPENAI_API_KEY: 'sk-not-used',
    });
    api = await startCommand('/bin/bash', ['-c', blocks[0] ?? ''], env, /Agent API at http/);
  }, 150_000);

  afterAll(async () => {
    if (api !== undefined) await stopChild(api.child);
  });

  test('npm start says loudly that the answers are scripted', () => {
    expect(blocks[0]).toContain('AGENT_OFFLINE=1');
    expect(api.output()).toContain('OFFLINE (AGENT_OFFLINE=1): every answer is SCRIPTED');
    expect(api.output()).toContain('Ignored: OPENAI_API_KEY.');
  });

  test('the curl sequence runs as printed: questions answered, a call approved, a run terminated', async () => {
    const script = blocks.slice(1).join('\n').replaceAll('http://localhost:3000', base);
    const finished = await runProcess('/bin/bash', ['-e', '-c', script], {
      env: cleanEnv({}),
      timeoutMs: 150_000,
    });
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    const out = finished.stdout;
    expect(out).toMatch(/"run_id":"walkthrough-\d+","status_url"/);
    for (const event of ['run-start', 'input-request', 'user-message', 'approval-request', 'approval-decision', 'end'])
      expect(out).toContain(`event: ${event}\n`);
    expect(out).toContain('"callId":"call-2-1"');
    expect(out).toMatch(/"outcome":"completed".*17 \* 23 = 391\. You said: Show your working\./);
    expect(out).toMatch(/"run_id":"walkthrough-\d+-2","outcome":"terminated"/);
    expect(out).toContain('{"elicitationId":"call-1-1#1","callId":"call-1-1","action":"accept"}');
    expect(out).toMatch(/"run_id":"walkthrough-\d+-3","outcome":"completed".*Name: Ada/);
  }, 180_000);
});

describe('POST /runs, through npm start and its worker', () => {
  test('without tools, the run gets AGENT_TOOLS; an unknown tool answers 400 before any model call', async () => {
    const port = await freePort();
    const server = await startScript(
      'src/processes/start.ts',
      cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_TASK_QUEUE: `runs-contract-${randomUUID()}`,
        AGENT_API_PORT: String(port),
        AGENT_API_AUTH: 'none',
        AGENT_OFFLINE: '1',
        AGENT_TOOLS: 'calculator',
      }),
      /Agent API at http/,
    );
    try {
      const post = (input: unknown) =>
        fetch(`http://127.0.0.1:${port}/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ input }),
        });
      const defaulted = await post({ message: 'What is 2 + 3?' });
      expect(defaulted.status).toBe(202);
      const { run_id: runId } = (await defaulted.json()) as { run_id: string };
      let result: { outcome?: string; result?: { response?: string } } = {};
      for (let attempt = 0; attempt < 60 && result.outcome !== 'completed'; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 500));
        result = (await (await fetch(`http://127.0.0.1:${port}/runs/${runId}/result`)).json()) as typeof result;
      }
      expect(result.result?.response).toBe('2 + 3 = 5.');

      const unknown = await post({ message: 'hi', tools: ['calculator', 'no_such_tool'] });
      expect(unknown.status).toBe(400);
      const body = (await unknown.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_agent_input');
      expect(body.error.message).toContain('unknown tool "no_such_tool"');
      expect(body.error.message).toContain('failed before any model call');
    } finally {
      await stopChild(server.child);
    }
  }, 180_000);
});
