import { open } from 'node:fs/promises';

/** Bytes read from the end of a log to find its last lines: enough for 30 long lines, never the whole file. */
const TAIL_WINDOW_BYTES = 64 * 1024;

/**
 * The last `lineCount` lines of the text file at `file`, read from its end
 * (a server log can be large). Empty when the file is empty or missing.
 */
export async function readLogTail(file: string, lineCount: number): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_WINDOW_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return lastLines(buffer.toString('utf8'), lineCount);
  } finally {
    await handle.close();
  }
}

/** The last `lineCount` non-empty-ended lines of `text`. */
export function lastLines(text: string, lineCount: number): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.slice(-lineCount).join('\n');
}
