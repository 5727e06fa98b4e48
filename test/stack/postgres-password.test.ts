import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { STACK_DEFAULTS } from '../../src/shared/defaults/stack';
import { postgresBinDirectory, preparePostgres, type PostgresCluster } from '../../dev/stack/postgres';
import { makeStackDirectory } from '../../dev/stack/stack';
import { freePort } from '../../src/os/ports';

/**
 * The stack's PostgreSQL has no fixed superuser password: a new cluster gets a random one, kept in a 0600 file, and a
 * cluster of an older version (password `temporal`) gets one at its next start, also when that start was cut short.
 * Through real clusters of the machine's PostgreSQL, connecting over TCP on 127.0.0.1 as any local account would.
 */

jest.setTimeout(120_000);

const log = (line: string) => process.stderr.write(`[postgres] ${line}\n`);
let parent: string;
let running: PostgresCluster | undefined;

beforeAll(async () => {
  // As the stack's own folder: as root, the `postgres` user that runs the clusters must pass through it.
  parent = await mkdtemp(path.join(os.tmpdir(), 'stack-postgres-'));
  await makeStackDirectory(parent);
});

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

afterAll(async () => {
  if (parent !== undefined) await rm(parent, { recursive: true, force: true });
});

/** Connects as the stack's superuser with `password`, as another local account could; resolves to psql's answer. */
async function connectWith(port: number, password: string): Promise<{ ok: boolean; output: string }> {
  const psql = path.join(await postgresBinDirectory(), 'psql');
  return new Promise((resolve) => {
    execFile(
      psql,
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        STACK_DEFAULTS.postgresUser,
        '-d',
        'postgres',
        '-w',
        '-Atc',
        'SELECT 1',
      ],
      { env: { PATH: process.env.PATH, PGPASSWORD: password } },
      (error, stdout, stderr) => resolve({ ok: error === null, output: `${stdout}${stderr}`.trim() }),
    );
  });
}

async function started(directory: string, lines: string[] = []): Promise<PostgresCluster> {
  const cluster = await preparePostgres(directory, await freePort(), (line) => {
    lines.push(line);
    log(line);
  });
  await cluster.start();
  running = cluster;
  return cluster;
}

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe("the stack's PostgreSQL superuser", () => {
  test('a new cluster has a random password in a 0600 file: temporal/temporal is refused', async () => {
    const directory = path.join(parent, 'new');
    const cluster = await started(directory);
    const password = (await readFile(path.join(directory, 'password'), 'utf8')).trim();
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    expect(cluster.password).toBe(password);
    expect(await modeOf(path.join(directory, 'password'))).toBe(0o600);
    expect(await modeOf(directory)).toBe(0o700);
    expect(await modeOf(path.join(directory, 'postgres.log'))).toBe(0o600);

    const legacy = await connectWith(cluster.port, 'temporal');
    expect(legacy).toEqual({ ok: false, output: expect.stringMatching(/password authentication failed/) });
    expect(await connectWith(cluster.port, password)).toEqual({ ok: true, output: '1' });
    expect(await cluster.sql('SELECT rolsuper FROM pg_roles WHERE rolname = current_user')).toBe('t');

    // A second cluster gets a password of its own.
    await cluster.stop();
    running = undefined;
    const other = await started(path.join(parent, 'other'));
    expect(other.password).toMatch(/^[0-9a-f]{48}$/);
    expect(other.password).not.toBe(password);
  });

  test("a cluster of an older version (password 'temporal', no password file) starts, and its password is replaced", async () => {
    const directory = path.join(parent, 'legacy');
    // An older version's cluster: its superuser's password is `temporal`, and there is no password file.
    const made = await started(directory);
    await made.sql(`ALTER ROLE "${made.user}" WITH PASSWORD '${STACK_DEFAULTS.legacyPostgresPassword}'`);
    await made.stop();
    running = undefined;
    await rm(path.join(directory, 'password'));
    await writeFile(path.join(directory, 'initdb-password'), 'temporal\n', { mode: 0o644 });
    // Its folder and log as older versions made them: readable by every account.
    await chmod(directory, 0o755);
    await chmod(path.join(directory, 'postgres.log'), 0o644);

    const lines: string[] = [];
    const cluster = await started(directory, lines);
    expect(lines.join('\n')).toMatch(/Replaced the cluster's fixed superuser password with a random one/);
    const password = (await readFile(path.join(directory, 'password'), 'utf8')).trim();
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    expect(cluster.password).toBe(password);
    expect(await modeOf(path.join(directory, 'password'))).toBe(0o600);
    expect(existsSync(path.join(directory, 'password.new'))).toBe(false);
    expect(existsSync(path.join(directory, 'initdb-password'))).toBe(false);
    expect(await modeOf(directory)).toBe(0o700);
    expect(await modeOf(path.join(directory, 'postgres.log'))).toBe(0o600);
    expect((await connectWith(cluster.port, 'temporal')).ok).toBe(false);
    expect(await connectWith(cluster.port, password)).toEqual({ ok: true, output: '1' });
    await cluster.stop();
    running = undefined;

    // A start that changed the password but stopped before keeping the file: the next one recognises the new password.
    await rename(path.join(directory, 'password'), path.join(directory, 'password.new'));
    const again = await started(directory);
    expect(again.password).toBe(password);
    expect((await readFile(path.join(directory, 'password'), 'utf8')).trim()).toBe(password);
    expect(await again.sql('SELECT 1')).toBe('1');
  });
});
