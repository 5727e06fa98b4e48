import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { resolveLlama } from '../../dev/llama/llama-cpp';

/** `npm run llama:install` on a machine it cannot install on: a clear error, and nothing half-installed. */
describe('resolveLlama without a usable Python', () => {
  let cache: string;
  beforeAll(async () => {
    cache = await mkdtemp(path.join(os.tmpdir(), 'llama-cache-'));
  });
  afterAll(async () => {
    await rm(cache, { recursive: true, force: true });
  });

  test('says what it needs and how to get it', async () => {
    const lines: string[] = [];
    const install = resolveLlama((line) => lines.push(line), { PATH: '', AGENT_RUNNER_CACHE_DIR: cache });
    await expect(install).rejects.toThrow(
      /needs Python 3\.10 or later with the venv module on PATH \(tried python3\.13, .*python3\)\. On Debian: apt-get install python3 python3-venv\./,
    );
    expect(lines).toEqual([]);
  });
});
