import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { PROJECT_ROOT } from '../helpers/processes';
import { installQuietRuntime } from '../helpers/quiet-runtime';
import { testServerAddress } from '../helpers/test-env';
import { AgentRunnerPlugin, SecondSdkCopyError } from '../../src/worker';
import { refuseSecondSdkCopy, workflowPackageFrom } from '../../src/worker/checks/single-sdk-copy';

/**
 * An app whose workflows resolve a copy of @temporalio/workflow other than agent-runner's (a linked checkout of the
 * package, or a nested second version): its bundle would hold two SDKs and every run would hang, so the plugin
 * refuses it at Worker.create and says how to keep one copy.
 */

let app: string;
let connection: NativeConnection;

beforeAll(async () => {
  installQuietRuntime();
  app = await mkdtemp(path.join(os.tmpdir(), 'agent-runner-two-sdks-'));
  await mkdir(path.join(app, 'node_modules', '@temporalio'), { recursive: true });
  await cp(
    path.join(PROJECT_ROOT, 'node_modules', '@temporalio', 'workflow'),
    path.join(app, 'node_modules', '@temporalio', 'workflow'),
    { recursive: true },
  );
  await writeFile(path.join(app, 'workflows.ts'), "export * from '@temporalio/workflow';\n");
  connection = await NativeConnection.connect({ address: testServerAddress() });
});
afterAll(async () => {
  await connection?.close();
  if (app !== undefined) await rm(app, { recursive: true, force: true });
});

test('where @temporalio/workflow resolves: one package directory for the project, another for the app', () => {
  const ours = workflowPackageFrom(path.join(PROJECT_ROOT, 'src', 'worker'));
  expect(ours).toBe(path.join(PROJECT_ROOT, 'node_modules', '@temporalio', 'workflow'));
  expect(workflowPackageFrom(app)).toBe(path.join(app, 'node_modules', '@temporalio', 'workflow'));
  expect(() =>
    refuseSecondSdkCopy({ workflowsPath: path.join(PROJECT_ROOT, 'test', 'fixtures', 'user-workflows.ts') }),
  ).not.toThrow();
});

test('Worker.create refuses workflows that resolve a second copy, naming both and the fix', async () => {
  const created = Worker.create({
    connection,
    taskQueue: 'two-sdks',
    workflowsPath: path.join(app, 'workflows.ts'),
    plugins: [
      new AgentRunnerPlugin({ tools: [], model: { baseURL: 'http://127.0.0.1:1/v1', defaultModel: 'unused' } }),
    ],
  });
  const refused = await created.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(SecondSdkCopyError);
  const error = refused as SecondSdkCopyError;
  expect(error.theirs).toBe(path.join(app, 'node_modules', '@temporalio', 'workflow'));
  expect(error.ours).toBe(path.join(PROJECT_ROOT, 'node_modules', '@temporalio', 'workflow'));
  expect(error.message).toContain('npm ls @temporalio/workflow');
  expect(error.message).toContain('npm dedupe');
});
