import { constants, existsSync } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { FileToolError } from './file-tool-error';

/**
 * Opens a path below the workspace root following no symbolic link, so a link swapped in after a check cannot
 * escape the workspace; on Linux each step opens `/proc/self/fd/<dir fd>/<name>` with `O_NOFOLLOW` (race-free, as
 * Node has no `openat`), elsewhere each step re-walks from the root and a swap between two steps is not caught.
 */

const FD_DIRECTORY = '/proc/self/fd';
const THROUGH_FD = existsSync(FD_DIRECTORY);

/** How to open the last component of a confined path. */
export interface ConfinedOpen {
  /** `open(2)` flags of the last component; `O_NOFOLLOW` is added. */
  flags: number;
  /** Create missing directories on the way (write_file), each refused when a link stands in its place. */
  createDirectories?: boolean;
  /** The path as the model gave it, for errors. */
  shownPath: string;
}

/**
 * Opens `components` (a real path relative to `rootReal`, split, already checked inside) with no symbolic link
 * followed. An empty list opens the root itself. A link met on the way fails with `ELOOP`, as the workspace's
 * check would have refused it.
 */
export async function openConfined(
  rootReal: string,
  components: readonly string[],
  { flags, createDirectories = false, shownPath }: ConfinedOpen,
): Promise<FileHandle> {
  let directory = await open(rootReal, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const [index, name] of components.entries()) {
      const at = THROUGH_FD
        ? path.join(FD_DIRECTORY, String(directory.fd), name)
        : path.join(rootReal, ...components.slice(0, index + 1));
      const last = index === components.length - 1;
      if (!last && createDirectories) {
        // mkdir never follows its last component: a link standing there is EEXIST, then refused by the open below.
        await mkdir(at).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
      }
      const next = await open(
        at,
        (last ? flags : constants.O_RDONLY | constants.O_DIRECTORY) | constants.O_NOFOLLOW,
        0o666,
      ).catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'ELOOP' ? linkOnTheWay(shownPath) : error;
      });
      await directory.close();
      directory = next;
    }
    return directory;
  } catch (error) {
    await directory.close().catch(() => undefined);
    throw error;
  }
}

/** The path through which an opened directory's entries are named without following links above them. */
export function entryPath(directory: FileHandle, directoryPath: string, name: string): string {
  return THROUGH_FD ? path.join(FD_DIRECTORY, String(directory.fd), name) : path.join(directoryPath, name);
}

function linkOnTheWay(shownPath: string): FileToolError {
  return new FileToolError({
    code: 'ELOOP',
    path: shownPath,
    message: `"${shownPath}" changed while it was opened (a symbolic link took the place of a file or directory on its way); nothing was read or written. Try again.`,
  });
}
