/**
 * What each line of a screen matches, tested once per distinct line: the answer of every
 * line-local pattern of a manifest (its rules' and its `[activity]`'s) on one line, as a
 * bit mask, kept by the line's text. A region's answers are the OR of its lines' masks: a
 * line-local pattern matches a text exactly when it matches one of its lines
 * ({@link Pattern.lineLocal}). So a screen that changed one row (a spinner frame) costs the
 * tests of that one new line, and the bits of the others are looked up. Pure: no I/O.
 *
 * Memory: one cache per manifest object, shared by every pane that uses it (the lines of
 * one agent's screens repeat across panes: footers, input boxes), at most
 * {@link MAX_CACHED_LINES} lines (emptied when full).
 */
import type { Manifest } from './manifest.ts';
import { findMatch, hasLiterals, type Pattern } from './patterns.ts';

/** The most lines one manifest's cache holds before it is emptied. */
export const MAX_CACHED_LINES = 20_000;

/** Pattern bits per word: 30, so that every word is a small integer (a V8 Smi). */
export const BITS_PER_WORD = 30;

/** A set of pattern bits: word k holds the patterns 30k..30k+29. */
export type Bits = readonly number[];

/**
 * The line-local patterns of one manifest, each with a bit, and the masks of lines seen. The
 * other patterns' required literal groups ({@link Pattern.literals}) have a bit each too,
 * after the patterns' (set when the line holds a piece of the group): a piece holds no '\n',
 * so a text holds one exactly when one of its lines does, and a region whose lines lack a
 * group's bit cannot match that pattern ({@link hasLiterals}) without its text being joined.
 */
export class LineFacts {
  /** The distinct line-local patterns, by bit. */
  readonly patterns: readonly Pattern[];
  readonly #bit = new Map<Pattern, number>();
  /** The distinct literal groups of the other patterns, by bit after the patterns'. */
  readonly #groups: (readonly string[])[] = [];
  /** The bits of each other pattern's literal groups (a mask), by pattern. */
  readonly #groupMasks = new Map<Pattern, Bits>();
  /** Words per mask. */
  readonly words: number;
  readonly #cache = new Map<string, number[]>();
  readonly #matches = new Map<Pattern, Map<string, string | null>>();

  constructor(patterns: Iterable<Pattern>) {
    const list: Pattern[] = [];
    const others: Pattern[] = [];
    for (const p of patterns) {
      if (!p.lineLocal) {
        if (!others.includes(p)) others.push(p);
        continue;
      }
      if (this.#bit.has(p)) continue;
      this.#bit.set(p, list.length);
      list.push(p);
    }
    this.patterns = list;
    const groupBit = new Map<string, number>();
    const groupBitsOf = new Map<Pattern, number[]>();
    for (const p of others) {
      const bits: number[] = [];
      for (const group of p.literals) {
        if (group.some((piece) => piece.includes('\n'))) continue;
        const key = JSON.stringify(group);
        let bit = groupBit.get(key);
        if (bit === undefined) {
          groupBit.set(key, bit = list.length + this.#groups.length);
          this.#groups.push(group);
        }
        bits.push(bit);
      }
      groupBitsOf.set(p, bits);
    }
    this.words = Math.max(1, Math.ceil((list.length + this.#groups.length) / BITS_PER_WORD));
    for (const [p, bits] of groupBitsOf) this.#groupMasks.set(p, maskOfBits(bits, this.words));
  }

  /** The bit of `pattern`, or -1 when it is not line-local. */
  bitOf(pattern: Pattern): number {
    return this.#bit.get(pattern) ?? -1;
  }

  /**
   * For a pattern that is not line-local: the bits of its required literal groups, all of
   * which a region's lines must have for it to match there (none: no bit). Null for a
   * line-local pattern or one not of this manifest.
   */
  literalBitsOf(pattern: Pattern): Bits | null {
    return this.#groupMasks.get(pattern) ?? null;
  }

  /** The patterns `line` (one line: no '\n') matches, tested on its first sight. */
  lineMask(line: string): Bits {
    let mask = this.#cache.get(line);
    if (mask === undefined) {
      mask = new Array<number>(this.words).fill(0);
      const n = this.patterns.length;
      for (let j = 0; j < n; j++) {
        const p = this.patterns[j];
        if (hasLiterals(p, line) && p.re.test(line)) {
          mask[Math.floor(j / BITS_PER_WORD)] |= 1 << (j % BITS_PER_WORD);
        }
      }
      for (let g = 0; g < this.#groups.length; g++) {
        const group = this.#groups[g];
        let found = false;
        for (let i = 0; i < group.length && !found; i++) found = line.includes(group[i]);
        if (found) mask[Math.floor((n + g) / BITS_PER_WORD)] |= 1 << ((n + g) % BITS_PER_WORD);
      }
      if (this.#cache.size >= MAX_CACHED_LINES) this.#cache.clear();
      this.#cache.set(line, mask);
    }
    return mask;
  }

  /**
   * The patterns a text made of `lines` (joined with '\n') matches, the OR of theirs, into
   * `out[at .. at + words)`.
   */
  maskInto(lines: readonly string[], out: number[], at: number): void {
    const words = this.words;
    for (let k = 0; k < words; k++) out[at + k] = 0;
    for (let i = 0; i < lines.length; i++) {
      const m = this.lineMask(lines[i]);
      for (let k = 0; k < words; k++) out[at + k] |= m[k];
    }
  }

  /**
   * The leftmost match of `pattern` in `line` ({@link findMatch}), kept per line while the
   * line is cached.
   */
  firstMatch(pattern: Pattern, line: string): string | null {
    let byLine = this.#matches.get(pattern);
    if (!byLine) this.#matches.set(pattern, byLine = new Map());
    let m = byLine.get(line);
    if (m === undefined) {
      m = findMatch(pattern, line);
      if (byLine.size >= MAX_CACHED_LINES) byLine.clear();
      byLine.set(line, m);
    }
    return m;
  }

  /** Lines cached now (for tests and the benchmark). */
  get size(): number {
    return this.#cache.size;
  }
}

/** True when `bit` is set in the mask at `mask[at ..]`. */
export function hasBit(mask: Bits, bit: number, at = 0): boolean {
  return (mask[at + Math.floor(bit / BITS_PER_WORD)] & (1 << (bit % BITS_PER_WORD))) !== 0;
}

/** The mask of `bits` (bit numbers; negative ones left out), `words` words long. */
export function maskOfBits(bits: Iterable<number>, words: number): number[] {
  const out = new Array<number>(words).fill(0);
  for (const b of bits) if (b >= 0) out[Math.floor(b / BITS_PER_WORD)] |= 1 << (b % BITS_PER_WORD);
  return out;
}

const facts = new WeakMap<Manifest, LineFacts>();

/** The {@link LineFacts} of `manifest`'s rules and activity (one per manifest object). */
export function lineFactsOf(manifest: Manifest): LineFacts {
  let f = facts.get(manifest);
  if (!f) {
    f = new LineFacts([
      ...manifest.rules.flatMap((r) => [...r.all, ...r.none, ...r.any]),
      ...(manifest.activity?.any ?? []),
    ]);
    facts.set(manifest, f);
  }
  return f;
}
