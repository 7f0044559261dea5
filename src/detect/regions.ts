/**
 * Regions: where a rule looks. Parsed once from the manifest into the {@link Region} union;
 * their text is computed at most once per evaluation, and only when a rule asks for it.
 *
 * Screen-based regions are built from *logical lines*: a row that soft-wraps (`wrapped[i]`)
 * is joined with the next one, so a rule survives narrow panes and soft wraps. Each logical
 * line has its trailing blanks removed (including U+00A0 and the U+200B that Qwen Code
 * writes after its cursor), and lines are joined with '\n'.
 *
 * Limit: the emulator trims every row, a soft-wrapped one too, so a wrap that falls on a
 * blank joins the two words ("want" + "to" -> "wantto"). Rules that must survive a soft wrap
 * between words can write `\s*` there. (Full-screen agents wrap their own text with hard
 * line breaks, which this does not join: rules anchor on lines, not on phrases across them.)
 */
import type { Region, ScreenInput } from './types.ts';

/** Region names accepted as a plain string in a manifest. */
const NAMED = ['screen', 'title', 'below_last_rule'] as const;
/** The largest `bottom = N` accepted (a screen is rarely taller). */
export const MAX_BOTTOM_LINES = 1000;
/** The largest OSC number accepted in `{ osc = N }`. */
export const MAX_OSC_NUMBER = 65535;
/** A horizontal rule row needs at least this many `─`/`━`. */
export const RULE_MIN_DASHES = 8;

