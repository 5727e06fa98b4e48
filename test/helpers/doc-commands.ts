import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from './processes';

/**
 * The ```sh blocks of one section of a markdown page (from its `## heading` to the next `## `), in order, as printed:
 * the tests run these, so a guide's commands cannot stop working unnoticed.
 */
export async function shellBlocks(page: string, heading: string): Promise<string[]> {
  const text = await readFile(path.join(PROJECT_ROOT, page), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${page} has no section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  if (blocks.length === 0) throw new Error(`${page}, "## ${heading}": no sh blocks`);
  return blocks;
}
