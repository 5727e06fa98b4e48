import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROCESS_KINDS, environmentVariables, type EnvironmentVariable } from '../src/config/variables';

/**
 * The configuration reference's tables, rendered from the variables the code
 * reads (src/config/variables.ts). `npm run docs:configuration` writes them
 * into docs/reference/configuration.md between the marker comments;
 * test/unit/configuration-reference.test.ts fails when the file differs.
 */

export const REFERENCE_FILE = path.resolve(__dirname, '..', 'docs', 'reference', 'configuration.md');
const START = '<!-- generated:configuration-table: npm run docs:configuration -->';
const END = '<!-- end:configuration-table -->';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string) => (text === '' ? '(empty)' : `\`${text}\``);

/** The processes table and the variables table, as Markdown. */
export function renderConfigurationTables(variables: readonly EnvironmentVariable[] = environmentVariables()): string {
  const processes = [
    '| Process | What it is |',
    '| --- | --- |',
    ...Object.entries(PROCESS_KINDS).map(([kind, meaning]) => `| \`${kind}\` | ${cell(meaning)} |`),
  ];
  const rows = [
    '| Variable | Read by | Default | Meaning |',
    '| --- | --- | --- | --- |',
    ...variables.map(
      (variable) =>
        `| \`${variable.name}\` | ${variable.processes.join(', ')} | ${variable.default === undefined ? '—' : cell(defaultText(variable.default))} | ${cell(variable.meaning)} |`,
    ),
  ];
  return [...processes, '', ...rows].join('\n');
}

/** A single default in code font; a per-process list as it is. */
function defaultText(shown: string): string {
  return shown.includes(' (') ? shown : code(shown);
}

/** The variable names of the table in a reference's text, in order. */
export function documentedVariables(markdown: string): string[] {
  return [...generatedSection(markdown).matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1]!);
}

/** The text between the markers. */
export function generatedSection(markdown: string): string {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${REFERENCE_FILE} lacks the markers ${START} ... ${END}`);
  return markdown.slice(start + START.length, end).trim();
}

/** Rewrites the generated section of the reference. */
export function writeConfigurationReference(file: string = REFERENCE_FILE): void {
  const markdown = readFileSync(file, 'utf8');
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file} lacks the markers ${START} ... ${END}`);
  writeFileSync(
    file,
    `${markdown.slice(0, start + START.length)}\n\n${renderConfigurationTables()}\n\n${markdown.slice(end)}`,
  );
}

if (require.main === module) {
  writeConfigurationReference();
  console.log(`Wrote ${path.relative(process.cwd(), REFERENCE_FILE)}.`);
}
