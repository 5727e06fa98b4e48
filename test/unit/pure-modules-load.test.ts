import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Rules (`src/workflows/rules/`) and the data contracts (`src/shared/`) are pure: loading every one of them, in a
 * fresh process, loads no module of the Temporal SDK. Lint bans a direct import; this catches one that arrives
 * through another module.
 */
const root = path.join(__dirname, '..', '..');
const pureFolders = ['src/workflows/rules', 'src/shared'];

function modulesIn(folder: string): string[] {
  return readdirSync(path.join(root, folder))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(root, folder, file));
}

async function loadedModules(files: string[]): Promise<string[]> {
  const script = `
    require('tsx/cjs/api').register();
    for (const file of JSON.parse(process.argv[1])) require(file);
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, JSON.stringify(files)], {
    cwd: root,
    maxBuffer: 16 << 20,
  });
  return JSON.parse(stdout) as string[];
}

describe('pure modules load nothing from Temporal', () => {
  it.each(pureFolders)('%s', async (folder) => {
    const files = modulesIn(folder);
    expect(files.length).toBeGreaterThan(5);
    const loaded = await loadedModules(files);
    // Every file of the folder was loaded (the check checked something) ...
    for (const file of files) expect(loaded).toContain(file);
    // ... and none of Temporal's packages came with them.
    expect(loaded.filter((module) => module.includes(`${path.sep}@temporalio${path.sep}`))).toEqual([]);
  });
});
