import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The README's TypeScript examples are the files of docs/snippets/, which `npm run package:check` typechecks under
 * strict settings and runs in fresh apps that installed the packed package. Here: each ```ts block of the README is
 * one of those files, whole, so what a newcomer copies is what CI compiled and ran.
 */
const root = path.join(__dirname, '..', '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const snippetsDir = path.join(root, 'docs', 'snippets');
const snippets = new Map(
  readdirSync(snippetsDir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => [file, readFileSync(path.join(snippetsDir, file), 'utf8').trimEnd()] as const),
);

function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => (match[1] ?? '').trimEnd());
}

describe("the README's TypeScript examples", () => {
  const blocks = tsBlocks(readme);

  it('are there', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });

  it.each(blocks.map((block, index) => [index + 1, block] as const))(
    'block %i is a checked snippet, whole',
    (_index, block) => {
      // The file whose whole content the block is; none means the README shows code that CI never compiled.
      const files = [...snippets].filter(([, content]) => content === block).map(([file]) => file);
      expect(files).toHaveLength(1);
    },
  );
});
