import { chmod, mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';

/**
 * The stack's folder holds its database password, the API token and logs that may quote payloads: it and everything
 * in it are the running user's alone. Files get their mode when they are created (never a chmod after a window in
 * which they were readable); only what an older version left with a looser mode is tightened in place.
 */
const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;

/** Creates `directory` (and its missing parents) as 0700, and tightens it if an older version left it open. */
export async function makePrivateDirectory(directory: string, mode: number = PRIVATE_DIRECTORY_MODE): Promise<void> {
  await mkdir(directory, { recursive: true, mode });
  if (((await stat(directory)).mode & 0o777) !== mode) await chmod(directory, mode);
}

/** Writes `content` to a new 0600 file at `file` (through a new file renamed over it: readers never see half). */
export async function writePrivateFile(file: string, content: string): Promise<void> {
  const partial = `${file}.partial`;
  await rm(partial, { force: true });
  const handle = await open(partial, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  await rename(partial, file);
}

/** Opens `file` to append (a log), created 0600; one an older version created readable by others is tightened. */
export async function openPrivateLog(file: string): Promise<FileHandle> {
  const handle = await open(file, 'a', PRIVATE_FILE_MODE);
  if (((await handle.stat()).mode & 0o077) !== 0) await handle.chmod(PRIVATE_FILE_MODE);
  return handle;
}
