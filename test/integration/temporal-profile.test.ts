import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import {
  PROJECT_ROOT,
  cleanEnv,
  runProcess,
  runScript,
  startScript,
  stopChild,
  type Finished,
} from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';

/**
 * The processes configured the way Temporal users configure the CLI and the SDKs: a TOML profile file
 * (`TEMPORAL_CONFIG_FILE`) and a profile name (`TEMPORAL_PROFILE`), with TEMPORAL_ADDRESS unset. A real worker
 * process, the real CLI and the real API connect to the suite's server through the profile and a run completes;
 * the file's default profile points nowhere, so only the named profile can have worked.
 */
const LAUNCHER = path.join(PROJECT_ROOT, 'bin', 'agent-runner.js');

let model: ScriptedModelServer;
let configFile: string;
let worker: { child: ChildProcess; output: () => string };
const taskQueue = `profile-${randomUUID()}`;

beforeAll(async () => {
  model = await ScriptedModelServer.start();
  const directory = await mkdtemp(path.join(os.tmpdir(), 'temporal-profile-'));
  configFile = path.join(directory, 'temporal.toml');
  await writeFile(
    configFile,
    [
      '# A default profile that points nowhere: a process that ignored TEMPORAL_PROFILE would fail to connect.',
      '[profile.default]',
      'address = "127.0.0.1:1"',
      '',
      '[profile.suite]',
      `address = "${testServerAddress()}"`,
      'namespace = "default"',
      '',
      '[profile.suite.grpc_meta]',
      'x-agent-runner-test = "profile"',
      '',
    ].join('\n'),
  );
  worker = await startScript(
    'src/processes/worker.ts',
    cleanEnv({ ...profileEnv(), OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'test-key' }),
    /Worker polling task queue/,
  );
}, 180_000);

afterAll(async () => {
  if (worker !== undefined) await stopChild(worker.child);
  await model.close();
});

/** Only the profile: no TEMPORAL_ADDRESS, no TEMPORAL_NAMESPACE. */
function profileEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    TEMPORAL_CONFIG_FILE: configFile,
    TEMPORAL_PROFILE: 'suite',
    AGENT_TASK_QUEUE: taskQueue,
    ...extra,
  };
}

function cli(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return runProcess(process.execPath, [LAUNCHER, ...args], { env: cleanEnv(profileEnv(extra)), timeoutMs: 90_000 });
}

test('the worker says which profile of which file it connected with', () => {
  expect(worker.output()).toContain(
    `in namespace "default" at ${testServerAddress()} (profile "suite" of ${configFile})`,
  );
});

test('the CLI runs an agent through the profile, on the worker that also connected through it', async () => {
  const name = `profile-${randomUUID().slice(0, 8)}`;
  model.script(name, [
    { toolCalls: [{ name: 'calculator', arguments: { expression: '2^10' } }] },
    { content: 'Two to the tenth is 1024.' },
  ]);

  const finished = await cli(['run', 'What is 2^10?', '--model', name, '--tools', 'calculator', '--json']);

  expect(finished.stderr).toContain('Started run ');
  expect(finished.code).toBe(0);
  const outcome = JSON.parse(finished.stdout.trimEnd().split('\n').at(-1)!) as unknown;
  expect(outcome).toMatchObject({
    outcome: { kind: 'completed', result: { response: 'Two to the tenth is 1024.', iterations: 2 } },
  });
}, 120_000);

test('the API alone connects through the profile and serves a chat', async () => {
  const name = `profile-api-${randomUUID().slice(0, 8)}`;
  model.script(name, [{ content: 'Hello through a profile.' }]);
  const token = randomUUID();
  const api = await startScript(
    'src/api/main.ts',
    cleanEnv(profileEnv({ AGENT_API_TOKEN: token, AGENT_API_PORT: '0' })),
    /Agent API at http:\/\/127\.0\.0\.1:\d+/,
  );
  try {
    const output = api.output();
    expect(output).toContain(`(Temporal ${testServerAddress()}, profile "suite" of ${configFile}, namespace "default"`);
    const url = /Agent API at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!;

    const response = await fetch(`${url}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ context_id: `profile-${randomUUID().slice(0, 8)}`, message: 'hello', model: name }),
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ response: 'Hello through a profile.' });
  } finally {
    await stopChild(api.child);
  }
}, 120_000);

test('the demo runs on the server the profile names instead of starting its own', async () => {
  const workspace = await mkdtemp(path.join(os.tmpdir(), 'demo-workspace-'));
  const finished = await runScript('src/processes/demo.ts', {
    env: cleanEnv(profileEnv()),
    args: ['--workspace', workspace],
    timeoutMs: 120_000,
  });

  expect(finished.stderr).toBe('');
  expect(finished.code).toBe(0);
  expect(finished.stdout).toContain(`Temporal: ${testServerAddress()} (profile "suite" of ${configFile}).`);
  expect(finished.stdout).toContain('Response: Summarised 3 files into summary.md.');
}, 150_000);

test('an unknown profile is a clear error naming the profile and the file', async () => {
  const finished = await cli(['list'], { TEMPORAL_PROFILE: 'staging' });

  expect(finished.code).not.toBe(0);
  expect(finished.stderr).toContain(
    `The Temporal config file ${configFile} has no profile "staging" (TEMPORAL_PROFILE); its profiles: "default", "suite".`,
  );
  expect(finished.stderr).not.toMatch(/^\s+at /m);
}, 60_000);

test("without TEMPORAL_PROFILE the file's default profile is used", async () => {
  const finished = await cli(['status', 'any-run'], { TEMPORAL_PROFILE: '' });

  expect(finished.code).toBe(5);
  expect(finished.stderr).toContain(
    `Cannot reach the Temporal server at 127.0.0.1:1 (profile "default" of ${configFile})`,
  );
}, 60_000);

test('TEMPORAL_ADDRESS wins over the profile, and the error says both', async () => {
  const finished = await cli(['status', 'any-run'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });

  expect(finished.code).toBe(5);
  expect(finished.stderr).toContain(
    `Cannot reach the Temporal server at 127.0.0.1:1 (profile "suite" of ${configFile})`,
  );
}, 60_000);

test('the aliases TEMPORAL_TLS_CERT/KEY still name the mTLS pair, over the profile: the CLI reads those files', async () => {
  const finished = await cli(['status', 'any-run'], {
    TEMPORAL_TLS_CERT: path.join(os.tmpdir(), 'no-such-cert.pem'),
    TEMPORAL_TLS_KEY: path.join(os.tmpdir(), 'no-such-key.pem'),
  });

  expect(finished.code).not.toBe(0);
  expect(finished.stderr).toContain(
    `Cannot read the TLS files of the Temporal connection (profile "suite" of ${configFile}): ENOENT`,
  );
  expect(finished.stderr).toContain('no-such-cert.pem');
}, 60_000);
