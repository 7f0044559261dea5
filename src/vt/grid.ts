/**
 * One screen buffer (the normal or the alternate screen) in typed arrays, with the cell and
 * row primitives the screen's handlers are built from. No scrollback: only visible rows.
 *
 * Memory layout (a 32x120 grid: 15,360 + 3,840 + 64 + 32 + 32 + 122 = 19,450 bytes):
 *
 *   cells   Uint32Array(rows * cols)   one word per cell, physical row-major:
 *           | 31..24 unused | 23..22 width | 21 combined | 20..0 code point |
 *           width 1 or 2 for a character (2: the next cell is its spacer), 0 for the
 *           spacer right of a wide character (code point 0) or for a lone zero-width
 *           character; `combined` set: the cell's text (base + joined marks) is the string
 *           in `combined` under the cell's index, and the code point bits are unused.
 *           A blank cell is BLANK (width 1, no code point); it reads as ' '.
 *   bg      Uint8Array(rows * cols)  per cell, the background it was printed with, as a tag:
 *           0 the default background, 255 inverse video, else a hash of the SGR background
 *           (1..254). Written when a character is printed, cleared with its row; erasing
 *           characters leaves it (only cells with text are read). Lets a reader tell the one
 *           option a dialog highlights with a colour alone (opencode 1.18's buttons).
 *   rowMap  Uint16Array(rows)   visible row y -> physical row; scrolling rotates this map
 *           instead of moving cells.
 *   wrapped Uint8Array(rows)    per physical row: 1 when the row continues the row above it
 *           (soft wrap by deferred autowrap; xterm's `isWrapped`).
 *   tabs    Uint8Array(cols + 2) 1 at each tab stop column (index cols and cols + 1 exist
 *           because the cursor can sit there: pending wrap, see screen.ts).
 *   combined Map<cell index, string>: only cells carrying combining marks; bounded by the
 *           cell count (keys are cell indices).
 *   texts   (string | undefined)[rows]: per physical row, its {@link Grid.rowText} as last
 *           built, undefined once a cell of the row changed (every write marks its row with
 *           {@link Grid.touch}); '' as soon as a row is cleared, and erasing in a row that
 *           reads '' keeps it (programs that redraw erase many blank rows); scrolling rotates
 *           `rowMap`, so cached texts move with it.
 *   changed Uint8Array(rows)    per VISIBLE row: 1 when its text or wrap flag may have changed
 *           or it moved (scrolled) since {@link Grid.markRowsSeen}; `changedCount` of them set.
 *           Lets a reader learn which rows a frame touched without comparing texts.
 *
 * The cell word, the wide-character fix-ups and the text rules follow xterm.js 6.0.0
 * `src/common/buffer/BufferLine.ts` (MIT), the reference the tests compare against.
 */

/** Bits 0..20 of a cell word: the code point. */
export const CP_MASK = 0x1fffff;
/** Bit 21: the cell's text lives in `Grid.combined`. */
export const COMBINED = 0x200000;
/** Code point or combined flag: the cell holds text. */
export const CONTENT_MASK = 0x3fffff;
/** Bits 22..23 hold the width. */
export const WIDTH_SHIFT = 22;
/** An erased cell: width 1, no text. */
export const BLANK = 1 << WIDTH_SHIFT;

/** Scratch UTF-16 buffer of {@link Grid.buildRowText} (grown on demand; shared: single-threaded). */
let scratch = new Uint16Array(512);

/**
 * Plain arrays of UTF-16 code units by length, for String.fromCharCode.apply in
 * {@link Grid.buildRowText} (shared: single-threaded; one per row length seen, at most
 * {@link MAX_CODES_LENGTH}).
 */
const codesByLength: number[][] = [];
/** Longer rows get a fresh array each time. */
const MAX_CODES_LENGTH = 4096;

/** A plain array of `n` small integers to fill (reused for the same `n`). */
function codesOfLength(n: number): number[] {
  if (n > MAX_CODES_LENGTH) return new Array<number>(n).fill(0);
  return (codesByLength[n] ??= new Array<number>(n).fill(0));
}

/** Tab stop distance of the default stops (xterm `tabStopWidth`). */
const TAB_WIDTH = 8;

