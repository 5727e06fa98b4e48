import { mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ToolDefinition } from '../../src/tools/define-tool';
import { toolContext } from '../helpers/tool-context';
import { createFileTools } from '../../src/tools/builtin/file-tools';
import { Workspace } from '../../src/tools/builtin/workspace';

/**
 * Each test gets a fresh temporary directory holding `root` (the workspace)
 * and `outside` (a sibling the workspace must not reach).
 */
let sandbox: string;
let root: string;
let outside: string;

beforeEach(async () => {
  sandbox = await realpath(await mkdtemp(path.join(os.tmpdir(), 'agent-runner-workspace-')));
  root = path.join(sandbox, 'root');
  outside = path.join(sandbox, 'outside');
  await mkdir(root);
  await mkdir(outside);
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

const outsideMessage = (requested: string): string =>
  `path "${requested}" is outside the workspace; use a path relative to the workspace root (for example "notes.md").`;

/** Runs the file tool `name` on `workspaceRoot` the way the activity does: arguments parsed, defaults applied. */
async function runFileTool(workspaceRoot: string, name: string, rawArguments: unknown): Promise<string> {
  const tool: ToolDefinition | undefined = createFileTools(workspaceRoot).find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no file tool named ${name}`);
  const output = await tool.execute(tool.parameters.parse(rawArguments), toolContext());
  if (typeof output !== 'string') throw new Error(`expected text from ${name}, got ${JSON.stringify(output)}`);
  return output;
}

describe('Workspace.resolve', () => {
  test('a relative path resolves inside the root', async () => {
    expect(await new Workspace(root).resolve('notes/today.md')).toBe(path.join(root, 'notes', 'today.md'));
  });

  test('"." and "" resolve to the root itself', async () => {
    const workspace = new Workspace(root);

    expect(await workspace.resolve('.')).toBe(root);
    expect(await workspace.resolve('')).toBe(root);
  });

  test('a ".." that stays inside the root is allowed', async () => {
    expect(await new Workspace(root).resolve('notes/../todo.md')).toBe(path.join(root, 'todo.md'));
  });

  test('an absolute path inside the root is allowed', async () => {
    const inside = path.join(root, 'notes.md');

    expect(await new Workspace(root).resolve(inside)).toBe(inside);
  });

  test.each(['..', '../outside/secret.txt', 'notes/../../outside', '../root-sibling.txt'])(
    '%j escapes with ".." and is refused',
    async (requested) => {
      await expect(new Workspace(root).resolve(requested)).rejects.toThrow(new Error(outsideMessage(requested)));
    },
  );

  test('an absolute path outside the root is refused', async () => {
    const requested = path.join(outside, 'secret.txt');

    await expect(new Workspace(root).resolve(requested)).rejects.toThrow(new Error(outsideMessage(requested)));
  });

  test('the filesystem root is refused', async () => {
    await expect(new Workspace(root).resolve('/')).rejects.toThrow(new Error(outsideMessage('/')));
  });

  test('a symlink to an existing file outside is refused', async () => {
    await writeFile(path.join(outside, 'secret.txt'), 'top secret');
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.txt'));

    await expect(new Workspace(root).resolve('secret-link.txt')).rejects.toThrow(
      new Error(outsideMessage('secret-link.txt')),
    );
  });

  test('a new path under a symlinked directory that leads outside is refused', async () => {
    await symlink(outside, path.join(root, 'linked-dir'));

    await expect(new Workspace(root).resolve('linked-dir/new/file.txt')).rejects.toThrow(
      new Error(outsideMessage('linked-dir/new/file.txt')),
    );
  });

  test('a symlink that stays inside the root is allowed', async () => {
    await mkdir(path.join(root, 'real'));
    await symlink(path.join(root, 'real'), path.join(root, 'alias'));

    expect(await new Workspace(root).resolve('alias/file.txt')).toBe(path.join(root, 'alias', 'file.txt'));
  });

  test('the root is created when it does not exist yet', async () => {
    const missingRoot = path.join(sandbox, 'created', 'later');

    expect(await new Workspace(missingRoot).resolve('a.txt')).toBe(path.join(missingRoot, 'a.txt'));
    expect((await stat(missingRoot)).isDirectory()).toBe(true);
  });

  test('a root reached through a symlink confines paths to its real directory', async () => {
    const linkedRoot = path.join(sandbox, 'root-link');
    await symlink(root, linkedRoot);

    const workspace = new Workspace(linkedRoot);

    expect(await workspace.resolve('a.txt')).toBe(path.join(root, 'a.txt'));
    await expect(workspace.resolve(path.join(outside, 'a.txt'))).rejects.toThrow(/is outside the workspace/);
  });
});

describe('Workspace.relative', () => {
  test('shows paths relative to the root with "/" separators', async () => {
    const workspace = new Workspace(root);
    const absolute = await workspace.resolve('notes/today.md');

    expect(workspace.relative(absolute)).toBe('notes/today.md');
  });

  test('shows the root itself as "."', async () => {
    const workspace = new Workspace(root);

    expect(workspace.relative(await workspace.resolve('.'))).toBe('.');
  });
});

describe('write_file', () => {
  test('writes the content and reports the byte count and relative path', async () => {
    const result = await runFileTool(root, 'write_file', { path: 'notes.md', content: 'héllo' });

    expect(result).toBe('Wrote 6 bytes to notes.md.');
    expect(await readFile(path.join(root, 'notes.md'), 'utf8')).toBe('héllo');
  });

  test('creates missing directories for a nested path', async () => {
    const result = await runFileTool(root, 'write_file', { path: 'a/b/c/deep.txt', content: 'deep' });

    expect(result).toBe('Wrote 4 bytes to a/b/c/deep.txt.');
    expect(await readFile(path.join(root, 'a', 'b', 'c', 'deep.txt'), 'utf8')).toBe('deep');
  });

  test('overwrites an existing file', async () => {
    await writeFile(path.join(root, 'notes.md'), 'old content that is longer');

    await runFileTool(root, 'write_file', { path: 'notes.md', content: 'new' });

    expect(await readFile(path.join(root, 'notes.md'), 'utf8')).toBe('new');
  });

  test('an empty content writes an empty file', async () => {
    expect(await runFileTool(root, 'write_file', { path: 'empty.txt', content: '' })).toBe(
      'Wrote 0 bytes to empty.txt.',
    );
    expect(await readFile(path.join(root, 'empty.txt'), 'utf8')).toBe('');
  });

  test('refuses a ".." escape and writes nothing', async () => {
    await expect(runFileTool(root, 'write_file', { path: '../outside/evil.txt', content: 'x' })).rejects.toThrow(
      new Error(outsideMessage('../outside/evil.txt')),
    );
    await expect(stat(path.join(outside, 'evil.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('refuses a new file under a symlinked directory leading outside and writes nothing', async () => {
    await symlink(outside, path.join(root, 'linked-dir'));

    await expect(runFileTool(root, 'write_file', { path: 'linked-dir/sub/evil.txt', content: 'x' })).rejects.toThrow(
      new Error(outsideMessage('linked-dir/sub/evil.txt')),
    );
    await expect(stat(path.join(outside, 'sub'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('refuses to overwrite an outside file through a symlink', async () => {
    await writeFile(path.join(outside, 'target.txt'), 'original');
    await symlink(path.join(outside, 'target.txt'), path.join(root, 'target-link.txt'));

    await expect(runFileTool(root, 'write_file', { path: 'target-link.txt', content: 'x' })).rejects.toThrow(
      /is outside the workspace/,
    );
    expect(await readFile(path.join(outside, 'target.txt'), 'utf8')).toBe('original');
  });

  test('rejects an empty path in its arguments', () => {
    const tool = createFileTools(root).find((candidate) => candidate.name === 'write_file');

    expect(tool?.parameters.safeParse({ path: '', content: 'x' }).success).toBe(false);
  });
});

describe('read_file', () => {
  test('returns the text of a file', async () => {
    await mkdir(path.join(root, 'docs'));
    await writeFile(path.join(root, 'docs', 'readme.md'), '# Title\nBody\n');

    expect(await runFileTool(root, 'read_file', { path: 'docs/readme.md' })).toBe('# Title\nBody\n');
  });

  test('refuses an existing outside file reached through a symlink', async () => {
    await writeFile(path.join(outside, 'secret.txt'), 'top secret');
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.txt'));

    await expect(runFileTool(root, 'read_file', { path: 'secret-link.txt' })).rejects.toThrow(
      new Error(outsideMessage('secret-link.txt')),
    );
  });

  test('refuses an existing outside file reached through a symlinked directory', async () => {
    await writeFile(path.join(outside, 'secret.txt'), 'top secret');
    await symlink(outside, path.join(root, 'linked-dir'));

    await expect(runFileTool(root, 'read_file', { path: 'linked-dir/secret.txt' })).rejects.toThrow(
      new Error(outsideMessage('linked-dir/secret.txt')),
    );
  });

  test('refuses an absolute path outside', async () => {
    const requested = path.join(outside, 'secret.txt');
    await writeFile(requested, 'top secret');

    await expect(runFileTool(root, 'read_file', { path: requested })).rejects.toThrow(
      new Error(outsideMessage(requested)),
    );
  });

  test('a missing file fails with ENOENT, named by its workspace path', async () => {
    await expect(runFileTool(root, 'read_file', { path: 'missing.txt' })).rejects.toMatchObject({
      code: 'ENOENT',
      message: '"missing.txt" does not exist in the workspace; list_files shows what is there.',
    });
  });

  test('a file longer than 100000 bytes is cut with a marker', async () => {
    await writeFile(path.join(root, 'big.txt'), 'a'.repeat(100_005));

    const text = await runFileTool(root, 'read_file', { path: 'big.txt' });

    expect(text).toBe(`${'a'.repeat(100_000)}\n[truncated: the file has 100005 bytes; the first 100000 are shown]`);
  });

  test('a cut never splits a UTF-8 character', async () => {
    // 99999 ASCII bytes, then "é" (2 bytes) straddling the cap.
    await writeFile(path.join(root, 'accent.txt'), `${'a'.repeat(99_999)}é and more`);

    const text = await runFileTool(root, 'read_file', { path: 'accent.txt' });

    expect(text).toBe(`${'a'.repeat(99_999)}\n[truncated: the file has 100010 bytes; the first 99999 are shown]`);
  });

  test('a file of exactly 100000 bytes is returned whole', async () => {
    await writeFile(path.join(root, 'limit.txt'), 'b'.repeat(100_000));

    expect(await runFileTool(root, 'read_file', { path: 'limit.txt' })).toBe('b'.repeat(100_000));
  });
});

describe('list_files', () => {
  async function populate(): Promise<void> {
    await writeFile(path.join(root, 'b.txt'), 'bee');
    await writeFile(path.join(root, 'a.txt'), 'hello');
    await mkdir(path.join(root, 'docs', 'deep'), { recursive: true });
    await writeFile(path.join(root, 'docs', 'guide.md'), '# Guide');
    await writeFile(path.join(root, 'docs', 'deep', 'note.txt'), '');
  }

  test('lists the root in name order, with sizes and "/" after directories', async () => {
    await populate();

    expect(await runFileTool(root, 'list_files', {})).toBe(['a.txt (5 bytes)', 'b.txt (3 bytes)', 'docs/'].join('\n'));
  });

  test('recursive listing shows subdirectory contents right after each directory, relative to the root', async () => {
    await populate();

    expect(await runFileTool(root, 'list_files', { recursive: true })).toBe(
      [
        'a.txt (5 bytes)',
        'b.txt (3 bytes)',
        'docs/',
        'docs/deep/',
        'docs/deep/note.txt (0 bytes)',
        'docs/guide.md (7 bytes)',
      ].join('\n'),
    );
  });

  test('listing a subdirectory shows paths relative to the workspace root', async () => {
    await populate();

    expect(await runFileTool(root, 'list_files', { path: 'docs' })).toBe(
      ['docs/deep/', 'docs/guide.md (7 bytes)'].join('\n'),
    );
  });

  test('an empty directory says so, naming the requested path', async () => {
    await mkdir(path.join(root, 'empty'));

    expect(await runFileTool(root, 'list_files', { path: 'empty' })).toBe('The directory "empty" is empty.');
  });

  test('an empty workspace says so with the default path', async () => {
    expect(await runFileTool(root, 'list_files', {})).toBe('The directory "." is empty.');
  });

  test('refuses to list a directory outside through "..", naming the path', async () => {
    await expect(runFileTool(root, 'list_files', { path: '../outside' })).rejects.toThrow(
      new Error(outsideMessage('../outside')),
    );
  });

  test('refuses to list an outside directory through a symlink', async () => {
    await writeFile(path.join(outside, 'secret.txt'), 'top secret');
    await symlink(outside, path.join(root, 'linked-dir'));

    await expect(runFileTool(root, 'list_files', { path: 'linked-dir' })).rejects.toThrow(
      new Error(outsideMessage('linked-dir')),
    );
  });

  test('a recursive listing does not descend into a symlinked directory', async () => {
    await writeFile(path.join(outside, 'secret.txt'), 'top secret');
    await symlink(outside, path.join(root, 'linked-dir'));

    const listing = await runFileTool(root, 'list_files', { recursive: true });

    expect(listing).toMatch(/^linked-dir \(symbolic link\)$/m);
    expect(listing).not.toContain('secret.txt');
  });

  test('stops at 500 entries and says so', async () => {
    await Promise.all(
      Array.from({ length: 501 }, (_, index) =>
        writeFile(path.join(root, `file-${String(index).padStart(3, '0')}.txt`), 'x'),
      ),
    );

    const lines = (await runFileTool(root, 'list_files', {})).split('\n');

    expect(lines).toHaveLength(501);
    expect(lines[0]).toBe('file-000.txt (1 bytes)');
    expect(lines[499]).toBe('file-499.txt (1 bytes)');
    expect(lines[500]).toBe('[listing stopped at 500 entries]');
  });
});

describe('regressions found in review', () => {
  test('write_file through a dangling symlink does not create a file outside the workspace', async () => {
    await symlink(path.join(outside, 'planted.txt'), path.join(root, 'dangling'));
    await expect(runFileTool(root, 'write_file', { path: 'dangling', content: 'escaped' })).rejects.toThrow(
      outsideMessage('dangling'),
    );
    await expect(stat(path.join(outside, 'planted.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('a dangling symlink that stays inside the workspace may be written through', async () => {
    await symlink(path.join(root, 'real.txt'), path.join(root, 'alias'));
    expect(await runFileTool(root, 'write_file', { path: 'alias', content: 'ok' })).toBe('Wrote 2 bytes to alias.');
    expect(await readFile(path.join(root, 'real.txt'), 'utf8')).toBe('ok');
  });

  test('a file whose name starts with ".." is inside the workspace', async () => {
    expect(await new Workspace(root).resolve('..notes.md')).toBe(path.join(root, '..notes.md'));
    expect(await new Workspace(root).resolve('...')).toBe(path.join(root, '...'));
  });

  test('list_files lists a dangling symlink instead of failing', async () => {
    await writeFile(path.join(root, 'a.txt'), 'hello');
    await symlink(path.join(sandbox, 'missing'), path.join(root, 'broken'));
    expect(await runFileTool(root, 'list_files', {})).toBe('a.txt (5 bytes)\nbroken (broken link)');
  });

  test('exactly 500 entries are listed without a truncation marker; 501 get one', async () => {
    await Promise.all(
      Array.from({ length: 500 }, (_, index) =>
        writeFile(path.join(root, `f-${String(index).padStart(3, '0')}.txt`), 'x'),
      ),
    );
    const full = await runFileTool(root, 'list_files', {});
    expect(full.split('\n')).toHaveLength(500);
    expect(full).not.toContain('[listing stopped');
    await writeFile(path.join(root, 'f-500.txt'), 'x');
    const cut = await runFileTool(root, 'list_files', {});
    expect(cut.split('\n')).toHaveLength(501);
    expect(cut.endsWith('[listing stopped at 500 entries]')).toBe(true);
  });
});
