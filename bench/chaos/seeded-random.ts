/**
 * A small seeded generator (mulberry32), so `--seed` replays the same kill
 * schedule. Not for anything that needs real randomness.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** A number drawn evenly from `[min, max]`. */
export function between(random: () => number, min: number, max: number): number {
  return min + (max - min) * random();
}
