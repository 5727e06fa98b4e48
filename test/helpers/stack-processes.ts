import { readdir, readFile } from 'node:fs/promises';

/**
 * The processes of a stack in `directory`, from /proc: every process whose command line or environment names the
 * folder (PostgreSQL's postmaster, Temporal, the web UI, the workers and APIs), and their children (PostgreSQL's
 * backends, whose command lines are their titles). Each as `pid command`.
 */
export async function stackProcesses(directory: string): Promise<string[]> {
  const processes = new Map<number, { parent: number; command: string; environment: string }>();
  for (const name of await readdir('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      // The command in stat is in parentheses and may hold spaces: the parent pid is the second field after it.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const command = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
      const environment = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
      processes.set(pid, { parent, command, environment });
    } catch {
      // It exited while we looked.
    }
  }
  const ours = new Set<number>();
  for (const [pid, { command, environment }] of processes) {
    if (command.includes(directory) || environment.includes(directory)) ours.add(pid);
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, { parent }] of processes) {
      if (!ours.has(pid) && ours.has(parent)) {
        ours.add(pid);
        grew = true;
      }
    }
  }
  return [...ours].map((pid) => `${pid} ${processes.get(pid)?.command.slice(0, 160)}`);
}