/** One buffer: cells, row map, wrap flags, tab stops, cursor and the state xterm keeps per buffer. */
export class Grid {
  readonly cells: Uint32Array;
  /** Background tag per cell (see the memory layout above). */
  readonly bg: Uint8Array;
  readonly rowMap: Uint16Array;
  readonly wrapped: Uint8Array;
  readonly tabs: Uint8Array;
  /** Text of cells with combining marks, by cell index (physical row * cols + col). */
  readonly combined: Map<number, string> = new Map();
  /** Per physical row: its text as last built, undefined when a cell changed since. */
  readonly texts: (string | undefined)[];
  /** Per visible row: 1 when it may have changed since {@link markRowsSeen} (all 1 when new). */
  readonly changed: Uint8Array;
  /** How many rows of {@link changed} are set. */
  changedCount: number;
  /** Cursor column, 0..cols+1: `cols` means a wrap is pending (deferred autowrap). */
  x = 0;
  /** Cursor row, 0..rows-1. */
  y = 0;
  /** Scroll region (DECSTBM), inclusive rows. */
  scrollTop = 0;
  scrollBottom: number;
  /** Saved cursor (DECSC): column, absolute row (ybase + y) and charset. */
  savedX = 0;
  savedY = 0;
  savedCharset = 0;
  /**
   * Rows scrolled off the top into xterm's scrollback (at most 1000), kept only as a count:
   * xterm saves the cursor row as `ybase + y`, so DECRC after scrolling lands on the moved
   * text. Always 0 for the alternate screen.
   */
  ybase = 0;

  constructor(readonly rows: number, readonly cols: number) {
    this.cells = new Uint32Array(rows * cols).fill(BLANK);
    this.bg = new Uint8Array(rows * cols);
    this.rowMap = new Uint16Array(rows);
    for (let y = 0; y < rows; y++) this.rowMap[y] = y;
    this.wrapped = new Uint8Array(rows);
    this.texts = new Array<string | undefined>(rows).fill(undefined);
    this.changed = new Uint8Array(rows).fill(1);
    this.changedCount = rows;
    this.tabs = new Uint8Array(cols + 2);
    this.scrollBottom = rows - 1;
    this.resetTabs();
  }

  /** Index of the first cell of visible row `y` in `cells`. */
  rowStart(y: number): number {
    return this.rowMap[y] * this.cols;
  }

  /**
   * Marks visible row `y` changed: its cached text is dropped. Whoever writes `cells` of a
   * row directly calls this (the primitives below do it themselves).
   */
  touch(y: number): void {
    this.texts[this.rowMap[y]] = undefined;
    if (this.changed[y] === 0) this.flag(y);
  }

  /** {@link touch} by physical row `p` (a cell index / cols): combining marks. */
  touchPhysical(p: number): void {
    this.texts[p] = undefined;
    const y = this.rowMap.indexOf(p);
    if (y >= 0 && this.changed[y] === 0) this.flag(y);
  }

  /** Sets visible row `y`'s {@link changed} flag (it was clear). */
  private flag(y: number): void {
    this.changed[y] = 1;
    this.changedCount++;
  }

  /** Flags every visible row changed (a buffer switch, a full clear). */
  markAllChanged(): void {
    this.changed.fill(1);
    this.changedCount = this.rows;
  }

  /** Clears every row's {@link changed} flag: what a reader has seen. */
  markRowsSeen(): void {
    if (this.changedCount === 0) return;
    this.changed.fill(0);
    this.changedCount = 0;
  }

  /** True when visible row `y` continues row y-1 (xterm `isWrapped`). */
  isWrapped(y: number): boolean {
    return this.wrapped[this.rowMap[y]] === 1;
  }

  setWrapped(y: number, on: boolean): void {
    const p = this.rowMap[y];
    const v = on ? 1 : 0;
    if (this.wrapped[p] === v) return;
    this.wrapped[p] = v;
    if (this.changed[y] === 0) this.flag(y);
  }

  /** Default tab stops: columns 0, 8, 16, ... (xterm `setupTabStops`). */
  resetTabs(): void {
    this.tabs.fill(0);
    for (let i = 0; i < this.cols; i += TAB_WIDTH) this.tabs[i] = 1;
  }

  /** Blanks every cell, clears wrap flags and combined text; cursor and state stay. */
  clearAll(): void {
    this.cells.fill(BLANK);
    this.bg.fill(0);
    this.wrapped.fill(0);
    this.combined.clear();
    this.texts.fill(''); // a blank row reads ''
    this.markAllChanged();
  }

