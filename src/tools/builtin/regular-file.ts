import { constants } from 'node:fs';
import { lstat, type FileHandle } from 'node:fs/promises';
import { fileKind, notRegularFile } from './file-tool-error';

/** Opens the file with `flags`; {@link openConfined} in the tools, so no link is followed on the way. */
export type FileOpener = (flags: number) => Promise<FileHandle>;

/** The first bytes of a file, and how large it is. */
export interface FileHead {
  /** At most the cap, cut back to a whole UTF-8 character. */
  bytes: Buffer;
  /** The file's size in bytes (at least what was read, should it have grown meanwhile). */
  size: number;
  /** Whether the file holds more than `bytes`. */
  cut: boolean;
}

/**
 * Reads at most `capBytes` of the regular file `openFile` opens. `O_NONBLOCK` keeps a FIFO from blocking the open, and
 * the kind is checked on the opened descriptor, so a file swapped for a FIFO or device after a check is refused.
 */
export async function readFileHead(
  openFile: FileOpener,
  absolute: string,
  shownPath: string,
  capBytes: number,
): Promise<FileHead> {
  const handle = await openNonBlocking(
    openFile,
    absolute,
    constants.O_RDONLY | constants.O_NONBLOCK,
    shownPath,
    'read_file',
  );
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegularFile(shownPath, fileKind(stats), 'read_file');
    // One byte past the cap tells a file of exactly the cap from a longer one.
    const buffer = Buffer.alloc(capBytes + 1);
    const filled = await fill(handle, buffer);
    if (filled <= capBytes) return { bytes: buffer.subarray(0, filled), size: filled, cut: false };
    return {
      bytes: buffer.subarray(0, characterBoundary(buffer, capBytes)),
      size: Math.max(stats.size, filled),
      cut: true,
    };
  } finally {
    await handle.close();
  }
}

/**
 * Replaces or creates a regular file, refusing anything else: opening a FIFO nobody reads would block the call
 * until the run's timeout.
 */
export async function writeRegularFile(
  openFile: FileOpener,
  absolute: string,
  shownPath: string,
  content: string,
): Promise<void> {
  // No O_TRUNC: the file is emptied only once it is known to be a regular file.
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK;
  const handle = await openNonBlocking(openFile, absolute, flags, shownPath, 'write_file');
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegularFile(shownPath, fileKind(stats), 'write_file');
    await handle.truncate(0);
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Opens with `flags` (which hold `O_NONBLOCK`); a socket, or a FIFO nobody reads, is refused by its kind, read
 * with `lstat` of `absolute` (the real path), which follows no link of its own.
 */
async function openNonBlocking(
  openFile: FileOpener,
  absolute: string,
  flags: number,
  shownPath: string,
  toolName: string,
): Promise<FileHandle> {
  try {
    return await openFile(flags);
  } catch (error) {
    // ENXIO: a socket, or a FIFO opened for writing while nobody reads it. Say which.
    if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
    const stats = await lstat(absolute).catch(() => undefined);
    throw notRegularFile(shownPath, stats === undefined ? 'special file' : fileKind(stats), toolName);
  }
}

/** Reads into `buffer` until it is full or the file ends; resolves to the bytes read. */
async function fill(handle: FileHandle, buffer: Buffer): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/** The largest offset at most `limit` that does not fall inside a UTF-8 character. */
function characterBoundary(buffer: Buffer, limit: number): number {
  let end = limit;
  // 0b10xxxxxx is a continuation byte: the character it belongs to started earlier.
  while (end > 0 && end > limit - 4 && (buffer[end]! & 0xc0) === 0x80) end -= 1;
  return end;
}
