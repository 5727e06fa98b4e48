import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, readdir, readFile, rename, rm } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { STACK_DEFAULTS } from '../../src/shared/defaults/stack';
import { isExecutable, type Log } from '../../src/dev-server/go-tool';
import { readPostmasterPid } from './leftovers';
import { makePrivateDirectory, openPrivateLog, writePrivateFile } from './private-files';
import { serviceEnvironment } from './service-environment';
import { waitUntil } from './wait-until';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of the stack's own, from the machine's PostgreSQL package (Debian's `postgresql`): its own
 * data folder and port, started and stopped by the stack, never the machine's own cluster. PostgreSQL refuses to run
 * as root, so as root every command runs as the `postgres` user the package created (`runuser`), and the folder
 * belongs to that user.
 */
export interface PostgresCluster {
  /** 127.0.0.1:<port>. */
  address: string;
  port: number;
  user: string;
  password: string;
  /** The major version that runs, e.g. 15. */
  majorVersion: string;
  /** Starts the server on its folder and waits until it accepts connections. */
  start(): Promise<void>;
  /** Fast shutdown (`pg_ctl stop -m fast`). */
  stop(): Promise<void>;
  /** SIGKILLs the postmaster (a crash: the next start recovers from the WAL). */
  kill(): Promise<void>;
  /** Runs SQL as the superuser, in `database` (default postgres). */
  sql(statement: string, database?: string): Promise<string>;
  pid(): number | undefined;
}

/**
 * Where the server's programs are: `pg_config --bindir` when it names a folder with `postgres` and `initdb` in it,
 * else the newest `/usr/lib/postgresql/<n>/bin` (Debian's layout: `pg_config` may come from libpq-dev alone, without
 * a server).
 */
export async function postgresBinDirectory(
  where: { env?: NodeJS.ProcessEnv; packageRoot?: string } = {},
): Promise<string> {
  const packageRoot = where.packageRoot ?? '/usr/lib/postgresql';
  const candidates: string[] = [];
  try {
    const { stdout } = await run('pg_config', ['--bindir'], { env: where.env ?? process.env });
    candidates.push(stdout.trim());
  } catch {
    // No pg_config on PATH: look where Debian's package puts the server.
  }
  const versions = await readdir(packageRoot).catch(() => [] as string[]);
  for (const version of versions.filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a))) {
    candidates.push(path.join(packageRoot, version, 'bin'));
  }
  for (const candidate of candidates) {
    if (
      (await isExecutable(path.join(candidate, 'postgres'))) &&
      (await isExecutable(path.join(candidate, 'initdb')))
    ) {
      return candidate;
    }
  }
  throw new Error(
    'PostgreSQL is not installed: `npm run stack` needs its server programs, postgres and initdb (Debian: apt-get ' +
      "install postgresql; macOS: brew install postgresql@15). It starts a cluster of its own; the machine's " +
      `cluster is not used. Looked in: ${candidates.join(', ') || `no pg_config on PATH, no ${packageRoot}`}.`,
  );
}

/** The superuser's password, in `<cluster folder>/password` (0600); a legacy cluster's new one waits in `password.new`. */
const PASSWORD_FILE = 'password';
const NEXT_PASSWORD_FILE = 'password.new';

/**
 * Creates the cluster in `directory` if it is not there yet (initdb, with a random superuser password kept in
 * `<directory>/password`), on `port`. Does not start it. A cluster from before that file (the fixed password
 * `temporal`) gets a random password at its next start.
 */
