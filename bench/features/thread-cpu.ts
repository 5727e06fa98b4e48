import { readFileSync, readdirSync } from 'node:fs';

/**
 * CPU milliseconds each thread of this process has used, from Linux's `/proc/self/task` (empty elsewhere): which
 * thread a feature's CPU goes to, since `process.cpuUsage()` sums them all (Node's main thread, the workflow
 * threads, V8's and libuv's helpers, and Temporal core's Rust threads, which poll even while a run waits).
 */
export function threadCpuMs(): Map<number, { name: string; ms: number }> {
  const threads = new Map<number, { name: string; ms: number }>();
  let ids: string[];
  try {
    ids = readdirSync('/proc/self/task');
  } catch {
    return threads;
  }
  for (const id of ids) {
    try {
      const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
      // The fields after the parenthesised name; utime and stime are the 14th and 15th fields of the line.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      threads.set(Number(id), { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ms: ticks * 10 });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

/** Adds the CPU each thread used between two readings to `into`. */
export function addThreadCpu(
  into: Map<number, { name: string; ms: number }>,
  before: Map<number, { name: string; ms: number }>,
  after: Map<number, { name: string; ms: number }>,
): void {
  for (const [id, thread] of after) {
    const used = thread.ms - (before.get(id)?.ms ?? 0);
    into.set(id, { name: thread.name, ms: (into.get(id)?.ms ?? 0) + used });
  }
}

/**
 * CPU by kind of thread: `main` (Node's event loop: the client, the activities, span processing and export), `core`
 * (Temporal core's Rust threads), `busiest other` (in a worker, its workflow thread) and `other` (the rest: V8's and
 * libuv's helpers, further workflow threads). Clock ticks are 10 ms, so sum it over many runs.
 */
export function threadKinds(used: Map<number, { name: string; ms: number }>): Record<ThreadKind, number> {
  const kinds: Record<ThreadKind, number> = { main: 0, core: 0, 'busiest other': 0, other: 0 };
  const others: number[] = [];
  for (const [id, thread] of used) {
    if (id === process.pid) kinds.main += thread.ms;
    else if (thread.name.startsWith('tokio')) kinds.core += thread.ms;
    else others.push(thread.ms);
  }
  others.sort((left, right) => right - left);
  kinds['busiest other'] = others[0] ?? 0;
  kinds.other = others.slice(1).reduce((sum, ms) => sum + ms, 0);
  return kinds;
}

export type ThreadKind = 'main' | 'core' | 'busiest other' | 'other';
