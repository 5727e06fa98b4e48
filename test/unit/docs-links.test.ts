import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Every relative link of the README and of docs/ points to a file that exists,
 * and a `#anchor` to a heading of that file: a page moved or a heading renamed
 * fails here, naming the page, the link and what is missing.
 */
const ROOT = path.join(__dirname, '..', '..');

/** README.md and every markdown file under docs/, relative to the root. */
function markdownPages(): string[] {
  const pages = ['README.md'];
  const walk = (directory: string): void => {
    for (const name of readdirSync(path.join(ROOT, directory)).sort()) {
      const relative = path.join(directory, name);
      if (statSync(path.join(ROOT, relative)).isDirectory()) walk(relative);
      else if (name.endsWith('.md')) pages.push(relative);
    }
  };
  walk('docs');
  return pages;
}

/** The page's text without fenced code blocks and inline code, where `[x](y)` is not a link. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/**
 * The anchors GitHub gives a page's headings: lowercased, punctuation dropped
 * (letters, digits, spaces, `-` and `_` kept), spaces as `-`, and `-1`, `-2`
 * after a repeated one. (github-slugger does this too, but its current major is
 * an ES module jest's loader cannot require; the rule is these few lines.)
 */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const slug = (heading[1] ?? '')
      .replace(/<[^>]*>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The targets of the page's markdown links and images, `[text](target)`, that are not absolute URLs. */
function relativeLinks(text: string): string[] {
  const targets = [...prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (match) => match[1] ?? '',
  );
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with `link` on `page`, or undefined when it points to something that exists. */
function brokenLink(page: string, link: string): string | undefined {
  const [file = '', anchor] = link.split('#', 2);
  const target = file === '' ? page : path.normalize(path.join(path.dirname(page), decodeURIComponent(file)));
  if (!existsSync(path.join(ROOT, target))) return `${link}: ${target} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!target.endsWith('.md')) return `${link}: an anchor into ${target}, which is not a markdown page`;
  const anchors = anchorsOf(readFileSync(path.join(ROOT, target), 'utf8'));
  return anchors.has(decodeURIComponent(anchor)) ? undefined : `${link}: ${target} has no heading #${anchor}`;
}

const pages = markdownPages();

test('finds the README and the docs pages', () => {
  expect(pages).toEqual(
    expect.arrayContaining(['README.md', 'docs/README.md', 'docs/benchmarks.md', 'docs/development.md']),
  );
});

describe.each(pages)('%s', (page) => {
  test('links only to files and headings that exist', () => {
    const links = relativeLinks(readFileSync(path.join(ROOT, page), 'utf8'));
    const broken = links.map((link) => brokenLink(page, link)).filter((problem) => problem !== undefined);
    expect(broken).toEqual([]);
  });
});

describe('the anchor rule', () => {
  test.each([
    ['## Cost: prices and `costBudget`', 'cost-prices-and-costbudget'],
    ["## Streaming the model's answer", 'streaming-the-models-answer'],
    ['## Long runs: continue-as-new', 'long-runs-continue-as-new'],
    ['### On a worker you already run: `AgentRunnerPlugin`', 'on-a-worker-you-already-run-agentrunnerplugin'],
  ])('%s is #%s', (heading, anchor) => {
    expect([...anchorsOf(heading)]).toEqual([anchor]);
  });

  test('numbers a repeated heading', () => {
    expect([...anchorsOf('## Chaos\n## Chaos\n## Chaos')]).toEqual(['chaos', 'chaos-1', 'chaos-2']);
  });

  test('does not read a link in code as a link', () => {
    expect(relativeLinks('[a](b.md) `[c](d.md)`\n```\n[e](f.md)\n```\n[g](https://x.example) [h](#i)')).toEqual([
      'b.md',
      '#i',
    ]);
  });
});
