import path from 'node:path';
import { z } from 'zod';
import { FILE_TOOL_LIMITS } from '../../shared/defaults/tools';
import { defineTool, type ToolDefinition } from '../define-tool';
import { describeEntry, walk } from './directory-listing';
import { openConfined } from './confined-open';
import { readFileHead, writeRegularFile } from './regular-file';
import { Workspace } from './workspace';

/**
 * `list_files`, `read_file` and `write_file`, confined to `root`. They work
 * on regular files only (a FIFO or a device is refused, never opened in a
 * way that blocks), and their errors name paths relative to the workspace.
 */
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
      const { target: directory, rootReal, components } = await workspace.locate(requested);
      const lines: string[] = [];
      let complete: boolean;
      try {
        complete = await walk(rootReal, components, directory, recursive, async (listed) => {
          if (lines.length >= FILE_TOOL_LIMITS.listedEntries) return false;
          lines.push(`${workspace.relative(listed.absolute)}${await describeEntry(listed)}`);
          return true;
        });
      } catch (error) {
        throw workspace.describeError(error, directory);
      }
      if (lines.length === 0) return `The directory "${requested}" is empty.`;
      return lines.join('\n') + (complete ? '' : `\n[listing stopped at ${FILE_TOOL_LIMITS.listedEntries} entries]`);
    },
  });

  const readTextFile = defineTool({
    name: 'read_file',
    description: `Read a text file from the workspace (at most the first ${FILE_TOOL_LIMITS.readBytes} bytes).`,
    parameters: z.object({ path: z.string().min(1).describe('File path relative to the workspace root') }),
    async execute({ path: requested }) {
      const { target: file, rootReal, components } = await workspace.locate(requested);
      const shown = workspace.relative(file);
      try {
        const head = await readFileHead(
          (flags) => openConfined(rootReal, components, { flags, shownPath: shown }),
          path.join(rootReal, ...components),
          shown,
          FILE_TOOL_LIMITS.readBytes,
        );
        const text = head.bytes.toString('utf8');
        if (!head.cut) return text;
        return `${text}\n[truncated: the file has ${head.size} bytes; the first ${head.bytes.length} are shown]`;
      } catch (error) {
        throw workspace.describeError(error, file);
      }
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
      const { target: file, rootReal, components } = await workspace.locate(requested);
      const shown = workspace.relative(file);
      try {
        await writeRegularFile(
          (flags) => openConfined(rootReal, components, { flags, createDirectories: true, shownPath: shown }),
          path.join(rootReal, ...components),
          shown,
          content,
        );
      } catch (error) {
        throw workspace.describeError(error, file);
      }
      return `Wrote ${Buffer.byteLength(content, 'utf8')} bytes to ${shown}.`;
    },
  });

  return [listFiles, readTextFile, writeTextFile];
}