  /** Blanks visible row `y` and sets its wrap flag to `wrapped`. */
  clearRow(y: number, wrapped = false): void {
    const p = this.rowMap[y];
    const start = p * this.cols;
    this.cells.fill(BLANK, start, start + this.cols);
    this.bg.fill(0, start, start + this.cols);
    this.wrapped[p] = wrapped ? 1 : 0;
    this.texts[p] = ''; // a blank row reads ''
    if (this.changed[y] === 0) this.flag(y);
    if (this.combined.size > 0) this.dropCombined(start, start + this.cols);
  }

  /** Forgets combined text of cells [from, to) (cell indices). */
  private dropCombined(from: number, to: number): void {
    for (const k of this.combined.keys()) if (k >= from && k < to) this.combined.delete(k);
  }

  /**
   * Rows top..bottom move up by one; the row leaving at the top is blanked and enters at
   * the bottom with wrap flag `wrapped` (scroll up, DL, SU).
   */
  rotateUp(top: number, bottom: number, wrapped = false): void {
    const map = this.rowMap;
    const p = map[top];
    for (let y = top; y < bottom; y++) {
      map[y] = map[y + 1];
      if (this.changed[y] === 0) this.flag(y);
    }
    map[bottom] = p;
    this.clearRow(bottom, wrapped);
  }

  /** Rows top..bottom move down by one; a blank row enters at the top (scroll down, IL, SD, RI). */
  rotateDown(top: number, bottom: number): void {
    const map = this.rowMap;
    const p = map[bottom];
    for (let y = bottom; y > top; y--) {
      map[y] = map[y - 1];
      if (this.changed[y] === 0) this.flag(y);
    }
    map[top] = p;
    this.clearRow(top);
  }

  /** Width field of cell (y, x); 0 outside the row. */
  width(y: number, x: number): number {
    if (x < 0 || x >= this.cols) return 0;
    return this.cells[this.rowStart(y) + x] >>> WIDTH_SHIFT;
  }

  /** Text of one cell: '' for a blank or spacer (xterm `getString`). */
  cellText(y: number, x: number): string {
    if (x < 0 || x >= this.cols) return '';
    const i = this.rowStart(y) + x;
    const c = this.cells[i];
    if (c & COMBINED) return this.combined.get(i) ?? '';
    const cp = c & CP_MASK;
    return cp ? String.fromCodePoint(cp) : '';
  }

  /** Copies cell `from` to cell `to` (cell indices), combined text included. */
  private moveCell(from: number, to: number): void {
    const c = this.cells[from];
    this.cells[to] = c;
    this.bg[to] = this.bg[from];
    if (c & COMBINED) this.combined.set(to, this.combined.get(from) ?? '');
  }

  /**
   * ICH/DECIC/SR on row `y`: n blanks enter at column `pos` (taken modulo cols, as xterm
   * does), the cells right of it shift right and fall off the edge; wide characters cut in
   * half are blanked (xterm `BufferLine.insertCells`).
   */
  insertCells(y: number, pos: number, n: number): void {
    const cols = this.cols;
    const base = this.rowStart(y);
    this.touch(y);
    const cells = this.cells;
    pos %= cols;
    if (pos && cells[base + pos - 1] >>> WIDTH_SHIFT === 2) cells[base + pos - 1] = BLANK;
    if (n < cols - pos) {
      for (let i = cols - pos - n - 1; i >= 0; --i) {
        this.moveCell(base + pos + i, base + pos + n + i);
      }
      cells.fill(BLANK, base + pos, base + pos + n);
    } else {
      cells.fill(BLANK, base + pos, base + cols);
    }
    if (cells[base + cols - 1] >>> WIDTH_SHIFT === 2) cells[base + cols - 1] = BLANK;
  }

  /**
   * DCH/DECDC/SL on row `y`: n cells at column `pos` (modulo cols) are removed, the rest
   * shifts left and blanks enter at the right edge (xterm `BufferLine.deleteCells`).
   */
  deleteCells(y: number, pos: number, n: number): void {
    const cols = this.cols;
    const base = this.rowStart(y);
    this.touch(y);
    const cells = this.cells;
    pos %= cols;
    if (n < cols - pos) {
      for (let i = 0; i < cols - pos - n; ++i) this.moveCell(base + pos + n + i, base + pos + i);
      cells.fill(BLANK, base + cols - n, base + cols);
    } else {
      cells.fill(BLANK, base + pos, base + cols);
    }
    if (pos && cells[base + pos - 1] >>> WIDTH_SHIFT === 2) cells[base + pos - 1] = BLANK;
    const c = cells[base + pos];
    if (c >>> WIDTH_SHIFT === 0 && (c & CONTENT_MASK) === 0) cells[base + pos] = BLANK;
  }

