import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The four entry files only re-export, and docs/guide/package.md's table for each entry lists exactly the names it
 * exports: a name added, removed or renamed in an entry fails here until the table says so.
 */
const root = path.join(__dirname, '..', '..');

const ENTRIES = {
  'agent-runner': 'src/client/index.ts',
  'agent-runner/worker': 'src/worker/index.ts',
  'agent-runner/workflow': 'src/workflows/index.ts',
  'agent-runner/testing': 'src/testing/index.ts',
} as const;

type EntryName = keyof typeof ENTRIES;

/** The entry file's statements, parsed without type-checking. */
function statementsOf(file: string): readonly ts.Statement[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true).statements;
}

/** Every name the entry file re-exports, by its exported name. */
function exportedNames(file: string): string[] {
  const names: string[] = [];
  for (const statement of statementsOf(file)) {
    if (!ts.isExportDeclaration(statement) || statement.exportClause === undefined) continue;
    if (!ts.isNamedExports(statement.exportClause)) continue;
    for (const element of statement.exportClause.elements) names.push(element.name.text);
  }
  return names.sort();
}

/** The names in the second column of the table under the entry's `## \`entry\`` heading in docs/guide/package.md. */
function documentedNames(entry: EntryName): string[] {
  const text = readFileSync(path.join(root, 'docs', 'guide', 'package.md'), 'utf8');
  const heading = `## \`${entry}\`\n`;
  const start = text.indexOf(heading);
  if (start === -1) throw new Error(`docs/guide/package.md has no heading ${heading.trim()}`);
  const section = text.slice(start + heading.length).split(/\n## /)[0] ?? '';
  const names: string[] = [];
  for (const row of section.split('\n').filter((line) => line.startsWith('| '))) {
    const cells = row.split(' | ');
    if (cells.length !== 2) continue;
    names.push(...[...(cells[1] ?? '').matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((match) => match[1]!));
  }
  return names.sort();
}

describe.each(Object.entries(ENTRIES) as [EntryName, string][])('the %s entry (%s)', (entry, file) => {
  it('only re-exports from other files', () => {
    const others = statementsOf(file).filter(
      (statement) =>
        !(ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined) &&
        // A side-effect import (`import './fastify-present'`) checks a peer dependency on load.
        !(ts.isImportDeclaration(statement) && statement.importClause === undefined),
    );
    expect(others.map((statement) => statement.getText().split('\n')[0])).toEqual([]);
  });

  it("exports exactly the names of docs/guide/package.md's table for it", () => {
    const exported = exportedNames(file);
    expect(exported.length).toBeGreaterThan(0);
    expect(documentedNames(entry)).toEqual(exported);
  });
});
