import { createHash } from 'node:crypto';
import { mkdir, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT, runProcess } from './processes';

/**
 * The stack's workers and APIs run built code, as the image does. The stack tests build it with `tsc -p
 * tsconfig.build.json` into a folder of their own (under node_modules/.cache, so the built code finds the project's
 * node_modules), not `dist/`: the package test builds `dist/` at the same time, and a worker must never load a
 * half-written file. Built again only when a source file or a tsconfig is newer than the last build.
 */
const BUILD = path.join(
  PROJECT_ROOT,
  'node_modules',
  '.cache',
  // One folder per clone: worktrees that share one node_modules must not build into each other's folder.
  `agent-runner-stack-test-${createHash('sha256').update(PROJECT_ROOT).digest('hex').slice(0, 12)}`,
);

export async function buildStackDist(log: (line: string) => void): Promise<string> {
  const dist = path.join(BUILD, 'dist');
  const stamp = path.join(BUILD, 'built');
  const builtAt = await stat(stamp).then(
    (stats) => stats.mtimeMs,
    () => 0,
  );
  const newest = Math.max(
    await newestChange(path.join(PROJECT_ROOT, 'src')),
    (await stat(path.join(PROJECT_ROOT, 'tsconfig.json'))).mtimeMs,
    (await stat(path.join(PROJECT_ROOT, 'tsconfig.build.json'))).mtimeMs,
  );
  if (builtAt > newest) return dist;
  const started = Date.now();
  await mkdir(BUILD, { recursive: true });
  const tsc = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const build = await runProcess(
    process.execPath,
    [tsc, '-p', 'tsconfig.build.json', '--outDir', dist, '--incremental', '--tsBuildInfoFile', `${dist}.tsbuildinfo`],
    { timeoutMs: 180_000 },
  );
  if (build.code !== 0) throw new Error(`tsc -p tsconfig.build.json failed:\n${build.stdout}\n${build.stderr}`);
  // Dated when the build began: a file saved during the build is newer, and is built next time.
  await writeFile(stamp, `${new Date(started).toISOString()}\n`);
  await utimes(stamp, started / 1000, started / 1000);
  log(`built the stack's code in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dist;
}

/** The newest modification time of a file under `directory`. */
async function newestChange(directory: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, (await stat(path.join(entry.parentPath, entry.name))).mtimeMs);
  }
  return newest;
}
