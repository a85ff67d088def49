import { createHash } from 'node:crypto';

/**
 * mulberry32: a small, fast, seedable PRNG with good enough statistics for workloads.
 * Hand-written (8 lines): no seedable PRNG is a direct dependency, and this one is public domain.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A number in [0, 1) fixed by its parts alone: the same parts give the same number in any
 * run and in any call order, which keeps fault decisions reproducible under concurrency.
 */
export function uniformOf(...parts: ReadonlyArray<string | number>): number {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  return digest.readUInt32BE(0) / 4_294_967_296;
}

/** Picks one element, weighted. */
export function pickWeighted<T>(random: () => number, choices: ReadonlyArray<readonly [T, number]>): T {
  const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = random() * total;
  for (const [value, weight] of choices) {
    roll -= weight;
    if (roll < 0) return value;
  }
  const last = choices[choices.length - 1];
  if (!last) throw new Error('pickWeighted needs at least one choice');
  return last[0];
}
