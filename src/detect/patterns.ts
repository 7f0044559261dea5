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
  /**
   * A piece of text every match contains ('' when none is known): a text without it cannot
   * match, and is rejected without running RE2 ({@link requiredLiteral}).
   */
  readonly literal: string;
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
    const re = RE2JS.compile(source, RE2JS.MULTILINE);
    return { source, re, literal: requiredLiteral(source) };
  } catch (e) {
    if (e instanceof RE2JSException) {
      const described = (e as { getDescription?: () => string }).getDescription?.();
      throw new PatternSyntaxError(described || e.message);
    }
    throw e;
  }
}

/**
 * True when `pattern` matches somewhere in `text`. The hot path: a text without the pattern's
 * required literal is rejected with one substring search; otherwise RE2's DFA runs.
 */
export function testPattern(pattern: Pattern, text: string): boolean {
  if (pattern.literal && !text.includes(pattern.literal)) return false;
  return pattern.re.test(text);
}

/** Escapes whose letter stands for a class, an assertion or a code point (not itself). */
const SPECIAL_ESCAPE = /[0-9A-Za-z]/;

/**
 * The longest run of characters that every match of the RE2 pattern `source` contains
 * literally, '' when none can be told. Conservative: only the pattern's top level is read
 * (groups and classes count as unknown), an atom under a quantifier breaks the run and is left
 * out, and a top-level `|`, flags (`(?i)`...) or `\Q` quoting give ''. Escaped punctuation
 * (`\.`, `\?`) is literal; an escaped letter or digit (`\s`, `\n`, `\x{a0}`) is not.
 */
export function requiredLiteral(source: string): string {
  if (/\\Q|\(\?(?!:)/.test(source)) return '';
  const runs: string[] = [];
  let run = '';
  let i = 0;
  const end = () => {
    if (run) runs.push(run);
    run = '';
  };
  /** Index just past the group or class that starts at `j`. */
  const skip = (j: number): number => {
    let depth = 0;
    let inClass = false;
    for (; j < source.length; j++) {
      const c = source[j];
      if (c === '\\') j++;
      else if (inClass) {
        if (c === ']') inClass = false;
      } else if (c === '[') {
        inClass = true;
        if (source[j + 1] === '^') j++;
        if (source[j + 1] === ']') j++;
        if (depth === 0) depth = -1; // a class at the top: ends at its ']'
      } else if (c === '(') depth++;
      else if (c === ')') depth--;
      if (!inClass && depth <= 0) return j + 1;
    }
    return source.length;
  };
  while (i < source.length) {
    const c = source[i];
    let literal: string | null = null;
    let next: number;
    if (c === '|') return '';
    if (c === '\\') {
      const e = source[i + 1] ?? '';
      if (e && !SPECIAL_ESCAPE.test(e)) literal = e;
      next = i + 2;
      if ((e === 'p' || e === 'P' || e === 'x') && source[next] === '{') {
        next = source.indexOf('}', next) + 1 || source.length;
      }
    } else if (c === '(' || c === '[') {
      next = skip(i);
    } else if ('.^$'.includes(c)) {
      next = i + 1;
    } else {
      // one code point (a surrogate pair is one character)
      const cp = source.codePointAt(i)!;
      literal = String.fromCodePoint(cp);
      next = i + literal.length;
    }
    const q = source[next];
    if (q === '*' || q === '+' || q === '?' || q === '{') {
      end();
      next++;
      if (q === '{') next = source.indexOf('}', next) + 1 || source.length;
      if (source[next] === '?' || source[next] === '+') next++; // lazy or possessive
    } else if (literal !== null) run += literal;
    else end();
    i = next;
  }
  end();
  return runs.reduce((a, b) => (b.length > a.length ? b : a), '');
}

/** The leftmost match of `pattern` in `text`, or null. Allocates a matcher: not for the hot loop. */
export function findMatch(pattern: Pattern, text: string): string | null {
  const m = pattern.re.matcher(text);
  return m.find() ? (m.group() ?? '') : null;
}
