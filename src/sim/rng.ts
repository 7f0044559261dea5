/**
 * The one seeded pseudo-random generator of the project: the simulated agent's and user's
 * choices, the tests' random streams and schedules. A seed gives the same numbers on every
 * machine, so a run or a failing test can be replayed from its seed.
 */

/** A small seeded PRNG (mulberry32): uniform numbers in [0, 1). */
export class Rng {
  #a: number;

  constructor(seed: number) {
    this.#a = (Math.floor(seed) ^ 0x9e3779b9) >>> 0;
  }

  next(): number {
    this.#a = (this.#a + 0x6d2b79f5) >>> 0;
    let t = this.#a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A uniform number in [lo, hi). */
  between(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

/** {@link Rng}'s numbers as a function: uniform in [0, 1), for `seed`. */
export function prng(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}
