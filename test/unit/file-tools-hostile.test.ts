import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, realpath, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ToolDefinition } from '../../src/tools/define-tool';
import { toolContext } from '../helpers/tool-context';
import { createFileTools } from '../../src/tools/builtin/file-tools';

/**
 * The file tools meet what a workspace may hold besides text files: FIFOs,
 * sockets, devices, huge files and symbolic link loops. Each ends in a clear
 * outcome, never a blocked call, a worker out of memory or a failed listing,
 * and no error shows the server's absolute paths.
 */
let sandbox: string;
let root: string;

beforeEach(async () => {
  sandbox = await realpath(await mkdtemp(path.join(os.tmpdir(), 'agent-runner-hostile-')));
  root = path.join(sandbox, 'root');
  await mkdir(root);
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

/** Runs the file tool `name` on `workspaceRoot`, failing the test if it takes more than five seconds (a blocked open). */
async function runFileTool(workspaceRoot: string, name: string, rawArguments: unknown): Promise<string> {
  const tool: ToolDefinition | undefined = createFileTools(workspaceRoot).find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no file tool named ${name}`);
  let timer: NodeJS.Timeout | undefined;
  const blocked = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not return within 5 s: it blocked`)), 5_000);
  });
  try {
    const output = await Promise.race([
      Promise.resolve(tool.execute(tool.parameters.parse(rawArguments), toolContext())),
      blocked,
    ]);
    if (typeof output !== 'string') throw new Error(`expected text from ${name}, got ${JSON.stringify(output)}`);
    return output;
  } finally {
    clearTimeout(timer);
  }
}

