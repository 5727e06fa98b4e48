import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../define-tool';
import { Workspace } from './workspace';

/** Largest file `read_file` returns whole; longer files are cut with a marker. */
const MAX_READ_CHARS = 100_000;
/** Most entries `list_files` returns. */
const MAX_LISTED_ENTRIES = 500;

/** `list_files`, `read_file` and `write_file`, confined to `root`. */
export function createFileTools(root: string): ToolDefinition[] {
  const workspace = new Workspace(root);

  const listFiles = defineTool({
    name: 'list_files',
    description:
      'List the files and directories in the workspace (or in one of its directories), with sizes in bytes. Directories end with "/".',
    parameters: z.object({
      path: z.string().default('.').describe('Directory relative to the workspace root'),
      recursive: z.boolean().default(false).describe('Also list the contents of subdirectories'),
    }),
    async execute({ path: requested, recursive }) {
      const directory = await workspace.resolve(requested);
      const lines: string[] = [];
      const complete = await walk(directory, recursive, async (absolute, isDirectory) => {
        if (lines.length >= MAX_LISTED_ENTRIES) return false;
        lines.push(`${workspace.relative(absolute)}${isDirectory ? '/' : await describeSize(absolute)}`);
        return true;
      });
      if (lines.length === 0) return `The directory "${requested}" is empty.`;
      return lines.join('\n') + (complete ? '' : `\n[listing stopped at ${MAX_LISTED_ENTRIES} entries]`);
    },
  });

  const readTextFile = defineTool({
    name: 'read_file',
    description: 'Read a text file from the workspace.',
    parameters: z.object({ path: z.string().min(1).describe('File path relative to the workspace root') }),
    async execute({ path: requested }) {
      const file = await workspace.resolve(requested);
      const text = await readFile(file, 'utf8');
      if (text.length <= MAX_READ_CHARS) return text;
      return `${text.slice(0, MAX_READ_CHARS)}\n[truncated: the file has ${text.length} characters; the first ${MAX_READ_CHARS} are shown]`;
    },
  });

  const writeTextFile = defineTool({
    name: 'write_file',
    description: 'Create or overwrite a text file in the workspace. Missing directories are created.',
    parameters: z.object({
      path: z.string().min(1).describe('File path relative to the workspace root'),
      content: z.string().describe('The complete new content of the file'),
    }),
    async execute({ path: requested, content }) {
      const file = await workspace.resolve(requested);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content, 'utf8');
      return `Wrote ${Buffer.byteLength(content, 'utf8')} bytes to ${workspace.relative(file)}.`;
    },
  });

  return [listFiles, readTextFile, writeTextFile];
}

/** ` (N bytes)`, or ` (broken link)` for a link whose target is gone. */
async function describeSize(absolute: string): Promise<string> {
  try {
    return ` (${(await stat(absolute)).size} bytes)`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ' (broken link)';
    throw error;
  }
}

/** Visits entries in name order; `visit` returns false to stop. Resolves to whether every entry was visited. */
async function walk(
  directory: string,
  recursive: boolean,
  visit: (absolute: string, isDirectory: boolean) => Promise<boolean>,
): Promise<boolean> {
  const entries = (await readdir(directory, { withFileTypes: true })).sort((left, right) =>
    left.name.localeCompare(right.name),
  );
  for (const entry of entries) {
    const absolute = path.join(directory, entry.name);
    if (!(await visit(absolute, entry.isDirectory()))) return false;
    if (recursive && entry.isDirectory() && !(await walk(absolute, recursive, visit))) return false;
  }
  return true;
}
