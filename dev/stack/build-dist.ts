import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './stack';

const run = promisify(execFile);

/**
 * Builds `dist/` with the project's own tsc (`tsconfig.build.json`): the stack's workers and APIs run the built code,
 * as the image does. Returns how long it took, in ms.
 */
export async function buildDist(): Promise<number> {
  const started = Date.now();
  await run(
    process.execPath,
    [path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: PROJECT_ROOT },
  );
  return Date.now() - started;
}
