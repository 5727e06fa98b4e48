import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { PageReport } from '../../scripts/generate-reference';

/**
 * The reference tables of docs/ are what the code says: each page is
 * regenerated in memory from the code (the input schema, the event union, the
 * failure catalogue, the CLI program) and must equal what is committed, and
 * every row the code gained must have its human-written cells filled in.
 *
 * The generator runs in a process of its own (`--check`, which writes
 * nothing): the CLI program is built with commander, an ES module that jest's
 * module loader cannot require.
 */
const ROOT = path.join(__dirname, '..', '..');
/** What rewrites the tables (`scripts/generate-reference.ts`'s `REGENERATE_COMMAND`; importing it would load commander here). */
const REGENERATE_COMMAND = 'npm run docs:reference';
const reports = JSON.parse(
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/generate-reference.ts', '--check'], {
    cwd: ROOT,
    encoding: 'utf8',
  }),
) as PageReport[];

test('checks every page with generated tables', () => {
  expect(reports.map((report) => report.page)).toEqual([
    'docs/reference/failure-types.md',
    'docs/reference/run-input.md',
    'docs/reference/events.md',
    'docs/reference/cli.md',
  ]);
});

describe.each(reports.map((report) => [report.page, report] as const))('%s', (page, report) => {
  test('holds the tables the code has', () => {
    if (report.difference !== undefined) {
      const { line, onThePage, fromTheCode } = report.difference;
      throw new Error(
        `${page}: a generated table differs from the code, first at line ${line}\n  on the page:   ${onThePage}\n  from the code: ${fromTheCode}\n` +
          `Run \`${REGENERATE_COMMAND}\` and commit ${page}.`,
      );
    }
    expect(report.difference).toBeUndefined();
  });

  test('describes every row', () => {
    // A row the code gained comes with "(to describe)" in the columns a person writes.
    expect(report.undescribed).toEqual([]);
  });
});
