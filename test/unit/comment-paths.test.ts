import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A comment in src/ that names a file of this repository (`src/…`, `test/…`, `docs/…`, `bench/…`, `scripts/…`,
 * `dev/…`, with an extension or a closing slash) names one that exists, so a move cannot leave it pointing nowhere.
 */
const root = path.join(__dirname, '..', '..');

/** A repository path in a comment; a path inside a URL, or a folder word without a slash after it, is not one. */
const REPOSITORY_PATH = /(?<![\w./:@-])((?:src|test|docs|bench|scripts|dev)\/[\w./-]*(?:\.[a-z]+|\/))(?![\w/-])/g;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** The comment text of one line: after `//`, or the line itself inside or at the start of a block comment. */
function commentOf(line: string, inBlock: boolean): string | undefined {
  const trimmed = line.trim();
  if (inBlock || trimmed.startsWith('/*') || trimmed.startsWith('*')) return trimmed;
  const slashes = line.indexOf('// ');
  return slashes === -1 ? undefined : line.slice(slashes);
}

function missingPaths(file: string): string[] {
  const missing: string[] = [];
  let inBlock = false;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const comment = commentOf(line, inBlock);
      if (line.includes('/*') && !line.includes('*/')) inBlock = true;
      if (line.includes('*/')) inBlock = false;
      for (const match of comment?.matchAll(REPOSITORY_PATH) ?? []) {
        const named = match[1] as string;
        if (!existsSync(path.join(root, named.replace(/\.$/, ''))))
          missing.push(`${path.relative(root, file)}:${index + 1} ${named}`);
      }
    });
  return missing;
}

describe('paths named in comments', () => {
  test('the pattern finds a repository path and skips URLs and bare folder words', () => {
    const found = (text: string) => [...text.matchAll(REPOSITORY_PATH)].map((match) => match[1]);
    expect(found('// see `src/plugin.ts` and docs/guide/')).toEqual(['src/plugin.ts', 'docs/guide/']);
    expect(found('// (https://opentelemetry.io/docs/specs/semconv/gen-ai/) in test/histories')).toEqual([]);
  });

  test('every file a comment in src/ names exists', () => {
    const files = sourceFiles(path.join(root, 'src'));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(missingPaths)).toEqual([]);
  });
});
