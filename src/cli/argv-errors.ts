/**
 * Our own words for a bad command line, in place of node:util parseArgs' messages (which quote
 * its own spec syntax, e.g. "Option '--name <value>' argument missing"): an unknown word gets a
 * "did you mean" when one is close, a missing value names the placeholder the help uses.
 */
import { parseArgs } from 'node:util';
import { type Command, placeholderOf } from './command.ts';

/**
 * The closest of `candidates` to `word`: edit distance at most 2 (at most 1 for words of up to
 * 3 letters), or `word` is a prefix of exactly one candidate. Undefined when none is close.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const prefixed = candidates.filter((c) => word.length >= 2 && c.startsWith(word));
  if (prefixed.length === 1) return prefixed[0];
  const limit = word.length <= 3 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const d = editDistance(word, c, limit + 1);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** Levenshtein distance of `a` and `b` (insert, delete, substitute, transpose), capped at `cap`. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0][j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2][j - 2] + 1);
      }
      rows[i][j] = d;
    }
  }
  return Math.min(rows[a.length][b.length], cap);
}

/**
 * Explains why `args` do not parse against `cmd.options`, in our words: an unknown option (with
 * the closest known one), a string option without its value, a boolean option given a value.
 * Returns undefined when no such fault is found (the caller falls back to parseArgs' message).
 */
export function explainBadArgs(cmd: Command, args: string[]): string | undefined {
  let tokens;
  try {
    tokens = parseArgs({
      args,
      options: cmd.options,
      allowPositionals: true,
      strict: false,
      tokens: true,
    }).tokens;
  } catch {
    return undefined;
  }
  const known = Object.keys(cmd.options);
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const spec = cmd.options[t.name];
    if (!spec) {
      const guess = t.rawName.startsWith('--') ? closest(t.name, known) : undefined;
      return `unknown option ${t.rawName}` + (guess ? ` (did you mean --${guess}?)` : '');
    }
    const placeholder = placeholderOf(cmd, t.name);
    if (spec.type === 'string') {
      if (t.value === undefined) return `${t.rawName} needs a value (${t.rawName} ${placeholder})`;
      if (!t.inlineValue && t.value.startsWith('-')) {
        return `${t.rawName} needs a value, got the option '${t.value}' ` +
          `(a value that starts with '-' is written ${t.rawName}=${placeholder})`;
      }
    } else if (t.inlineValue) {
      return `${t.rawName} takes no value (got '${t.value}')`;
    }
  }
  return undefined;
}
