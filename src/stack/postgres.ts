import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { STACK_DEFAULTS } from '../shared/defaults/stack';
import { isExecutable, type Log } from '../go-tools/go-tool';
import { readPostmasterPid } from './leftovers';
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

/** Creates the cluster in `directory` if it is not there yet (initdb), on `port`. Does not start it. */
export async function preparePostgres(directory: string, port: number, log: Log): Promise<PostgresCluster> {
  const bin = await postgresBinDirectory();
  const asRoot = userInfo().uid === 0;
  const owner = asRoot ? await postgresUser() : undefined;
  const data = path.join(directory, 'data');
  const logFile = path.join(directory, 'postgres.log');
  const password = STACK_DEFAULTS.postgresPassword;
  const user = STACK_DEFAULTS.postgresUser;
  const command = (program: string, args: string[]): [string, string[]] =>
    owner === undefined
      ? [path.join(bin, program), args]
      : ['runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args]];

  await mkdir(directory, { recursive: true });
  if (owner !== undefined) await chown(directory, owner.uid, owner.gid);
  let fresh = false;
  try {
    await readFile(path.join(data, 'PG_VERSION'), 'utf8');
  } catch {
    fresh = true;
    log(`Creating a PostgreSQL cluster in ${data}.`);
    const passwordFile = path.join(directory, 'initdb-password');
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (owner !== undefined) await chown(passwordFile, owner.uid, owner.gid);
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
    await run(program, args);
  }
  const majorVersion = (await readFile(path.join(data, 'PG_VERSION'), 'utf8')).trim();
  let child: ChildProcess | undefined;

  const cluster: PostgresCluster = {
    address: `127.0.0.1:${port}`,
    port,
    user,
    password,
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
      const out = await import('node:fs').then((fs) => fs.openSync(logFile, 'a'));
      child = spawn(program, args, { stdio: ['ignore', out, out], detached: true });
      await waitUntil(`PostgreSQL on ${cluster.address}`, STACK_DEFAULTS.startTimeoutMs, log, async () => {
        if (child?.exitCode !== null) {
          throw new Error(`PostgreSQL exited (${child?.exitCode}); see ${logFile}.`);
        }
        try {
          await run(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q']);
          return true;
        } catch {
          return false;
        }
      });
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
            await run(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q']);
            return false;
          } catch {
            return true;
          }
        },
      );
    },
    async sql(statement, database = 'postgres') {
      const { stdout } = await run(
        path.join(bin, 'psql'),
        [
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          '-U',
          user,
          '-d',
          database,
          '-Atq',
          '-v',
          'ON_ERROR_STOP=1',
          '-c',
          statement,
        ],
        { env: { ...process.env, PGPASSWORD: password } },
      );
      return stdout.trim();
    },
    pid: () => (child?.exitCode === null && child.signalCode === null ? child.pid : undefined),
  };
  if (fresh) log(`PostgreSQL ${majorVersion} cluster created.`);
  return cluster;
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
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
