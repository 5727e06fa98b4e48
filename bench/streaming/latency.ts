import type { SentChunk } from '../../src/scripted-model/stream-reply';

/** When each text delta was received, by its place among the answer's text chunks. */
export type Received = Map<number, number>;

/** Milliseconds from the scripted server writing each text chunk to a follower receiving it. */
export function latencies(sent: readonly SentChunk[], received: Received): number[] {
  const textChunks = sent.filter((chunk) => chunk.text !== '');
  return textChunks.flatMap((chunk, index) => {
    const at = received.get(index);
    return at === undefined ? [] : [at - chunk.at];
  });
}

/** The wall clock, fractional ms since the epoch: the scripted server stamps chunks the same way. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** p50, p95 and max of `values`, and how many. */
export function summary(values: readonly number[]): string {
  const sorted = [...values].sort((left, right) => left - right);
  const at = (fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
  return `p50 ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms, max ${(sorted.at(-1) ?? Number.NaN).toFixed(0)} ms (${sorted.length} deltas)`;
}
