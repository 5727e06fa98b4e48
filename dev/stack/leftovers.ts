import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isAlive } from '../../src/dev-server/dev-server';

/**
 * The pids of a running stack, in `<directory>/pids.json`. A stack whose own process was SIGKILLed leaves its
 * children running (PostgreSQL, Temporal, the workers); the next start in that folder stops them first, so it never
 * finds its database locked or its ports taken.
 */
const PIDS_FILE = 'pids.json';

/**
 * The environment variable every process of a stack carries (but PostgreSQL, found by its postmaster.pid), set to the
 * stack's folder: a start stops what carries its folder, also a part that was still starting (not yet in pids.json)
 * when the stack was killed. Not read by the package.
 */
export const STACK_MARKER = 'AGENT_RUNNER_STACK';

export async function recordPids(directory: string, pids: Record<string, number | undefined>): Promise<void> {
  await writeFile(path.join(directory, PIDS_FILE), `${JSON.stringify(pids, null, 2)}\n`);
}

/** SIGKILLs what an earlier stack in `directory` left running; returns the names of what it stopped. */
export async function stopLeftovers(directory: string): Promise<string[]> {
  let pids: Record<string, number | undefined>;
  try {
    pids = JSON.parse(await readFile(path.join(directory, PIDS_FILE), 'utf8')) as Record<string, number | undefined>;
  } catch {
    pids = {};
  }
  const postmaster = await readPostmasterPid(path.join(directory, 'postgres', 'data'));
  if (postmaster !== undefined) pids.postmaster = postmaster;
  const recorded = new Set(Object.values(pids));
  for (const pid of await markedProcesses(directory)) if (!recorded.has(pid)) pids[`process ${pid}`] = pid;
  const ours: Array<[string, number]> = [];
  for (const [name, pid] of Object.entries(pids)) {
    if (pid !== undefined && isAlive(pid) && (await belongsTo(pid, directory))) ours.push([name, pid]);
  }
  await refuseWhileOwned(directory, ours);
  const stopped: string[] = [];
  for (const [name, pid] of ours) {
    process.kill(pid, 'SIGKILL');
    stopped.push(name);
  }
  // The killed postmaster's backends exit once they notice it is gone.
  for (
    let waited = 0;
    waited < 10_000 && Object.values(pids).some((pid) => pid !== undefined && isAlive(pid));
    waited += 100
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return stopped;
}

/**
 * Throws when a part of the stack still has its stack as parent: a Node process (another `npm run stack`, a test) that
 * is alive. Leftovers of a killed stack have lost that parent (they belong to init, or to a subreaper such as
 * `systemd --user`, which is not Node). This process's own parts are its to stop, as before.
 */
async function refuseWhileOwned(directory: string, parts: Array<[string, number]>): Promise<void> {
  const pids = new Set(parts.map(([, pid]) => pid));
  for (const [name, pid] of parts) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // The command in stat is in parentheses and may hold spaces: the parent pid is the second field after it.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isInteger(parent) || parent <= 1 || parent === process.pid || pids.has(parent)) continue;
    const command = (await readFile(`/proc/${parent}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (path.basename(command[0] ?? '') === 'node') {
      throw new Error(
        `A stack is running in ${directory}: its ${name} (pid ${pid}) belongs to process ${parent}. Stop that one ` +
          'first (Ctrl-C where it runs), or start this one in another folder.',
      );
    }
  }
}

/** The processes whose environment carries the stack's marker for `directory`. */
async function markedProcesses(directory: string): Promise<number[]> {
  const marker = `${STACK_MARKER}=${directory}`;
  const found: number[] = [];
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const environment = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    if (environment.split('\0').includes(marker)) found.push(pid);
  }
  return found;
}

/** Whether the process's command line names the stack's folder (so a reused pid is never killed). */
async function belongsTo(pid: number, directory: string): Promise<boolean> {
  try {
    const commandLine = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ');
    const environment = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    return commandLine.includes(directory) || environment.includes(directory);
  } catch {
    return false;
  }
}

/** The postmaster's pid, from the first line of postmaster.pid. */
export async function readPostmasterPid(data: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(path.join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
