import { AgentRunnerError } from '../../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.FileToolError');

/**
 * A file tool's failure for the model, with the workspace-relative path (never the server's absolute one);
 * `code` is the `fs` error code or the refusal (`ENOTREGULAR`).
 */
export class FileToolError extends AgentRunnerError {
  override readonly name = 'FileToolError';

  private get [marker](): true {
    return true;
  }

  readonly code: string;
  /** The path the message names, relative to the workspace root. */
  readonly path: string;

  constructor(options: { code: string; path: string; message: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.path = options.path;
  }

  static override isInstance(error: unknown): error is FileToolError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}

/** What `fs` calls a file's kind, in words, for a file that is not a regular file. */
export type FileKind =
  'directory' | 'FIFO (named pipe)' | 'socket' | 'character device' | 'block device' | 'special file';

/** The refusal of anything that is not a regular file: reading a FIFO or a device could block or never end. */
export function notRegularFile(shownPath: string, kind: FileKind, toolName: string): FileToolError {
  const message =
    kind === 'directory'
      ? `"${shownPath}" is a directory; list_files shows what it holds.`
      : `"${shownPath}" is a ${kind}, not a regular file; ${toolName} works on regular files only.`;
  return new FileToolError({ code: kind === 'directory' ? 'EISDIR' : 'ENOTREGULAR', path: shownPath, message });
}

/** The kind of a non-regular file from its `stat`. */
export function fileKind(stats: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): FileKind {
  if (stats.isDirectory()) return 'directory';
  if (stats.isFIFO()) return 'FIFO (named pipe)';
  if (stats.isSocket()) return 'socket';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  return 'special file';
}

/**
 * `error` from `fs` as a {@link FileToolError} naming `shownPath`. Errors
 * without a code pass through with any mention of `root` taken out, so no
 * message carries the server's directory layout to the model.
 */
export function toFileToolError(error: unknown, shownPath: string, root: string): Error {
  if (FileToolError.isInstance(error)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = code === undefined ? undefined : describeCode(code, shownPath);
  if (code !== undefined && message !== undefined)
    return new FileToolError({ code, path: shownPath, message, cause: error });
  const text = error instanceof Error ? error.message : String(error);
  // An unexpected error: keep its words, drop the server's paths.
  const scrubbed = text.split(`${root}/`).join('').split(root).join('.');
  return new FileToolError({
    code: code ?? 'EUNKNOWN',
    path: shownPath,
    message: `"${shownPath}": ${scrubbed}`,
    cause: error,
  });
}

function describeCode(code: string, shownPath: string): string | undefined {
  switch (code) {
    case 'ENOENT':
      return `"${shownPath}" does not exist in the workspace; list_files shows what is there.`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied for "${shownPath}".`;
    case 'ELOOP':
      return `"${shownPath}" is a symbolic link loop (or a chain of too many links); it leads nowhere.`;
    case 'ENOTDIR':
      return `"${shownPath}" is not a directory (or a part of the path is a file).`;
    case 'EISDIR':
      return `"${shownPath}" is a directory; list_files shows what it holds.`;
    case 'ENAMETOOLONG':
      return `"${shownPath}" is too long a path.`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `no space left to write "${shownPath}".`;
    case 'EROFS':
      return `"${shownPath}" is on a read-only file system.`;
    case 'EEXIST':
      return `"${shownPath}" already exists and is not a directory.`;
    default:
      return undefined;
  }
}