/** Parses a manifest's `region` value; returns the region or a one-line error. */
export function parseRegion(value: unknown): { region: Region } | { error: string } {
  const expected = `expected "screen", "title", "below_last_rule", { bottom = N } or { osc = N }`;
  if (value === undefined) return { region: { kind: 'screen' } };
  if (typeof value === 'string') {
    if ((NAMED as readonly string[]).includes(value)) {
      return { region: { kind: value as (typeof NAMED)[number] } as Region };
    }
    return { error: `unknown region '${value}' (${expected})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { error: `region must be a string or a table (${expected})` };
  }
  const keys = Object.keys(value);
  if (keys.length !== 1 || (keys[0] !== 'bottom' && keys[0] !== 'osc')) {
    return { error: `region table must have exactly one key, bottom or osc (${expected})` };
  }
  const n = (value as Record<string, unknown>)[keys[0]];
  if (keys[0] === 'bottom') {
    if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > MAX_BOTTOM_LINES) {
      return { error: `region bottom must be an integer from 1 to ${MAX_BOTTOM_LINES}` };
    }
    return { region: { kind: 'bottom', lines: n as number } };
  }
  if (!Number.isInteger(n) || (n as number) < 0 || (n as number) > MAX_OSC_NUMBER) {
    return { error: `region osc must be an integer from 0 to ${MAX_OSC_NUMBER}` };
  }
  return { region: { kind: 'osc', number: n as number } };
}

/** The region as a manifest author would name it: 'screen', 'bottom 6', 'osc 7501', ... */
export function regionLabel(region: Region): string {
  switch (region.kind) {
    case 'bottom':
      return `bottom ${region.lines}`;
    case 'osc':
      return `osc ${region.number}`;
    default:
      return region.kind;
  }
}

/** Removes trailing blanks: spaces, tabs, U+00A0 and other White_Space, and U+200B. */
export function trimLineEnd(line: string): string {
  let end = line.length;
  while (end > 0) {
    const c = line.charCodeAt(end - 1);
    if (c === 0x20 || c === 0x09 || c === 0xa0 || c === 0x200b || c === 0x3000) end--;
    else if (c > 0x7f && /\s/.test(line[end - 1])) end--;
    else break;
  }
  return end === line.length ? line : line.slice(0, end);
}

/**
 * True when `line` is a horizontal rule: at least {@link RULE_MIN_DASHES} `─`/`━`, and
 * otherwise only blanks and box-drawing corners or tees (`╭╮╰╯┌┐└┘├┤┬┴┼` and heavy forms).
 */
export function isRuleLine(line: string): boolean {
  let dashes = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x2500 || c === 0x2501) dashes++;
    else if (c === 0x20 || c === 0xa0 || c === 0x09) continue;
    else if (!CORNERS.has(c)) return false;
  }
  return dashes >= RULE_MIN_DASHES;
}

const CORNERS = new Set(
  [...'╭╮╰╯┌┐└┘┏┓┗┛├┤┬┴┼┣┫┳┻╋╴╶╸╺'].map((c) => c.charCodeAt(0)),
);

/**
 * Logical lines of a screen: rows joined across soft wraps, trailing blanks trimmed.
 * Rows past the end of `wrapped` count as not wrapped.
 */
export function logicalLines(screen: ScreenInput): string[] {
  const out: string[] = [];
  const { rows, wrapped } = screen;
  let i = 0;
  while (i < rows.length) {
    let line = rows[i];
    while (wrapped[i] && i + 1 < rows.length) line += rows[++i];
    out.push(trimLineEnd(line));
    i++;
  }
  return out;
}

/** The lines of an empty text. */
const EMPTY_TEXT_LINES: readonly string[] = Object.freeze(['']);

/** `lines`, or the lines of an empty text when there are none. */
function orEmpty(lines: readonly string[]): readonly string[] {
  return lines.length ? lines : EMPTY_TEXT_LINES;
}

/** The end of `lines` from `from` on once trailing blank lines are dropped. */
export function trimmedEnd(lines: readonly string[], from: number): number {
  let end = lines.length;
  while (end > from && lines[end - 1].length === 0) end--;
  return end;
}

/** `lines` from `from` on, trailing blank lines dropped (what {@link joinTrimmed} joins). */
function trimmedLines(lines: readonly string[], from: number): readonly string[] {
  let end = lines.length;
  while (end > from && lines[end - 1].length === 0) end--;
  return from === 0 && end === lines.length ? lines : lines.slice(from, end);
}

/** Joins lines with '\n' after dropping trailing blank lines. */
function joinTrimmed(lines: readonly string[], from: number): string {
  let end = lines.length;
  while (end > from && lines[end - 1].length === 0) end--;
  return from === 0 && end === lines.length ? lines.join('\n') : lines.slice(from, end).join('\n');
}

/**
 * The text of every region of one screen, computed lazily and at most once each. Make one per
 * evaluation; it holds no reference beyond the screen it was made for.
 */
export class RegionTexts {
  readonly #screen: ScreenInput;
  readonly #widest: number;
  #lines: readonly string[] | null;
  #whole: string | null = null;
  #belowRule: string | null = null;
  /** Bottom texts computed: `bottom = #bottomLines[k]` gives `#bottomTexts[k]` (a few at most). */
  #bottomLines: number[] | null = null;
  #bottomTexts: string[] | null = null;
  /** The last {@link #widest} non-blank lines joined, and where each starts in it. */
  #widestText: { text: string; starts: number[] } | null = null;
  /** The last {@link #widest} non-blank lines, top first. */
  #widestPicked: string[] | null = null;

  /**
   * @param widest the largest `bottom = N` the caller will ask for (0 when unknown): the
   *   narrower bottoms are then cut from its text (a suffix of it) instead of joined again.
   * @param lines the screen's logical lines when the caller has them ({@link logicalLines}
   *   of `screen`, unchanged while this is used), else they are computed on first use.
   */
  constructor(screen: ScreenInput, widest = 0, lines?: readonly string[]) {
    this.#screen = screen;
    this.#widest = widest;
    this.#lines = lines ?? null;
  }

  /** The logical lines of the screen (computed once). */
  lines(): readonly string[] {
    return (this.#lines ??= logicalLines(this.#screen));
  }

  /** The text `region` covers on this screen ('' when there is nothing, e.g. no such OSC). */
  text(region: Region): string {
    switch (region.kind) {
      case 'screen':
        return (this.#whole ??= joinTrimmed(this.lines(), 0));
      case 'title':
        return this.#screen.title;
      case 'osc':
        return this.#screen.osc.get(region.number) ?? '';
      case 'below_last_rule':
        return (this.#belowRule ??= this.#computeBelowRule());
      case 'bottom': {
        const lines = (this.#bottomLines ??= []);
        const texts = (this.#bottomTexts ??= []);
        const k = lines.indexOf(region.lines);
        if (k >= 0) return texts[k];
        const t = this.#computeBottom(region.lines);
        lines.push(region.lines);
        texts.push(t);
        return t;
      }
    }
  }

  /**
   * The lines of `region`'s text: `text(region) === linesOf(region).join('\n')`, and [''] for
   * an empty text (as `''.split('\n')`). Screen regions give the logical lines themselves (the
   * same strings, no copy).
   */
  linesOf(region: Region): readonly string[] {
    switch (region.kind) {
      case 'title':
      case 'osc':
        return this.text(region).split('\n');
      case 'screen':
        return orEmpty(trimmedLines(this.lines(), 0));
      case 'below_last_rule': {
        const lines = this.lines();
        for (let i = lines.length - 1; i >= 0; i--) {
          if (isRuleLine(lines[i])) return orEmpty(trimmedLines(lines, i + 1));
        }
        return EMPTY_TEXT_LINES;
      }
      case 'bottom': {
        const picked = region.lines <= this.#widest
          ? (this.#widestPicked ??= this.#pickBottom(this.#widest))
          : this.#pickBottom(region.lines);
        return orEmpty(
          picked.length <= region.lines ? picked : picked.slice(picked.length - region.lines),
        );
      }
    }
  }

  /**
   * Where `region`'s lines lie among {@link lines}: `linesOf(region)` is the lines from
   * `from` to `to` (exclusive), blank ones left out when `skipBlank`; [''] when there are
   * none. null for the title and OSC regions, which are not screen lines.
   */
  span(region: Region): { from: number; to: number; skipBlank: boolean } | null {
    const lines = this.lines();
    switch (region.kind) {
      case 'title':
      case 'osc':
        return null;
      case 'screen':
        return { from: 0, to: trimmedEnd(lines, 0), skipBlank: false };
      case 'below_last_rule': {
        for (let i = lines.length - 1; i >= 0; i--) {
          if (isRuleLine(lines[i])) {
            return { from: i + 1, to: trimmedEnd(lines, i + 1), skipBlank: false };
          }
        }
        return { from: 0, to: 0, skipBlank: false };
      }
      case 'bottom': {
        const to = trimmedEnd(lines, 0);
        let from = to;
        for (let picked = 0; from > 0 && picked < region.lines; from--) {
          if (lines[from - 1].length > 0) picked++;
        }
        return { from, to, skipBlank: true };
      }
    }
  }

  /** The last `n` non-blank logical lines, top first. */
  #pickBottom(n: number): string[] {
    const lines = this.lines();
    const picked: string[] = [];
    for (let i = lines.length - 1; i >= 0 && picked.length < n; i--) {
      if (lines[i].length > 0) picked.push(lines[i]); // lines are trimmed: '' is blank
    }
    return picked.reverse();
  }

  /** The last `n` non-blank logical lines, top first. */
  #computeBottom(n: number): string {
    if (n <= this.#widest) {
      const { text, starts } = this.#widestText ??= this.#joinBottom(this.#widest);
      return starts.length <= n ? text : text.slice(starts[starts.length - n]);
    }
    return this.#joinBottom(n).text;
  }

  /** The last `n` non-blank logical lines joined, and the offset of each in the text. */
  #joinBottom(n: number): { text: string; starts: number[] } {
    const picked = n === this.#widest
      ? (this.#widestPicked ??= this.#pickBottom(n))
      : this.#pickBottom(n);
    const starts: number[] = new Array(picked.length);
    let at = 0;
    for (let k = 0; k < picked.length; k++) {
      starts[k] = at;
      at += picked[k].length + 1;
    }
    return { text: picked.join('\n'), starts };
  }

  /** The logical lines under the last horizontal rule; '' when there is no rule. */
  #computeBelowRule(): string {
    const lines = this.lines();
    for (let i = lines.length - 1; i >= 0; i--) {
      if (isRuleLine(lines[i])) return joinTrimmed(lines, i + 1);
    }
    return '';
  }
}

/** The largest `bottom = N` among `regions` (0 when none is a bottom). */
export function widestBottom(regions: Iterable<Region>): number {
  let widest = 0;
  for (const r of regions) if (r.kind === 'bottom' && r.lines > widest) widest = r.lines;
  return widest;
}
