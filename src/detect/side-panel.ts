/**
 * A side panel drawn beside an agent's screen, cut off so that rules and prompt reading see
 * the agent's own column alone. Pure.
 *
 * Claude Code 2.1.332 in a wide pane (160x45, tester; fixtures/claude-code-160), in a git
 * repository, opens a diff panel on the right by itself once a few files were written: a
 * light vertical line `│` at column 88 down every row, the panel's text right of it
 * (`7 files changed  source: Current ▾`, `file_3.txt (untracked)`, `New file not yet staged.`,
 * ``Run `git add :/file_3.txt` to see line counts.``). Beside a permission dialog, that text
 * was glued to the dialog's rows: its options read `1. Yes  ...│New file not yet staged.`, its
 * question was missed (the row no longer ended with `?`), and each redraw of the panel made
 * the prompt read as another one (8 notices in 8 s).
 *
 * A divider is told from a box's border by what lies on both sides: text left of it on some
 * row, that row's text not inside a box (its first mark is not a border: a table's inner
 * column has `│` left of it on every row), and text right of it on some row (a box's right
 * border has nothing after it).
 */
import type { ScreenInput } from './types.ts';
import { wcwidth } from '../vt/width.ts';

/** The fewest consecutive rows a divider runs down. */
export const SIDE_PANEL_MIN_ROWS = 8;
/** The leftmost cell column (0-based) a divider may stand in. */
export const SIDE_PANEL_MIN_COLUMN = 16;

/** The divider's glyph: U+2502 BOX DRAWINGS LIGHT VERTICAL. */
const BAR = '│';
/** A row's first mark that says the row is inside a box or table. */
const BORDER_START = /^[│┃|├┤┼╭╮╰╯┌┐└┘┏┓┗┛┣┫╋]/u;
/** Text right of a bar that is no more than other borders. */
const ONLY_BORDERS = /^[\s│┃|]*$/u;

/** A divider found on a screen: its cell column, and where each row is cut. */
export interface SidePanel {
  /** The divider's column in cells (0-based). */
  column: number;
  /**
   * Per row, the index (code units) of the divider in that row's string, -1 when the divider
   * does not run down that row (the row is kept whole). Left of a wide character (CJK: two
   * cells, one code unit) the index is less than the column.
   */
  cuts: number[];
}

