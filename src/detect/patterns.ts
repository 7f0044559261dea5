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
   * What every match contains literally: for each group, at least one of its pieces ([] when
   * nothing is known). A text missing a group cannot match, and is rejected without running
   * RE2 ({@link requiredLiterals}).
   */
  readonly literals: readonly (readonly string[])[];
  /**
   * True when the text matches exactly when one of its lines does (split at '\n'), so only
   * the lines holding a required literal need RE2 ({@link isLineLocal}).
   */
  readonly lineLocal: boolean;
  /**
   * True when every match lies in one line: the leftmost match is found in the lines that
   * hold the literals ({@link findMatch}). Implies {@link lineLocal}; a leading `^\s*` makes a
   * pattern line-local for tests but not this (its match may start lines above).
   */
  readonly matchesInLine: boolean;
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
    return {
      source,
      re,
      literals: requiredLiterals(source),
      lineLocal: isLineLocal(source),
      matchesInLine: isLineLocal(source, false),
    };
  } catch (e) {
    if (e instanceof RE2JSException) {
      const described = (e as { getDescription?: () => string }).getDescription?.();
      throw new PatternSyntaxError(described || e.message);
    }
    throw e;
  }
}

/**
 * True when `pattern` matches somewhere in `text`. The hot path: a text without any of the
 * pattern's required literals is rejected with substring searches; a line-local pattern runs
 * RE2 only on the lines that hold its literals; otherwise RE2's DFA runs on the whole text.
 */
export function testPattern(pattern: Pattern, text: string): boolean {
  if (!hasLiterals(pattern, text)) return false;
  const literals = pattern.literals;
  if (!pattern.lineLocal || literals.length === 0) return pattern.re.test(text);
  const lines = candidateLines(pattern, text);
  if (lines === null) return pattern.re.test(text);
  for (let k = 0; k < lines.length; k++) if (pattern.re.test(lines[k])) return true;
  return false;
}

/** True when `text` holds a piece of every required literal group of `pattern`. */
export function hasLiterals(pattern: Pattern, text: string): boolean {
  const literals = pattern.literals;
  for (let g = 0; g < literals.length; g++) {
    const group = literals[g];
    let found = false;
    for (let i = 0; i < group.length && !found; i++) found = text.includes(group[i]);
    if (!found) return false;
  }
  return true;
}

/** Beyond this many candidate lines a line-local test runs RE2 on the whole text instead. */
const MAX_CANDIDATE_LINES = 16;

/**
 * The lines of `text` (without their '\n') that hold a piece of every literal group of the
 * line-local `pattern`, top first; null when there are more than {@link MAX_CANDIDATE_LINES}.
 * Every match of a line-local pattern lies in one line and holds a piece of every group, so a
 * match can only be in these lines.
 */
function candidateLines(pattern: Pattern, text: string): string[] | null {
  const [first, ...rest] = pattern.literals;
  const starts: number[] = [];
  for (const piece of first) {
    let at = text.indexOf(piece);
    while (at >= 0) {
      const start = text.lastIndexOf('\n', at - 1) + 1;
      if (!starts.includes(start)) starts.push(start);
      if (starts.length > MAX_CANDIDATE_LINES) return null;
      const end = text.indexOf('\n', at);
      if (end < 0) break;
      at = text.indexOf(piece, end + 1);
    }
  }
  if (first.length > 1) starts.sort((a, b) => a - b);
  const out: string[] = [];
  for (const start of starts) {
    const nl = text.indexOf('\n', start);
    const line = text.slice(start, nl < 0 ? text.length : nl);
    if (rest.every((group) => group.some((piece) => line.includes(piece)))) out.push(line);
  }
  return out;
}

/** The flags of RE2's empty-width assertions `\A` and `\z` (re2js 2.10 `Utils.EMPTY_*`). */
const EMPTY_BEGIN_TEXT = 4;
const EMPTY_END_TEXT = 8;

/** The parts of a compiled re2js 2.10 program that {@link isLineLocal} reads. */
interface ProgramView {
  re2Input?: {
    prog?: { inst?: { op: number; arg: number; matchRune(r: number): boolean }[] };
  };
}

/**
 * Whether the text matches `source` (with MULTILINE) exactly when one of its lines does:
 * true when no match can hold a '\n' and the pattern has no `\A`, `\z` or look-behind. A
 * line then sees what the text shows around it (`^`, `$` and `\b` read a line's edges as the
 * text's '\n' or ends), so a match in a line is a match in the text and back. A top-level
 * branch starting `^\s*` counts as starting `^[^\S\n]*`: if `\s*` crosses line ends, the
 * same rest also matches from the start of the line it ends in. Read from RE2's compiled
 * program (re2js 2.10 opcodes: RUNE 8, RUNE1 9, RUNE_ANY 10, EMPTY_WIDTH 4, look-behind 12
 * and 13); false when the program cannot be read. With `leadingBlanks` false, `^\s*` is read
 * as written: true then means that every match lies in one line.
 */
export function isLineLocal(source: string, leadingBlanks = true): boolean {
  if (source.includes('\\Q')) return false; // quoted: its '|' and '^\s*' are text
  let program: ProgramView;
  try {
    program = RE2JS.compile(
      leadingBlanks ? leadingBlanksInLine(source) : source,
      RE2JS.MULTILINE,
    ) as unknown as ProgramView;
  } catch {
    return false;
  }
  const inst = program.re2Input?.prog?.inst;
  if (!Array.isArray(inst)) return false;
  for (const i of inst) {
    if (typeof i?.op !== 'number') return false;
    if (i.op === 8 || i.op === 9) {
      if (typeof i.matchRune !== 'function' || i.matchRune(10)) return false;
    } else if (i.op === 10 || i.op === 12 || i.op === 13) return false;
    else if (i.op === 4 && (i.arg & (EMPTY_BEGIN_TEXT | EMPTY_END_TEXT)) !== 0) return false;
    else if (i.op > 13) return false;
  }
  return true;
}