  /**
   * Blanks columns [start, end) of row `y` (erase: EL, ED, ECH); a wide character cut at
   * either edge is blanked whole (xterm `BufferLine.replaceCells`).
   */
  eraseCells(y: number, start: number, end: number): void {
    const cols = this.cols;
    const base = this.rowStart(y);
    // a row that reads '' holds no text: erasing leaves it as it reads
    if (this.texts[this.rowMap[y]] !== '') this.touch(y);
    const cells = this.cells;
    if (start && start <= cols && cells[base + start - 1] >>> WIDTH_SHIFT === 2) {
      cells[base + start - 1] = BLANK;
    }
    if (end < cols && end > 0 && cells[base + end - 1] >>> WIDTH_SHIFT === 2) {
      cells[base + end] = BLANK;
    }
    if (start < end && start < cols) cells.fill(BLANK, base + start, base + Math.min(end, cols));
  }

  /**
   * Visible row `y` as text, like xterm's `translateToString(true)` followed by trimming
   * trailing spaces: cells up to the last one with text (a trailing lone zero-width cell
   * does not count, as in xterm), a wide character once, blanks and spacers as ' '.
   */
  rowText(y: number): string {
    const p = this.rowMap[y];
    return this.texts[p] ??= this.buildRowText(y);
  }

  /** {@link rowText} built from the cells, without the cache. */
  buildRowText(y: number): string {
    const cols = this.cols;
    const base = this.rowStart(y);
    const cells = this.cells;
    let end = 0;
    for (let i = cols - 1; i >= 0; --i) {
      const c = cells[base + i];
      if (c & CONTENT_MASK) {
        end = i + (c >>> WIDTH_SHIFT);
        break;
      }
    }
    // UTF-16 code units into a scratch buffer, then one string: a cell has at most 2 units
    // unless it holds combined text (grown for it).
    let units = scratch.length >= 2 * end ? scratch : (scratch = new Uint16Array(2 * end));
    let n = 0;
    let x = 0;
    while (x < end) {
      const c = cells[base + x];
      if (c & COMBINED) {
        const t = this.combined.get(base + x) ?? '';
        if (n + t.length + 2 * (end - x) > units.length) {
          const grown = new Uint16Array(n + t.length + 2 * (end - x));
          grown.set(units.subarray(0, n));
          units = scratch = grown;
        }
        for (let k = 0; k < t.length; k++) units[n++] = t.charCodeAt(k);
      } else {
        const cp = c & CP_MASK;
        if (cp === 0) units[n++] = 0x20;
        else if (cp < 0x10000) units[n++] = cp;
        else {
          units[n++] = 0xd800 + ((cp - 0x10000) >> 10);
          units[n++] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
        }
      }
      x += c >>> WIDTH_SHIFT || 1;
    }
    while (n > 0 && units[n - 1] === 0x20) n--;
    if (n === 0) return '';
    // apply() on a typed array first copies it into a list of arguments (8 bytes a unit, then
    // garbage); on a plain array of exactly n small integers V8 passes the elements as they are
    const codes = codesOfLength(n);
    for (let k = 0; k < n; k++) codes[k] = units[k];
    return String.fromCharCode.apply(null, codes);
  }

  /**
   * The background tags of visible row `y`, one per UTF-16 code unit of {@link rowText}(y)
   * (a wide character's units take its cell's tag).
   */
  rowBackgrounds(y: number): number[] {
    const base = this.rowStart(y);
    const cells = this.cells;
    const text = this.rowText(y);
    const out: number[] = [];
    let x = 0;
    while (out.length < text.length && x < this.cols) {
      const c = cells[base + x];
      let units = 1;
      if (c & COMBINED) units = (this.combined.get(base + x) ?? ' ').length || 1;
      else if ((c & CP_MASK) >= 0x10000) units = 2;
      for (let k = 0; k < units; k++) out.push(this.bg[base + x]);
      x += c >>> WIDTH_SHIFT || 1;
    }
    return out.slice(0, text.length);
  }

  /** Bytes held in typed arrays (the memory layout above). */
  byteSize(): number {
    return this.cells.byteLength + this.bg.byteLength + this.rowMap.byteLength +
      this.wrapped.byteLength + this.changed.byteLength + this.tabs.byteLength;
  }
}
