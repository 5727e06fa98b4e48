import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { lintAll, type LintMessage } from '../helpers/lint-probes';

/**
 * The folders of src/ depend one way: eslint.config.js's folder layers say which folders each may import, and
 * `local/folder-imports` fails `npm run lint` on an import against them. Probes are linted as existing files.
 */
const root = path.join(__dirname, '..', '..');

/** The layers table, as the lint config passes it to the rule. */
function folderLayers(): Record<string, string[]> {
  const config = createRequire(__filename)(path.join(root, 'eslint.config.js')) as {
    rules?: Record<string, unknown>;
  }[];
  const entry = config.find((block) => block.rules?.['local/folder-imports'] !== undefined);
  const [, options] = entry?.rules?.['local/folder-imports'] as [string, { allowed: Record<string, string[]> }];
  return options.allowed;
}

describe('the folder layers table', () => {
  const layers = folderLayers();
  const folders = readdirSync(path.join(root, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

  it('has a row for every folder of src/, and no other', () => {
    expect(Object.keys(layers).sort()).toEqual(folders);
  });

  it('names only folders of src/, and has no cycle', () => {
    const visiting = new Set<string>();
    const done = new Set<string>();
    const cycleFrom = (folder: string, trail: string[]): string[] | undefined => {
      if (visiting.has(folder)) return [...trail, folder];
      if (done.has(folder)) return undefined;
      visiting.add(folder);
      for (const lower of layers[folder] ?? []) {
        expect(folders).toContain(lower);
        const cycle = cycleFrom(lower, [...trail, folder]);
        if (cycle !== undefined) return cycle;
      }
      visiting.delete(folder);
      done.add(folder);
      return undefined;
    };
    for (const folder of folders) expect(cycleFrom(folder, [])).toBeUndefined();
  });

  it("is docs/development.md's layout table, row for row", () => {
    const text = readFileSync(path.join(root, 'docs', 'development.md'), 'utf8');
    const rows = [...text.matchAll(/^\| `([a-z-]+)\/` \| .* \| ([^|]+) \|$/gm)].map((match) => [
      match[1],
      match[2]!.trim() === '—' ? [] : match[2]!.split(',').map((folder) => folder.trim()),
    ]);
    expect(Object.fromEntries(rows)).toEqual(layers);
  });
});

describe('lint keeps folders one way', () => {
  let results: LintMessage[][];

  beforeAll(async () => {
    results = await lintAll([
      {
        file: 'src/config/api.ts',
        code: "import { registerAuth } from '../api/auth';\nexport const r = registerAuth;\n",
      },
      {
        file: 'src/tools/tool-registry.ts',
        code: "export { McpToolSet } from '../mcp/mcp-tool-set';\n",
      },
      {
        file: 'src/dev-server/dev-server.ts',
        code: "import { startStack } from '../../dev/stack/stack';\nexport const s = startStack;\n",
      },
      { file: 'src/api/server.ts', code: "import { ApiError } from '../http/errors';\nexport const e = ApiError;\n" },
    ]);
  }, 120_000);

  const folderRule = (messages: LintMessage[] | undefined) =>
    (messages ?? []).filter((message) => message.ruleId === 'local/folder-imports');

  it('fails on an import against the direction', () => {
    expect(folderRule(results[0])).toEqual([
      expect.objectContaining({ message: expect.stringContaining('src/config/ may not import src/api/') }),
    ]);
  });

  it('fails on a re-export against the direction', () => {
    expect(folderRule(results[1])).toEqual([
      expect.objectContaining({ message: expect.stringContaining('src/tools/ may not import src/mcp/') }),
    ]);
  });

  it('fails on an import of dev tooling from the package', () => {
    expect(folderRule(results[2])).toEqual([
      expect.objectContaining({ message: expect.stringContaining('imports nothing outside src/') }),
    ]);
  });

  it('lets a folder import a lower one', () => {
    expect(results[3]).toEqual([]);
  });
});