/** `source` with each top-level branch's leading `^\s*` written `^[^\S\n]*`. */
function leadingBlanksInLine(source: string): string {
  let out = '';
  let start = 0;
  let i = 0;
  while (i <= source.length) {
    if (i === source.length || source[i] === '|') {
      const branch = source.slice(start, i);
      out += (branch.startsWith('^\\s*') ? '^[^\\S\\n]*' + branch.slice(4) : branch) +
        (i < source.length ? '|' : '');
      start = i + 1;
      i++;
    } else if (source[i] === '\\') i += 2;
    else if (source[i] === '(' || source[i] === '[') i = skipGroup(source, i);
    else i++;
  }
  return out;
}

/** Escapes whose letter stands for a class, an assertion or a code point (not itself). */
const SPECIAL_ESCAPE = /[0-9A-Za-z]/;

/**
 * What every match of the RE2 pattern `source` contains literally, as groups of pieces: each
 * match holds at least one piece of every group ([] when nothing can be told). Read
 * conservatively: a run of literal characters in a sequence is a group of one; a group `(...)`
 * not under a quantifier whose every branch requires something is a group of the branches'
 * pieces (each branch's strongest: its shortest piece longest); an atom under a quantifier
 * breaks a run and is left out; a class, an escaped letter or digit (`\s`, `\n`, `\x{a0}`)
 * or `.` is unknown; flags (`(?i)`...) or `\Q` quoting give []. At most
 * {@link MAX_LITERAL_GROUPS} groups, the strongest.
 */
export function requiredLiterals(source: string): string[][] {
  if (/\\Q|\(\?(?!:)/.test(source)) return [];
  const groups = alternation(source, 0, source.length) ?? [];
  return groups.sort((a, b) => strength(b) - strength(a)).slice(0, MAX_LITERAL_GROUPS);
}

/** The most literal groups {@link requiredLiterals} keeps (each costs a substring search). */
export const MAX_LITERAL_GROUPS = 3;

/** A group's strength: its shortest piece's length. */
function strength(group: readonly string[]): number {
  return Math.min(...group.map((x) => x.length));
}

/** Index just past the group `(...)` or class `[...]` starting at `j`, escapes respected. */
function skipGroup(source: string, j: number): number {
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
}

/**
 * `source[from, to)` split at its top-level `|`: one branch gives its groups; several give
 * one group, the union of each branch's strongest; null when a branch requires nothing.
 */
function alternation(source: string, from: number, to: number): string[][] | null {
  const branches: string[][][] = [];
  let start = from;
  let i = from;
  while (i <= to) {
    if (i === to || source[i] === '|') {
      const branch = sequence(source, start, i);
      if (!branch) return null;
      branches.push(branch);
      start = i + 1;
      i++;
    } else if (source[i] === '\\') i += 2;
    else if (source[i] === '(' || source[i] === '[') i = skipGroup(source, i);
    else i++;
  }
  if (branches.length === 1) return branches[0];
  const union = new Set<string>();
  for (const groups of branches) {
    const best = groups.reduce((a, b) => (strength(b) > strength(a) ? b : a));
    for (const piece of best) union.add(piece);
  }
  return [[...union]];
}

/** One branch `source[from, to)` (no top-level `|`): its required groups, or null for none. */
function sequence(source: string, from: number, to: number): string[][] | null {
  const candidates: string[][] = [];
  let run = '';
  const end = () => {
    if (run) candidates.push([run]);
    run = '';
  };
  let i = from;
  while (i < to) {
    const c = source[i];
    let literal: string | null = null;
    let group: string[][] | null = null;
    let next: number;
    if (c === '\\') {
      const e = source[i + 1] ?? '';
      if (e && !SPECIAL_ESCAPE.test(e)) literal = e;
      next = i + 2;
      if ((e === 'p' || e === 'P' || e === 'x') && source[next] === '{') {
        next = source.indexOf('}', next) + 1 || to;
      }
    } else if (c === '(') {
      next = Math.min(skipGroup(source, i), to);
      const inner = source.startsWith('(?:', i) ? i + 3 : i + 1;
      group = alternation(source, inner, next - 1);
    } else if (c === '[') {
      next = Math.min(skipGroup(source, i), to);
    } else if ('.^$'.includes(c)) {
      next = i + 1;
    } else {
      literal = String.fromCodePoint(source.codePointAt(i)!); // a surrogate pair is one character
      next = i + literal.length;
    }
    const q = source[next];
    if (next < to && (q === '*' || q === '+' || q === '?' || q === '{')) {
      end();
      next++;
      if (q === '{') next = source.indexOf('}', next) + 1 || to;
      if (source[next] === '?' || source[next] === '+') next++; // lazy or possessive
    } else if (literal !== null) run += literal;
    else {
      end();
      if (group) candidates.push(...group);
    }
    i = next;
  }
  end();
  return candidates.length ? candidates : null;
}

/**
 * The leftmost match of `pattern` in `text`, or null (a pattern whose matches lie in one line
 * is matched in the lines that hold its literals, top first: the same match). Allocates a
 * matcher: not for the hot loop.
 */
export function findMatch(pattern: Pattern, text: string): string | null {
  const lines = pattern.matchesInLine && pattern.literals.length
    ? candidateLines(pattern, text)
    : null;
  for (const line of lines ?? [text]) {
    const m = pattern.re.matcher(line);
    if (m.find()) return m.group() ?? '';
  }
  return null;
}