/** The bars of `row` at or right of {@link SIDE_PANEL_MIN_COLUMN}: [cell column, index]. */
function barsOf(row: string): Array<[number, number]> {
  if (row.indexOf(BAR) < 0) return [];
  const out: Array<[number, number]> = [];
  let cell = 0;
  for (let i = 0; i < row.length;) {
    const cp = row.codePointAt(i)!;
    if (cp === 0x2502 && cell >= SIDE_PANEL_MIN_COLUMN) out.push([cell, i]);
    cell += wcwidth(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return out;
}

/**
 * The side panel's divider on `rows` (visible rows, top first, trailing blanks trimmed): the
 * leftmost cell column at or right of {@link SIDE_PANEL_MIN_COLUMN} where `│` stands on at
 * least {@link SIDE_PANEL_MIN_ROWS} consecutive rows, with text left of it (on a row not
 * starting with a border) and text right of it on some of those rows. null when there is none.
 */
export function findSidePanel(rows: readonly string[]): SidePanel | null {
  // Most screens have no run of that many rows holding a bar at all: told by indexOf alone,
  // before any row is walked cell by cell (every evaluation of every pane comes here).
  let run = 0;
  let longest = 0;
  for (const row of rows) {
    run = row.indexOf(BAR) >= 0 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest < SIDE_PANEL_MIN_ROWS ? null : dividerOf(rows);
}

/** {@link findSidePanel} past its first test (some run of rows holds a bar on each). */
function dividerOf(rows: readonly string[]): SidePanel | null {
  // cell columns where a bar stands: per column, the rows and the bar's index in each
  let columns: Map<number, Array<[number, number]>> | null = null;
  for (let y = 0; y < rows.length; y++) {
    for (const [x, i] of barsOf(rows[y])) {
      columns ??= new Map();
      const list = columns.get(x);
      if (list) list.push([y, i]);
      else columns.set(x, [[y, i]]);
    }
  }
  if (!columns) return null;
  const candidates = [...columns.keys()].filter((x) =>
    columns!.get(x)!.length >= SIDE_PANEL_MIN_ROWS
  ).sort((a, b) => a - b);
  for (const x of candidates) {
    const bars = columns.get(x)!;
    const cuts = new Array<number>(rows.length).fill(-1);
    let found = false;
    for (let k = 0; k < bars.length;) {
      let end = k;
      while (end + 1 < bars.length && bars[end + 1][0] === bars[end][0] + 1) end++;
      const run = bars.slice(k, end + 1);
      k = end + 1;
      if (run.length < SIDE_PANEL_MIN_ROWS) continue;
      const left = run.some(([y, i]) => {
        const l = rows[y].slice(0, i).trim();
        return l !== '' && !BORDER_START.test(l);
      });
      const right = run.some(([y, i]) => !ONLY_BORDERS.test(rows[y].slice(i + 1)));
      if (!left || !right) continue;
      for (const [y, i] of run) cuts[y] = i;
      found = true;
    }
    if (found) return { column: x, cuts };
  }
  return null;
}

/** `rows` cut where `panel` says. */
function cutRows(rows: readonly string[], panel: SidePanel): string[] {
  return rows.map((row, y) => panel.cuts[y] >= 0 ? row.slice(0, panel.cuts[y]).trimEnd() : row);
}

/**
 * `rows` with every row the divider runs down cut at it (the divider and what is right of it
 * dropped, trailing blanks trimmed); `rows` itself when there is no side panel. What is left
 * of the divider keeps its indices (background tags of a row still line up).
 */
export function cutSidePanel(rows: readonly string[]): readonly string[] {
  const panel = findSidePanel(rows);
  return panel ? cutRows(rows, panel) : rows;
}

/**
 * `screen` as the rules read it: its rows cut at a side panel's divider ({@link cutSidePanel}),
 * a cut row no longer wrapped onto the next; `screen` itself (the same object) when there is
 * no side panel.
 */
export function withoutSidePanel(screen: ScreenInput): ScreenInput {
  return cutAt(screen, findSidePanel(screen.rows));
}

/** `screen` cut at `panel`'s divider; `screen` itself when `panel` is null. */
function cutAt(screen: ScreenInput, panel: SidePanel | null): ScreenInput {
  if (!panel) return screen;
  return {
    rows: cutRows(screen.rows, panel),
    wrapped: screen.wrapped.map((w, y) => w && panel.cuts[y] < 0),
    title: screen.title,
    osc: screen.osc,
  };
}

/**
 * {@link withoutSidePanel} for one pane's successive screens, at the cost of the rows that
 * changed: whether a row holds `│` is kept per row and looked at again only when the row's
 * string is another one (a terminal's unchanged row is the same string from one snapshot to
 * the next). The search for the divider itself runs, as in {@link findSidePanel}, only when
 * {@link SIDE_PANEL_MIN_ROWS} consecutive rows hold one. Memory: two references per row.
 */
export class SidePanelCut {
  #rows: string[] = [];
  #bar: boolean[] = [];

  /** `screen` as the rules read it (see {@link withoutSidePanel}, which gives the same). */
  cut(screen: ScreenInput): ScreenInput {
    const rows = screen.rows;
    const seen = this.#rows;
    const bar = this.#bar;
    if (seen.length !== rows.length) seen.length = bar.length = rows.length;
    let run = 0;
    let longest = 0;
    for (let y = 0; y < rows.length; y++) {
      const row = rows[y];
      if (seen[y] !== row) {
        seen[y] = row;
        bar[y] = row.indexOf(BAR) >= 0;
      }
      run = bar[y] ? run + 1 : 0;
      if (run > longest) longest = run;
    }
    return longest < SIDE_PANEL_MIN_ROWS ? screen : cutAt(screen, dividerOf(rows));
  }
}
