import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time and memory of processes, read from Linux's /proc: the scale bench's
 * view of the Temporal server, PostgreSQL and the workers from outside, without
 * asking them (the server has no metrics endpoint configured in the stack).
 */

/** Clock ticks per second of the times in /proc/<pid>/stat (`getconf CLK_TCK`, 100 on Linux). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** One process's line of /proc/<pid>/stat, the fields the bench uses. */
export interface ProcessStat {
  pid: number;
  parentPid: number;
  /** utime + stime: its own CPU seconds. */
  ownSeconds: number;
  /** cutime + cstime: the CPU seconds of its children that exited and were waited for. */
  reapedChildrenSeconds: number;
}

/**
 * Parses /proc/<pid>/stat. The command name (field 2) is in parentheses and may
 * hold spaces or parentheses itself, so the fields are counted from the last ')'.
 */
export function parseStat(line: string): ProcessStat {
  const close = line.lastIndexOf(')');
  const pid = Number(line.slice(0, line.indexOf(' ')));
  // After ')': state(3) ppid(4) pgrp(5) session(6) tty(7) tpgid(8) flags(9) minflt(10) cminflt(11) majflt(12)
  // cmajflt(13) utime(14) stime(15) cutime(16) cstime(17).
  const fields = line
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const field = (number: number) => Number(fields[number - 3]);
  return {
    pid,
    parentPid: field(4),
    ownSeconds: (field(14) + field(15)) / TICKS_PER_SECOND,
    reapedChildrenSeconds: (field(16) + field(17)) / TICKS_PER_SECOND,
  };
}

function readStat(pid: number): ProcessStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined; // exited meanwhile
  }
}

/** Every live process's stat. */
function allStats(): ProcessStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcessStat => stat !== undefined);
}

/**
 * CPU seconds of `pid` and everything under it: its own and its reaped
 * children's times, plus those of its live descendants (and theirs). PostgreSQL
 * is one postmaster and a backend per connection (plus its background
 * processes): a backend that exits is counted in the postmaster's reaped time.
 */
export function treeCpuSeconds(pid: number): number {
  const stats = allStats();
  const children = new Map<number, ProcessStat[]>();
  for (const stat of stats) children.set(stat.parentPid, [...(children.get(stat.parentPid) ?? []), stat]);
  const root = stats.find((stat) => stat.pid === pid);
  if (root === undefined) return Number.NaN;
  let total = 0;
  const pending = [root];
  while (pending.length > 0) {
    const next = pending.pop() as ProcessStat;
    total += next.ownSeconds + next.reapedChildrenSeconds;
    pending.push(...(children.get(next.pid) ?? []));
  }
  return total;
}

/** How many processes `pid` has under it (PostgreSQL's backends). */
export function descendantCount(pid: number): number {
  const stats = allStats();
  let count = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const parent = pending.pop() as number;
    for (const stat of stats) {
      if (stat.parentPid === parent) {
        count += 1;
        pending.push(stat.pid);
      }
    }
  }
  return count;
}

/** The resident set of `pid` in bytes (VmRSS), or NaN once it exited. */
export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? Number.NaN : Number(match[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** The machine's busy and total CPU seconds so far (all cores), from /proc/stat. */
export function machineCpuSeconds(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, ...values] = line.trim().split(/\s+/);
  const ticks = values.map(Number);
  // user nice system idle iowait irq softirq steal (guest times are already in user/nice).
  const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}
