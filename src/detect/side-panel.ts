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

/** The fewest consecutive rows a divider runs down. */
export const SIDE_PANEL_MIN_ROWS = 8;
/** The leftmost column (0-based, in code units of a row) a divider may stand in. */
export const SIDE_PANEL_MIN_COLUMN = 16;

/** The divider's glyph: U+2502 BOX DRAWINGS LIGHT VERTICAL. */
const BAR = '│';
/** A row's first mark that says the row is inside a box or table. */
const BORDER_START = /^[│┃|├┤┼╭╮╰╯┌┐└┘┏┓┗┛┣┫╋]/u;
/** Text right of a bar that is no more than other borders. */
const ONLY_BORDERS = /^[\s│┃|]*$/u;

/** A divider found on a screen: its column, and the rows it runs down. */
export interface SidePanel {
  /** The divider's index in each of `rows` (0-based code units). */
  column: number;
  /** `rows[i]` is true when row i has the divider (and is cut there). */
  rows: boolean[];
}

/**
 * The side panel's divider on `rows` (visible rows, top first, trailing blanks trimmed): the
 * leftmost column at or right of {@link SIDE_PANEL_MIN_COLUMN} where `│` stands on at least
 * {@link SIDE_PANEL_MIN_ROWS} consecutive rows, with text left of it (on a row not starting
 * with a border) and text right of it on some of those rows. null when there is none. A row
 * whose left part holds a character that is one code unit but two cells (CJK) shifts the bar:
 * that row is not counted nor cut.
 */
export function findSidePanel(rows: readonly string[]): SidePanel | null {
  // columns where a bar stands, per column the rows
  let columns: Map<number, number[]> | null = null;
  for (let y = 0; y < rows.length; y++) {
    const row = rows[y];
    for (let x = row.indexOf(BAR, SIDE_PANEL_MIN_COLUMN); x >= 0; x = row.indexOf(BAR, x + 1)) {
      columns ??= new Map();
      const list = columns.get(x);
      if (list) list.push(y);
      else columns.set(x, [y]);
    }
  }
  if (!columns) return null;
  const candidates = [...columns.keys()].filter((x) =>
    columns!.get(x)!.length >= SIDE_PANEL_MIN_ROWS
  )
    .sort((a, b) => a - b);
  for (const x of candidates) {
    const ys = columns.get(x)!;
    const cut = new Array<boolean>(rows.length).fill(false);
    let found = false;
    for (let k = 0; k < ys.length;) {
      let end = k;
      while (end + 1 < ys.length && ys[end + 1] === ys[end] + 1) end++;
      const run = ys.slice(k, end + 1);
      k = end + 1;
      if (run.length < SIDE_PANEL_MIN_ROWS) continue;
      const left = run.some((y) => {
        const l = rows[y].slice(0, x).trim();
        return l !== '' && !BORDER_START.test(l);
      });
      const right = run.some((y) => !ONLY_BORDERS.test(rows[y].slice(x + 1)));
      if (!left || !right) continue;
      for (const y of run) cut[y] = true;
      found = true;
    }
    if (found) return { column: x, rows: cut };
  }
  return null;
}

/**
 * `rows` with every row the divider runs down cut at it (the divider and what is right of it
 * dropped, trailing blanks trimmed); `rows` itself when there is no side panel. Columns left
 * of the divider keep their indices (background tags of a row still line up).
 */
export function cutSidePanel(rows: readonly string[]): readonly string[] {
  const panel = findSidePanel(rows);
  if (!panel) return rows;
  return rows.map((row, y) => panel.rows[y] ? row.slice(0, panel.column).trimEnd() : row);
}

/**
 * `screen` as the rules read it: its rows cut at a side panel's divider ({@link cutSidePanel}),
 * a cut row no longer wrapped onto the next; `screen` itself (the same object) when there is
 * no side panel.
 */
export function withoutSidePanel(screen: ScreenInput): ScreenInput {
  const panel = findSidePanel(screen.rows);
  if (!panel) return screen;
  return {
    rows: screen.rows.map((row, y) => panel.rows[y] ? row.slice(0, panel.column).trimEnd() : row),
    wrapped: screen.wrapped.map((w, y) => w && !panel.rows[y]),
    title: screen.title,
    osc: screen.osc,
  };
}
