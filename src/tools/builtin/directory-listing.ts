import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** The note after a symbolic link that leads back into itself or to a directory holding it. */
const SYMLINK_LOOP_NOTE = ' (skipped: symlink loop)';

/**
 * Visits the entries under `directory` in name order, each directory's
 * contents right after it; `visit` returns false to stop. Symbolic links are
 * listed, never followed, so a link cannot take the walk out of the
 * workspace or round in circles. Resolves to whether every entry was visited.
 */
export async function walk(
  directory: string,
  recursive: boolean,
  visit: (absolute: string, entry: Dirent) => Promise<boolean>,
): Promise<boolean> {
  const entries = (await readdir(directory, { withFileTypes: true })).sort((left, right) =>
    left.name.localeCompare(right.name),
  );
  for (const entry of entries) {
    const absolute = path.join(directory, entry.name);
    if (!(await visit(absolute, entry))) return false;
    if (recursive && entry.isDirectory() && !(await walk(absolute, recursive, visit))) return false;
  }
  return true;
}

/**
 * What follows an entry's name in a listing: `/` for a directory, ` (N bytes)`
 * otherwise, ` (broken link)` for a link whose target is gone, and
 * {@link SYMLINK_LOOP_NOTE} for a link in a loop (`a -> b -> a`) or one that
 * leads back to a directory it sits in (`a -> .`), which a reader following
 * links would never get out of.
 */
export async function describeEntry(absolute: string, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return '/';
  if (entry.isSymbolicLink() && (await leadsToAncestor(absolute))) return SYMLINK_LOOP_NOTE;
  try {
    return ` (${(await stat(absolute)).size} bytes)`;
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