/** The message a tool fails with. */
async function failureOf(workspaceRoot: string, name: string, rawArguments: unknown): Promise<string> {
  try {
    await runFileTool(workspaceRoot, name, rawArguments);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${name} ${JSON.stringify(rawArguments)} succeeded; a failure was expected`);
}

function mkfifo(file: string): void {
  execFileSync('mkfifo', [file]);
}

/** A Unix socket listening at `file`, closed after the test. */
async function listenOnSocket(file: string): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(file, resolve));
  return server;
}

describe('read_file refuses anything but a regular file, without blocking', () => {
  test('a FIFO with no writer is refused at once', async () => {
    mkfifo(path.join(root, 'pipe'));

    expect(await failureOf(root, 'read_file', { path: 'pipe' })).toBe(
      '"pipe" is a FIFO (named pipe), not a regular file; read_file works on regular files only.',
    );
  });

  test('a socket is refused', async () => {
    const server = await listenOnSocket(path.join(root, 'app.sock'));
    try {
      expect(await failureOf(root, 'read_file', { path: 'app.sock' })).toBe(
        '"app.sock" is a socket, not a regular file; read_file works on regular files only.',
      );
    } finally {
      server.close();
    }
  });

  test('a directory is refused with a pointer to list_files', async () => {
    await mkdir(path.join(root, 'docs'));

    expect(await failureOf(root, 'read_file', { path: 'docs' })).toBe(
      '"docs" is a directory; list_files shows what it holds.',
    );
  });

  test('a character device is refused (a workspace at /dev, so no root rights are needed to have one)', async () => {
    expect(await failureOf('/dev', 'read_file', { path: 'zero' })).toBe(
      '"zero" is a character device, not a regular file; read_file works on regular files only.',
    );
  });

  test('a symlink to /dev/zero inside the workspace is refused as leading outside', async () => {
    await symlink('/dev/zero', path.join(root, 'zeros'));

    expect(await failureOf(root, 'read_file', { path: 'zeros' })).toMatch(/^path "zeros" is outside the workspace/);
  });

  test('a sparse 1 GiB file is read only up to the cap: the result is cut and memory does not grow by the file', async () => {
    const file = path.join(root, 'huge.bin');
    await writeFile(file, '');
    await truncate(file, 1024 ** 3);
    // maxRSS is the process's high-water mark (KiB): any moment of holding the file in memory would raise it.
    const peakBefore = process.resourceUsage().maxRSS * 1024;

    const text = await runFileTool(root, 'read_file', { path: 'huge.bin' });

    const peakGrowth = process.resourceUsage().maxRSS * 1024 - peakBefore;
    expect(peakGrowth).toBeLessThan(64 * 1024 * 1024);
    expect(text).toBe(
      `${'\0'.repeat(100_000)}\n[truncated: the file has 1073741824 bytes; the first 100000 are shown]`,
    );
  });
});

describe('write_file refuses anything but a regular file, without blocking', () => {
  test('a FIFO nobody reads is refused at once', async () => {
    mkfifo(path.join(root, 'pipe'));

    expect(await failureOf(root, 'write_file', { path: 'pipe', content: 'x' })).toBe(
      '"pipe" is a FIFO (named pipe), not a regular file; write_file works on regular files only.',
    );
  });

  test('a FIFO someone reads is refused and gets nothing', async () => {
    const fifo = path.join(root, 'pipe');
    mkfifo(fifo);
    const reader = await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      expect(await failureOf(root, 'write_file', { path: 'pipe', content: 'x' })).toBe(
        '"pipe" is a FIFO (named pipe), not a regular file; write_file works on regular files only.',
      );
      const { bytesRead } = await reader.read(Buffer.alloc(16), 0, 16, null).catch((error: NodeJS.ErrnoException) => {
        // Nothing written and no writer left: EAGAIN or an immediate end, both mean empty.
        if (error.code === 'EAGAIN') return { bytesRead: 0 };
        throw error;
      });
      expect(bytesRead).toBe(0);
    } finally {
      await reader.close();
    }
  });

  test('a socket is refused', async () => {
    const server = await listenOnSocket(path.join(root, 'app.sock'));
    try {
      expect(await failureOf(root, 'write_file', { path: 'app.sock', content: 'x' })).toBe(
        '"app.sock" is a socket, not a regular file; write_file works on regular files only.',
      );
    } finally {
      server.close();
    }
  });

  test('a character device is refused', async () => {
    expect(await failureOf('/dev', 'write_file', { path: 'null', content: 'x' })).toBe(
      '"null" is a character device, not a regular file; write_file works on regular files only.',
    );
  });

  test('a directory is refused and stays a directory', async () => {
    await mkdir(path.join(root, 'docs'));

    expect(await failureOf(root, 'write_file', { path: 'docs', content: 'x' })).toBe(
      '"docs" is a directory; list_files shows what it holds.',
    );
    expect((await stat(path.join(root, 'docs'))).isDirectory()).toBe(true);
  });

  test('a regular file is still overwritten whole, shorter content included', async () => {
    await writeFile(path.join(root, 'notes.md'), 'a much longer original text');

    expect(await runFileTool(root, 'write_file', { path: 'notes.md', content: 'short' })).toBe(
      'Wrote 5 bytes to notes.md.',
    );
    expect(await readFile(path.join(root, 'notes.md'), 'utf8')).toBe('short');
  });
});

describe('list_files skips symbolic link loops and says so', () => {
  test('a link to itself, a two-link loop and a link to "." are each noted, and the rest is listed', async () => {
    await writeFile(path.join(root, 'a.txt'), 'hello');
    await symlink('self', path.join(root, 'self'));
    await symlink('pong', path.join(root, 'ping'));
    await symlink('ping', path.join(root, 'pong'));
    await symlink('.', path.join(root, 'here'));

    expect(await runFileTool(root, 'list_files', {})).toBe(
      [
        'a.txt (5 bytes)',
        'here (skipped: symlink loop)',
        'ping (skipped: symlink loop)',
        'pong (skipped: symlink loop)',
        'self (skipped: symlink loop)',
      ].join('\n'),
    );
  });

  test('a recursive listing notes a link back to a parent directory and goes on', async () => {
    await mkdir(path.join(root, 'docs', 'deep'), { recursive: true });
    await writeFile(path.join(root, 'docs', 'deep', 'note.txt'), 'n');
    await symlink('..', path.join(root, 'docs', 'deep', 'up'));
    await writeFile(path.join(root, 'z.txt'), 'z');

    expect(await runFileTool(root, 'list_files', { recursive: true })).toBe(
      [
        'docs/',
        'docs/deep/',
        'docs/deep/note.txt (1 bytes)',
        'docs/deep/up (skipped: symlink loop)',
        'z.txt (1 bytes)',
      ].join('\n'),
    );
  });

  test('listing a link loop itself fails with a message naming it', async () => {
    await symlink('loop', path.join(root, 'loop'));

    expect(await failureOf(root, 'list_files', { path: 'loop' })).toBe(
      '"loop" is a symbolic link loop (or a chain of too many links); it leads nowhere.',
    );
  });
});

describe("tool errors name workspace paths, never the server's", () => {
  const cases: Array<[string, string, Record<string, unknown>, string]> = [
    [
      'read_file',
      'a missing file',
      { path: 'docs/missing.txt' },
      '"docs/missing.txt" does not exist in the workspace; list_files shows what is there.',
    ],
    [
      'read_file',
      'a path through a file',
      { path: 'a.txt/inner' },
      '"a.txt/inner" is not a directory (or a part of the path is a file).',
    ],
    [
      'read_file',
      'a symlink loop',
      { path: 'loop' },
      '"loop" is a symbolic link loop (or a chain of too many links); it leads nowhere.',
    ],
    [
      'list_files',
      'a missing directory',
      { path: 'nowhere' },
      '"nowhere" does not exist in the workspace; list_files shows what is there.',
    ],
    ['list_files', 'a file', { path: 'a.txt' }, '"a.txt" is not a directory (or a part of the path is a file).'],
    [
      'write_file',
      'a file under a file',
      { path: 'a.txt/new.txt', content: 'x' },
      '"a.txt/new.txt" is not a directory (or a part of the path is a file).',
    ],
    [
      'write_file',
      'a symlink loop',
      { path: 'loop', content: 'x' },
      '"loop" is a symbolic link loop (or a chain of too many links); it leads nowhere.',
    ],
  ];

  test.each(cases)('%s on %s', async (tool, _what, rawArguments, expected) => {
    await mkdir(path.join(root, 'docs'));
    await writeFile(path.join(root, 'a.txt'), 'hello');
    await symlink('loop', path.join(root, 'loop'));

    const message = await failureOf(root, tool, rawArguments);

    expect(message).toBe(expected);
    expect(message).not.toContain(sandbox);
  });
});
