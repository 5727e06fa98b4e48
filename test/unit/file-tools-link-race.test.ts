import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ToolDefinition } from '../../src/tools/define-tool';
import { createFileTools } from '../../src/tools/builtin/file-tools';
import { toolContext } from '../helpers/tool-context';

/**
 * The file tools against another process that flips a link in the workspace between a directory inside and
 * one outside as fast as it can: whatever the timing, no read returns an outside file, no write or new
 * directory lands outside, and no listing shows what is outside.
 */

const TRIES = 600;
const SECRET = 'outside-secret';

let sandbox: string;
let root: string;
let outside: string;
let flipper: ChildProcess;

beforeAll(async () => {
  sandbox = await realpath(await mkdtemp(path.join(os.tmpdir(), 'agent-runner-race-')));
  root = path.join(sandbox, 'root');
  outside = path.join(sandbox, 'outside');
  await mkdir(path.join(root, 'inside'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, 'inside', 'note.txt'), 'inside');
  await writeFile(path.join(outside, 'note.txt'), SECRET);
  await writeFile(path.join(outside, 'outside-only.txt'), SECRET);
  // Each flip makes a new link and renames it over `flip`, so `flip` always exists and points one way or the other.
  const script = `
    const fs = require('node:fs');
    const [link, inside, outside] = process.argv.slice(1);
    const deadline = Date.now() + 60_000;
    for (let turn = 0; Date.now() < deadline; turn += 1) {
      const next = link + '.next';
      try { fs.unlinkSync(next); } catch {}
      fs.symlinkSync(turn % 2 === 0 ? outside : inside, next);
      fs.renameSync(next, link);
    }`;
  await new Promise<void>((resolve) => {
    flipper = spawn(process.execPath, ['-e', script, path.join(root, 'flip'), path.join(root, 'inside'), outside], {
      stdio: 'ignore',
    });
    flipper.once('spawn', () => resolve());
  });
});

afterAll(async () => {
  flipper?.kill('SIGKILL');
  await rm(sandbox, { recursive: true, force: true });
});

function tool(name: string): ToolDefinition {
  const found = createFileTools(root).find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no file tool named ${name}`);
  return found;
}

/** The tool's text, or its error's message: both are what the model would see. */
async function attempt(name: string, rawArguments: unknown): Promise<string> {
  const definition = tool(name);
  try {
    return String(await definition.execute(definition.parameters.parse(rawArguments), toolContext()));
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

test('read_file never returns a file outside the workspace', async () => {
  const answers = new Map<string, number>();
  for (let index = 0; index < TRIES; index += 1) {
    const answer = await attempt('read_file', { path: 'flip/note.txt' });
    const kind = answer.includes(SECRET) ? 'escaped' : answer === 'inside' ? 'inside' : 'refused';
    answers.set(kind, (answers.get(kind) ?? 0) + 1);
  }
  expect(answers.get('escaped') ?? 0).toBe(0);
  // The race ran: some reads landed inside the workspace and some were refused while the link pointed out.
  expect(answers.get('inside') ?? 0).toBeGreaterThan(0);
  expect(answers.get('refused') ?? 0).toBeGreaterThan(0);
});

test('write_file never creates a file or a directory outside the workspace', async () => {
  for (let index = 0; index < TRIES; index += 1) {
    await attempt('write_file', { path: `flip/written-${index}.txt`, content: 'x' });
    await attempt('write_file', { path: `flip/made-${index}/deeper/file.txt`, content: 'x' });
  }
  expect((await readdir(outside)).sort()).toEqual(['note.txt', 'outside-only.txt']);
  expect((await readdir(path.join(root, 'inside'))).length).toBeGreaterThan(1);
});

test('list_files never shows what is outside the workspace', async () => {
  let listedInside = 0;
  for (let index = 0; index < TRIES; index += 1) {
    const answer = await attempt('list_files', { path: 'flip' });
    expect(answer).not.toContain('outside-only.txt');
    if (answer.includes('note.txt')) listedInside += 1;
  }
  expect(listedInside).toBeGreaterThan(0);
});
