import path from 'node:path';
import type { Log } from '../../src/dev-server/go-tool';
import { STACK_MARKER } from './leftovers';
import { makePrivateDirectory, writePrivateFile } from './private-files';
import { serviceEnvironment } from './service-environment';
import { serviceProcess, type ServiceProcess } from './service-process';

/** The Temporal web UI (`ui-server`, its assets built in) for the stack's Temporal, on 127.0.0.1:`port`. */
export async function prepareUi(options: {
  binary: string;
  directory: string;
  temporalAddress: string;
  port: number;
  log: Log;
}): Promise<ServiceProcess & { url: string }> {
  const root = path.join(options.directory, 'ui');
  await makePrivateDirectory(path.join(root, 'config'));
  const url = `http://127.0.0.1:${options.port}`;
  await writePrivateFile(
    path.join(root, 'config', 'stack.yaml'),
    `# Written by npm run stack: the compose file's temporal-ui service.
temporalGrpcAddress: ${options.temporalAddress}
host: 127.0.0.1
port: ${options.port}
enableUi: true
defaultNamespace: default
cors:
  allowOrigins:
    - ${url}
`,
  );
  const process = serviceProcess(
    {
      name: 'temporal-ui',
      command: options.binary,
      args: ['--root', root, '--config', 'config', '--env', 'stack', 'start'],
      // The stack's marker, so a later start can find it (see leftovers.ts).
      env: serviceEnvironment({ [STACK_MARKER]: options.directory }),
      cwd: root,
      logFile: path.join(options.directory, 'temporal-ui.log'),
      probe: async () => {
        try {
          return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok;
        } catch {
          return false;
        }
      },
    },
    options.log,
  );
  return Object.assign(process, { url });
}
