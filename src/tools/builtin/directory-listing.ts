import { constants, type Dirent } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { entryPath, openConfined } from './confined-open';

/** The note after a symbolic link that leads back into itself or to a directory holding it. */
const SYMLINK_LOOP_NOTE = ' (skipped: symlink loop)';

/** One entry met by {@link walk}. */
export interface ListedEntry {
  /** Its path under the directory as the caller named it, for the listing's names. */
  absolute: string;
  entry: Dirent;
  /** A path to `lstat` it by that follows no link above it (through its opened directory). */
  statPath: string;
}

/**
 * Visits the entries under a directory below `rootReal` in name order, each directory's contents after it, until
 * `visit` returns false; resolves to whether all were visited. Directories open with no link followed
 * ({@link openConfined}) and links are listed, never followed, so the walk cannot leave the workspace or loop.
 */
export async function walk(
  rootReal: string,
  components: readonly string[],
  namedPath: string,
  recursive: boolean,
  visit: (listed: ListedEntry) => Promise<boolean>,
): Promise<boolean> {
  const directoryPath = path.join(rootReal, ...components);
  const shownPath = components.join('/') || '.';
  const directory = await openConfined(rootReal, components, {
    flags: constants.O_RDONLY | constants.O_DIRECTORY,
    shownPath,
  });
  try {
    const entries = (await readdir(entryPath(directory, directoryPath, '.'), { withFileTypes: true })).sort(
      (left, right) => left.name.localeCompare(right.name),
    );
    for (const entry of entries) {
      const absolute = path.join(namedPath, entry.name);
      if (!(await visit({ absolute, entry, statPath: entryPath(directory, directoryPath, entry.name) }))) return false;
      if (!recursive || !entry.isDirectory()) continue;
      if (!(await walk(rootReal, [...components, entry.name], absolute, recursive, visit))) return false;
    }
    return true;
  } finally {
    await directory.close();
  }
}

/**
 * What follows an entry's name in a listing; a file's size is its own `lstat`, never a link target's, and a link
 * that loops or leads back to an ancestor gets {@link SYMLINK_LOOP_NOTE}.
 */
export async function describeEntry({ absolute, entry, statPath }: ListedEntry): Promise<string> {
  if (entry.isDirectory()) return '/';
  if (!entry.isSymbolicLink()) return ` (${(await lstat(statPath)).size} bytes)`;
  if (await leadsToAncestor(absolute)) return SYMLINK_LOOP_NOTE;
  try {
    await realpath(absolute);
    return ' (symbolic link)';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return ' (broken link)';
    if (code === 'ELOOP') return SYMLINK_LOOP_NOTE;
    throw error;
  }
}

/** Whether the link at `absolute` resolves to the directory it is in or one above it. */
async function leadsToAncestor(absolute: string): Promise<boolean> {
  const [target, home] = await Promise.all([
    realpath(absolute).catch(() => undefined),
    realpath(path.dirname(absolute)),
  ]);
  if (target === undefined) return false;
  const relative = path.relative(target, home);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
