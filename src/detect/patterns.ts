/**
 * The regex dialect of manifests: RE2 (re2js), the linear-time engine in the dialect of the
 * Rust `regex` crate the seed used. A pattern pulled from a URL cannot hang the sweep: there is
 * no backtracking, so `(a+)+$` runs in time linear in the screen. Patterns are compiled once,
 * with MULTILINE on, so `^` and `$` match at every line of a region; `\A` and `\z` match at the
 * start and end of the whole region text (use `\z` to demand "this is the last line").
 *
 * Differences from the Rust crate worth knowing when writing rules: `\s`, `\d` and `\w` are
 * ASCII only (Rust's are Unicode), so a no-break space (U+00A0) needs `\x{a0}` or `\pZ`;
 * there are no look-arounds and no backreferences in either.
 */
import { RE2JS, RE2JSException } from 're2js';

/** A compiled manifest pattern with its source text as written in the manifest. */
export interface Pattern {
  /** The pattern as written (without the `(?m)` the compiler adds). */
  readonly source: string;
  /** The compiled program. */
  readonly re: RE2JS;
}

/** A pattern that does not compile; `reason` is RE2's description (e.g. 'missing closing )'). */
export class PatternSyntaxError extends Error {
  override name = 'PatternSyntaxError';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Compiles one manifest pattern with MULTILINE on.
 * @throws PatternSyntaxError when RE2 rejects it (syntax, repeat count over 1000, look-around).
 */
export function compilePattern(source: string): Pattern {
  try {
    return { source, re: RE2JS.compile(source, RE2JS.MULTILINE) };
  } catch (e) {
    if (e instanceof RE2JSException) {
      const described = (e as { getDescription?: () => string }).getDescription?.();
      throw new PatternSyntaxError(described || e.message);
    }
    throw e;
  }
}

/** True when `pattern` matches somewhere in `text`. The hot path: runs on RE2's DFA. */
export function testPattern(pattern: Pattern, text: string): boolean {
  return pattern.re.test(text);
}

/** The leftmost match of `pattern` in `text`, or null. Allocates a matcher: not for the hot loop. */
export function findMatch(pattern: Pattern, text: string): string | null {
  const m = pattern.re.matcher(text);
  return m.find() ? (m.group() ?? '') : null;
}