export async function preparePostgres(directory: string, port: number, log: Log): Promise<PostgresCluster> {
  const bin = await postgresBinDirectory();
  const owner = await clusterOwner();
  const data = path.join(directory, 'data');
  const logFile = path.join(directory, 'postgres.log');
  const user = STACK_DEFAULTS.postgresUser;
  const environment = serviceEnvironment();
  const command = (program: string, args: string[]): [string, string[]] =>
    owner === undefined
      ? [path.join(bin, program), args]
      : ['runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args]];
  const giveToOwner = async (file: string) => {
    if (owner !== undefined) await chown(file, owner.uid, owner.gid);
  };

  await makePrivateDirectory(directory);
  await giveToOwner(directory);
  const passwordFile = path.join(directory, PASSWORD_FILE);
  let fresh = false;
  let password = await readPassword(passwordFile);
  /** Set when the cluster still has the fixed password of older versions: replaced once it runs. */
  let legacy = false;
  if (!existsSync(path.join(data, 'PG_VERSION'))) {
    fresh = true;
    log(`Creating a PostgreSQL cluster in ${data}.`);
    password = newPassword();
    await writePrivateFile(passwordFile, `${password}\n`);
    await giveToOwner(passwordFile);
    const [program, args] = command('initdb', [
      '-D',
      data,
      '-U',
      user,
      '--pwfile',
      passwordFile,
      '--auth',
      'scram-sha-256',
      '--encoding',
      'UTF8',
      '--no-instructions',
    ]);
    await run(program, args, { env: environment });
  } else if (password === undefined) {
    legacy = true;
    const nextFile = path.join(directory, NEXT_PASSWORD_FILE);
    password = await readPassword(nextFile);
    if (password === undefined) {
      password = newPassword();
      await writePrivateFile(nextFile, `${password}\n`);
    }
  }
  const superuserPassword = password;
  const majorVersion = (await readFile(path.join(data, 'PG_VERSION'), 'utf8')).trim();
  let child: ChildProcess | undefined;

  const cluster: PostgresCluster = {
    address: `127.0.0.1:${port}`,
    port,
    user,
    password: superuserPassword,
    majorVersion,
    async start() {
      // The postmaster runs in the foreground as a child of this process: a crash of the stack takes it along.
      const [program, args] = command('postgres', [
        '-D',
        data,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${directory}`,
        '-c',
        `max_connections=${STACK_DEFAULTS.postgresMaxConnections}`,
        '-c',
        'logging_collector=off',
      ]);
      const out = await openPrivateLog(logFile);
      try {
        child = spawn(program, args, { stdio: ['ignore', out.fd, out.fd], env: environment, detached: true });
      } finally {
        await out.close();
      }
      await waitUntil(`PostgreSQL on ${cluster.address}`, STACK_DEFAULTS.startTimeoutMs, log, async () => {
        if (child?.exitCode !== null) {
          throw new Error(`PostgreSQL exited (${child?.exitCode}); see ${logFile}.`);
        }
        try {
          await run(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'], {
            env: environment,
          });
          return true;
        } catch {
          return false;
        }
      });
      if (legacy) {
        await replaceLegacyPassword(cluster, directory);
        legacy = false;
        log(`Replaced the cluster's fixed superuser password with a random one, kept in ${passwordFile}.`);
      }
    },
    async stop() {
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      // Fast shutdown, sent to the postmaster itself: runuser does not pass SIGINT on.
      const postmaster = await readPostmasterPid(data);
      if (postmaster === undefined) child.kill('SIGINT');
      else process.kill(postmaster, 'SIGINT');
      await exited;
    },
    async kill() {
      const pid = cluster.pid();
      if (pid === undefined) return;
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      // runuser forwards signals; as root the postmaster is runuser's child, so kill the whole process group.
      const postmaster = await readPostmasterPid(data);
      // Its backends, found before the kill: they outlive the postmaster for a moment, attached to its shared memory.
      const backends = postmaster === undefined ? [] : await childrenOf(postmaster);
      if (postmaster !== undefined) process.kill(postmaster, 'SIGKILL');
      child?.kill('SIGKILL');
      await exited;
      // Its backends notice the postmaster is gone and exit; wait for the port to close, for the postmaster to be
      // reaped (until then its pid still answers in postmaster.pid and a start refuses: "lock file exists") and for
      // every backend to be gone (until then a start refuses: "pre-existing shared memory block is still in use").
      await waitUntil(
        'PostgreSQL to exit',
        10_000,
        () => undefined,
        async () => {
          if (postmaster !== undefined && existsSync(`/proc/${postmaster}`)) return false;
          if (backends.some((backend) => existsSync(`/proc/${backend}`))) return false;
          try {
            await run(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'], {
              env: environment,
            });
            return false;
          } catch {
            return true;
          }
        },
      );
    },
    sql: (statement, database = 'postgres') =>
      psql(path.join(bin, 'psql'), { port, user, password: superuserPassword, database }, statement),
    pid: () => (child?.exitCode === null && child.signalCode === null ? child.pid : undefined),
  };
  if (fresh) log(`PostgreSQL ${majorVersion} cluster created.`);
  return cluster;
}

/** A new superuser password: random, hex. */
function newPassword(): string {
  return randomBytes(STACK_DEFAULTS.postgresPasswordBytes).toString('hex');
}

async function readPassword(file: string): Promise<string | undefined> {
  try {
    const password = (await readFile(file, 'utf8')).trim();
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}

/**
 * Gives a running cluster of an older version (superuser password `temporal`) the password waiting in
 * `password.new`, then makes that the cluster's `password`. Safe to repeat after a crash at any step: a cluster that
 * already took the new password is recognised by it.
 */
async function replaceLegacyPassword(cluster: PostgresCluster, directory: string): Promise<void> {
  const psqlPath = path.join(await postgresBinDirectory(), 'psql');
  const target = { port: cluster.port, user: cluster.user, database: 'postgres' };
  try {
    await psql(
      psqlPath,
      { ...target, password: STACK_DEFAULTS.legacyPostgresPassword },
      `ALTER ROLE "${cluster.user}" WITH PASSWORD '${cluster.password}'`,
    );
  } catch (error) {
    // Changed already, by a start that stopped before it renamed the file: the new password must work.
    await psql(psqlPath, { ...target, password: cluster.password }, 'SELECT 1').catch(() => {
      throw new Error(
        `The PostgreSQL cluster in ${directory} has no ${PASSWORD_FILE} file and refuses the old fixed password: ` +
          `start it once with \`npm run stack -- --fresh\` (a new, empty database).`,
        { cause: error },
      );
    });
  }
  await rename(path.join(directory, NEXT_PASSWORD_FILE), path.join(directory, PASSWORD_FILE));
  // Older versions left the fixed password in the file they gave initdb.
  await rm(path.join(directory, 'initdb-password'), { force: true });
}

/**
 * Runs SQL through psql on 127.0.0.1: the statement goes on its standard input, the password in its environment,
 * neither on a command line that every local account can read in /proc.
 */
function psql(
  program: string,
  target: { port: number; user: string; password: string; database: string },
  statement: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      program,
      ['-h', '127.0.0.1', '-p', String(target.port), '-U', target.user, '-d', target.database, '-w', '-Atq'],
      { env: serviceEnvironment({ PGPASSWORD: target.password }) },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout.trim());
        else reject(new Error(`psql failed: ${stderr.trim() || error.message}`, { cause: error }));
      },
    );
    child.stdin?.end(`\\set ON_ERROR_STOP 1\n${statement};\n`);
  });
}

/**
 * Who runs the cluster when it is not this process's user: as root, the `postgres` user of the machine's package
 * (PostgreSQL refuses to run as root). The stack's folder then lets that user's group pass through it (0710).
 */
export async function clusterOwner(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  try {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    return { uid: Number(stdout.trim()), gid: Number(group.trim()) };
  } catch {
    throw new Error('Running as root, the stack runs PostgreSQL as the `postgres` user, which does not exist here.');
  }
}

/** The processes whose parent is `pid` (from /proc: PostgreSQL's backends under its postmaster). */
async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // Field 4 is the parent's pid; field 2, the command, is in parentheses and may hold spaces.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}
