import type { ChildProcess } from 'node:child_process';
import { EncryptedAgent, codecKeysVariable, newCodecKey } from '../helpers/encrypted-agent';
import { cleanEnv, runProcess, runScript, startScript, stopChild, temporalCli } from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';

/**
 * `agent-runner codec-server` as a process, and the real Temporal CLI (`temporal workflow show --codec-endpoint
 * --codec-auth`) reading through it the history of a run whose worker encrypted its payloads.
 */

const TOKEN = 'codec-cli-token-0123456789';
const held = newCodecKey('cli-current');
const foreign = newCodecKey('cli-elsewhere');
const PROMPT = 'Summarise the quarterly numbers for the board.';
const ANSWER = 'Revenue rose nine percent.';

let codecServer: { child: ChildProcess; output: () => string };
let codecUrl: string;
let agent: EncryptedAgent;
let foreignAgent: EncryptedAgent;
let workflowId: string;
let foreignWorkflowId: string;
let temporal: string;

beforeAll(async () => {
  temporal = await temporalCli();
  codecServer = await startScript(
    'src/cli/index.ts',
    cleanEnv({ AGENT_CODEC_KEYS: codecKeysVariable([held]), AGENT_CODEC_SERVER_TOKEN: TOKEN }),
    /Ctrl-C stops it\.[\s\S]*--codec-auth/,
    60_000,
    ['codec-server', '--port', '0'],
  );
  codecUrl = /Codec server at (http:\/\/\S+)/.exec(codecServer.output())![1]!;
  agent = await EncryptedAgent.start(testServerAddress(), [held]);
  foreignAgent = await EncryptedAgent.start(testServerAddress(), [foreign]);
  workflowId = await agent.run(PROMPT, ANSWER);
  foreignWorkflowId = await foreignAgent.run(PROMPT, ANSWER);
}, 90_000);

afterAll(async () => {
  await agent?.close();
  await foreignAgent?.close();
  if (codecServer !== undefined && codecServer.child.exitCode === null) await stopChild(codecServer.child);
});

const show = (id: string, codecArgs: string[]) =>
  runProcess(
    temporal,
    ['workflow', 'show', '--address', testServerAddress(), '--workflow-id', id, '--output', 'json', ...codecArgs],
    { env: cleanEnv({}), timeoutMs: 30_000 },
  );

describe('agent-runner codec-server with the Temporal CLI', () => {
  test('prints where it listens and the lines for the UI and the CLI, never the token', () => {
    const output = codecServer.output();
    expect(output).toContain('temporal server start-dev --ui-codec-endpoint http://localhost:');
    expect(output).toContain(`--codec-endpoint ${codecUrl} --codec-auth "Bearer $AGENT_CODEC_SERVER_TOKEN"`);
    expect(output).toContain('keys cli-current');
    expect(output).not.toContain(TOKEN);
  });

  test('temporal workflow show --codec-endpoint --codec-auth prints the decrypted prompt and answer', async () => {
    const shown = await show(workflowId, ['--codec-endpoint', codecUrl, '--codec-auth', `Bearer ${TOKEN}`]);
    expect(shown.code).toBe(0);
    const decoded = decodedJsonText(shown.stdout);
    expect(decoded).toContain(PROMPT);
    expect(decoded).toContain(ANSWER);
  });

  test('without the codec, or with a wrong credential, the CLI shows no plaintext', async () => {
    const plain = await show(workflowId, []);
    expect(plain.code).toBe(0);
    expect(decodedJsonText(plain.stdout)).not.toContain(PROMPT);
    expect(plain.stdout).toContain(Buffer.from('binary/encrypted').toString('base64'));

    const refused = await show(workflowId, ['--codec-endpoint', codecUrl, '--codec-auth', 'Bearer wrong-token-000000']);
    expect(decodedJsonText(refused.stdout + refused.stderr)).not.toContain(PROMPT);
    // The CLI retries the refused codec call until its deadline, then fails.
    expect(refused.code).not.toBe(0);
  });

  test('a run under a key the server does not hold stays encrypted; the server names the key id', async () => {
    const shown = await show(foreignWorkflowId, ['--codec-endpoint', codecUrl, '--codec-auth', `Bearer ${TOKEN}`]);
    expect(shown.code).toBe(0);
    expect(decodedJsonText(shown.stdout)).not.toContain(PROMPT);
    expect(shown.stdout).toContain(Buffer.from('cli-elsewhere').toString('base64'));
    expect(codecServer.output()).toContain('"keyId":"cli-elsewhere"');
    expect(codecServer.output()).toMatch(/Add key \\"cli-elsewhere\\"/);
  });

  test('Ctrl-C stops it', async () => {
    const code = await stopChild(codecServer.child);
    expect(code).toBe(0);
    expect(codecServer.output()).toContain('Codec server stopped.');
  });

  test('without a token or keys it refuses to start, naming the variables (exit 2)', async () => {
    const refused = await runScript('src/cli/index.ts', {
      args: ['codec-server', '--port', '0'],
      env: cleanEnv({}),
      timeoutMs: 60_000,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('AGENT_CODEC_SERVER_TOKEN');
    expect(refused.stderr).toContain('AGENT_CODEC_KEYS');
  });
});

/** The CLI's JSON output with every base64 string that decodes to text decoded too, so a test can search it. */
function decodedJsonText(output: string): string {
  const decoded = output.replace(/"([A-Za-z0-9+/]{8,}={0,2})"/g, (_match, text: string) => {
    const bytes = Buffer.from(text, 'base64');
    return JSON.stringify(bytes.toString('utf8'));
  });
  return output + decoded;
}
