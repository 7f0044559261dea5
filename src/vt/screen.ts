/**
 * The emulated screen: the normal and the alternate buffer, the cursor, the modes that
 * change where text lands, and one method per control function, named by its DEC/ECMA-48
 * mnemonic. perform.ts decides which sequence calls which method; this file decides what the
 * method does to the cells.
 *
 * Memory layout: each buffer is a {@link Grid} (grid.ts): one Uint32Array word per cell
 * (code point 21 bits, combined flag, width 2 bits), a Uint16Array row map, a Uint8Array of
 * wrap flags and a Uint8Array of tab stops. A fresh 32x120 screen holds only the normal
 * grid (15,578 bytes of typed arrays); the alternate grid (the same again) is allocated when
 * a program first switches to it. Nothing else grows with input except the combined-text
 * map, which is bounded by the cell count and by {@link MAX_COMBINED} UTF-16 units per cell.
 *
 * Behaviour follows xterm.js 6.0.0 (`src/common/InputHandler.ts`, MIT), the oracle of the
 * differential tests, including its cursor model: the column may equal `cols` after a
 * character was written in the last column (the pending wrap of DECAWM) and, after a lone
 * zero-width character written there, `cols + 1`; handlers clamp it exactly where xterm does.
 *
 * Why one file over 400 lines: it is one state machine, the screen's. Every control function
 * reads and moves the same cursor, margins, modes and pending wrap, and each must match
 * xterm.js's handler of the same name; split by topic, the methods would share that private
 * state through a wider interface and a reader would lose the one-to-one view of the reference.
 */
import { BLANK, COMBINED, CONTENT_MASK, CP_MASK, Grid, WIDTH_SHIFT } from './grid.ts';
import { CHARSET_ASCII, mapCharset } from './charset.ts';
import { BMP_WIDTHS, wcwidth } from './width.ts';

/** Longest text (UTF-16 units) one cell keeps; further combining marks are dropped. */
export const MAX_COMBINED = 32;
/** Rows xterm keeps above the screen by default; bounds {@link Grid.ybase}. */
const SCROLLBACK = 1000;
/** Most repetitions one REP carries out (xterm has no bound and runs out of memory). */
const MAX_REPEAT = 65535;

/** Screen size limits accepted by the constructor and resize (xterm needs 2+ columns). */
export const MIN_COLS = 2;
export const MAX_COLS = 2000;
export const MAX_ROWS = 1000;

function clampSize(n: number, lo: number, hi: number): number {
  n = Math.floor(n);
  return Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : lo;
}

function codePointString(cp: number): string {
  return cp < 0x10000 ? String.fromCharCode(cp) : String.fromCodePoint(cp);
}

/** The screen state and its control functions. Coordinates are 0-based cells. */
export class Screen {
  rows: number;
  cols: number;
  /** The active buffer: {@link normal} or the alternate one. */
  g: Grid;
  normal: Grid;
  private alt: Grid | null = null;

  /** DECAWM (mode ?7): autowrap at the right margin. */
  wraparound = true;
  /** IRM (mode 4): printing shifts the rest of the row right. */
  insertMode = false;
  /** DECOM (mode ?6): row numbers count from the scroll region's top and stay inside it. */
  origin = false;
  /** Reverse wraparound (mode ?45): BS at column 0 goes back to the wrapped row above. */
  reverseWraparound = false;
  /** LNM (mode 20): LF, VT and FF also return to column 0 (xterm `convertEol`). */
  newline = false;

  /** Charset ids in G0..G3 (charset.ts) and the shift level in use. */
  private readonly gsets = new Uint8Array(4);
  private glevel = 0;
  /** The charset applied to printed ASCII (xterm keeps it apart from `gsets[glevel]`). */
  private charset = CHARSET_ASCII;

  /**
   * Width of the character printed just before (1 or 2), 0 when anything but printing came
   * in between: a following zero-width character joins that cell (xterm
   * `precedingJoinState`). perform.ts resets it after every control function.
   */
  joinWidth = 0;
  /** The background tag printed characters get (see grid.ts `bg`); set by SGR. */
  bgTag = 0;
  /** Increases on every change of the visible cells (and, through Terminal, of the title/OSC). */
  version = 0;

  private readonly repBuf = new Uint32Array(256);

  constructor(rows = 32, cols = 120) {
    this.rows = clampSize(rows, 1, MAX_ROWS);
    this.cols = clampSize(cols, MIN_COLS, MAX_COLS);
    this.normal = new Grid(this.rows, this.cols);
    this.g = this.normal;
  }

  /** True while the alternate screen is shown. */
  get altScreen(): boolean {
    return this.g !== this.normal;
  }

  /** Bytes held in typed arrays by this screen (both grids when the alternate one exists). */
  byteSize(): number {
    return this.normal.byteSize() + (this.alt ? this.alt.byteSize() : 0) + this.gsets.byteLength +
      this.repBuf.byteLength;
  }

  // ---------------------------------------------------------------------------------------
  // Printing

  /**
   * Writes code points `buf[0..n)` (printable: >= 0x20, not 0x7F..0x9F) at the cursor with
   * deferred autowrap (DECAWM, DEC STD 070 5.5; ECMA-48 8.2 "graphic characters"), insert
   * mode, wide characters (2 cells; one that does not fit in the last column wraps whole and
   * leaves that column blank) and zero-width characters (joined to the preceding cell, or
   * alone in a cell when nothing precedes them in this print run), exactly as xterm.js's
   * `InputHandler.print`. `cont`: these code points continue the previous call's run (cut
   * only by a chunk boundary), so the run-start fix-up is skipped and the result does not
   * depend on how the stream was chunked.
   */
  print(buf: Uint32Array, n: number, cont = false): void {
    if (n <= 0) return;
    const g = this.g;
    const cols = this.cols;
    const cells = g.cells;
    const bg = g.bg;
    const tag = this.bgTag;
    const fast = this.charset === CHARSET_ASCII && !this.insertMode;
    let x = g.x;
    let y = g.y;
    let base = g.rowStart(y);
    let join = this.joinWidth;
    g.touch(y);
    // Overwriting the right half of a wide character blanks its left half.
    if (!cont && x > 0 && x <= cols && cells[base + x - 1] >>> WIDTH_SHIFT === 2) {
      cells[base + x - 1] = BLANK;
    }
    for (let k = 0; k < n; k++) {
      if (fast) {
        // Width-1 characters that fit in the row: straight into the cells.
        while (x < cols) {
          const c = buf[k];
          if (c >= 0x10000 || BMP_WIDTHS[c] !== 1) break;
          bg[base + x] = tag;
          cells[base + x++] = c | BLANK;
          join = 1;
          if (++k === n) break;
        }
        if (k === n) break;
      }
      let cp = buf[k];
      if (cp < 0x7f && this.charset !== CHARSET_ASCII) cp = mapCharset(this.charset, cp);
      let w: number = cp < 0x7f ? 1 : cp < 0x10000 ? BMP_WIDTHS[cp] : wcwidth(cp);
      const shouldJoin = w === 0 && join !== 0;
      const oldWidth = shouldJoin ? join : 0;
      if (shouldJoin) w = join;
      join = w;
      if (x + w - oldWidth > cols) {
        if (this.wraparound) {
          // Wrap: continue on the next row, which becomes a soft-wrapped continuation.
          const oldBase = base;
          let oldCol = x - oldWidth;
          x = oldWidth;
          y++;
          if (y === g.scrollBottom + 1) {
            y--;
            this.scrollUp(true);
          } else {
            if (y >= this.rows) y = this.rows - 1;
            g.setWrapped(y, true);
          }
          base = g.rowStart(y);
          g.touch(y);
          // (xterm copies the joined cell along when oldWidth > 0; with Unicode 11 widths a
          // joining character never overflows, so that branch cannot run.)
          while (oldCol < cols) cells[oldBase + oldCol++] = BLANK;
        } else {
          x = cols - 1;
          if (w === 2) continue; // a wide character does not fit: dropped, as in xterm
        }
      }
      if (shouldJoin && x) {
        const i = base + x - (cells[base + x - 1] >>> WIDTH_SHIFT ? 1 : 2);
        if (i >= base) this.addToCell(i, cp, w);
        continue;
      }
      if (this.insertMode) {
        g.insertCells(y, x, w - oldWidth);
        if (cells[base + cols - 1] >>> WIDTH_SHIFT === 2) cells[base + cols - 1] = BLANK;
      }
      if (x < cols) {
        cells[base + x] = cp | (w << WIDTH_SHIFT);
        bg[base + x] = tag;
      }
      x++;
      if (w === 2) {
        if (x < cols) cells[base + x] = 0; // spacer: width 0, no text
        x++;
      }
    }
    // A spacer left orphaned right of the cursor (its wide character was overwritten) is blanked.
    if (x < cols) {
      const c = cells[base + x];
      if (c >>> WIDTH_SHIFT === 0 && (c & CONTENT_MASK) === 0) cells[base + x] = BLANK;
    }
    g.x = x;
    g.y = y;
    this.joinWidth = join;
    this.version++;
  }

  /**
   * The same as {@link print} for text read in place from UTF-8 bytes `data[start..)` (the
   * ground state's fast path): prints printable ASCII and complete, valid 2- and 3-byte
   * characters of width 1, and stops at anything else (a control, a wide, zero-width or
   * 4-byte character, an invalid or cut sequence), returning the index it stopped at; the
   * parser deals with that byte. Declines (returns `start`) while a charset or insert mode
   * is in use.
   */
  printText(data: Uint8Array, start: number, len: number, cont: boolean): number {
    if (this.charset !== CHARSET_ASCII || this.insertMode) return start;
    const g = this.g;
    const cols = this.cols;
    const cells = g.cells;
    const bg = g.bg;
    const tag = this.bgTag;
    let x = g.x;
    let y = g.y;
    let base = g.rowStart(y);
    g.touch(y);
    let i = start;
    while (i < len) {
      const b = data[i];
      let cp: number;
      let next: number;
      if (b < 0x80) {
        if (b < 0x20 || b === 0x7f) break;
        cp = b;
        next = i + 1;
      } else if (b >= 0xe0) {
        if (b >= 0xf0 || i + 2 >= len) break;
        const b2 = data[i + 1];
        const b3 = data[i + 2];
        if ((b2 & 0xc0) !== 0x80 || (b3 & 0xc0) !== 0x80) break;
        cp = ((b & 0x0f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
        if (BMP_WIDTHS[cp] !== 1 || cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) break;
        next = i + 3;
      } else {
        if (b < 0xc2 || i + 1 >= len) break;
        const b2 = data[i + 1];
        cp = ((b & 0x1f) << 6) | (b2 & 0x3f);
        if ((b2 & 0xc0) !== 0x80 || cp < 0xa0 || BMP_WIDTHS[cp] !== 1) break;
        next = i + 2;
      }
      if (i === start && !cont && x > 0 && x <= cols && cells[base + x - 1] >>> WIDTH_SHIFT === 2) {
        cells[base + x - 1] = BLANK; // the run starts on the right half of a wide character
      }
      if (x >= cols) {
        if (this.wraparound) {
          x = 0;
          y++;
          if (y === g.scrollBottom + 1) {
            y--;
            this.scrollUp(true);
          } else {
            if (y >= this.rows) y = this.rows - 1;
            g.setWrapped(y, true);
          }
          base = g.rowStart(y);
          g.touch(y);
        } else {
          x = cols - 1;
        }
      }
      bg[base + x] = tag;
      cells[base + x++] = cp | BLANK; // width 1
      i = next;
    }
    if (i === start) return start;
    if (x < cols) {
      const c = cells[base + x];
      if (c >>> WIDTH_SHIFT === 0 && (c & CONTENT_MASK) === 0) cells[base + x] = BLANK;
    }
    g.x = x;
    g.y = y;
    this.joinWidth = 1;
    this.version++;
    return i;
  }

  /** Adds a zero-width code point to cell index `i` (xterm `BufferLine.addCodepointToCell`). */
  private addToCell(i: number, cp: number, width: number): void {
    const g = this.g;
    let c = g.cells[i];
    if (c & COMBINED) {
      const s = g.combined.get(i) ?? '';
      if (s.length < MAX_COMBINED) g.combined.set(i, s + codePointString(cp));
    } else if (c & CP_MASK) {
      g.combined.set(i, codePointString(c & CP_MASK) + codePointString(cp));
      c = (c & ~CP_MASK) | COMBINED;
    } else {
      c = cp | BLANK;
    }
    if (width) c = (c & ~(3 << WIDTH_SHIFT)) | (width << WIDTH_SHIFT);
    g.cells[i] = c >>> 0;
    g.touchPhysical(Math.floor(i / g.cols));
  }

  /**
   * CSI Ps b: repeat the preceding graphic character Ps times (REP), ECMA-48 8.3.103. Only
   * right after printing (xterm: otherwise ignored); repeats the whole cell, marks included.
   */
  rep(n: number): void {
    const w = this.joinWidth;
    if (!w) return;
    const g = this.g;
    const text = g.cellText(g.y, g.x - w);
    if (!text) return;
    const buf = this.repBuf;
    let len = 0;
    for (const ch of text) {
      if (len === MAX_COMBINED) break;
      buf[len++] = ch.codePointAt(0) ?? 0;
    }
    // Fill the buffer with as many whole copies as fit, then print it in slices.
    const per = Math.floor(buf.length / len);
    for (let k = 1; k < per; k++) buf.copyWithin(k * len, 0, len);
    let left = Math.min(n, MAX_REPEAT);
    let cont = false;
    while (left > 0) {
      const copies = Math.min(left, per);
      this.print(buf, copies * len, cont);
      cont = true;
      left -= copies;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Cursor

  /** Clamps the cursor into the screen, or into the scroll region under DECOM (xterm `_restrictCursor`). */
  private restrict(maxCol = this.cols - 1): void {
    const g = this.g;
    g.x = Math.min(maxCol, Math.max(0, g.x));
    g.y = this.origin
      ? Math.min(g.scrollBottom, Math.max(g.scrollTop, g.y))
      : Math.min(this.rows - 1, Math.max(0, g.y));
  }

  /** Absolute cursor placement; under DECOM the row counts from the region's top. */
  private setCursor(x: number, y: number): void {
    const g = this.g;
    const maxX = this.cols - 1;
    g.x = x < 0 ? 0 : x > maxX ? maxX : x;
    if (this.origin) {
      y += g.scrollTop;
      g.y = y < g.scrollTop ? g.scrollTop : y > g.scrollBottom ? g.scrollBottom : y;
    } else {
      g.y = y < 0 ? 0 : y >= this.rows ? this.rows - 1 : y;
    }
  }

  /** Relative move (xterm `_moveCursor`; under DECOM it adds the region top again, as xterm does). */
  private moveCursor(dx: number, dy: number): void {
    this.restrict();
    this.setCursor(this.g.x + dx, this.g.y + dy);
  }

  /** CSI Ps A: cursor up Ps rows, stopping at the scroll region's top (CUU), ECMA-48 8.3.22. */
  cuu(n: number): void {
    const g = this.g;
    const diff = g.y - g.scrollTop;
    this.moveCursor(0, diff >= 0 ? -Math.min(diff, n) : -n);
  }

  /** CSI Ps B: cursor down Ps rows, stopping at the scroll region's bottom (CUD), ECMA-48 8.3.19. */
  cud(n: number): void {
    const g = this.g;
    const diff = g.scrollBottom - g.y;
    this.moveCursor(0, diff >= 0 ? Math.min(diff, n) : n);
  }

  /** CSI Ps C: cursor forward Ps columns (CUF), ECMA-48 8.3.20. */
  cuf(n: number): void {
    this.moveCursor(n, 0);
  }

  /** CSI Ps D: cursor backward Ps columns (CUB), ECMA-48 8.3.18. */
  cub(n: number): void {
    this.moveCursor(-n, 0);
  }

  /** CSI Ps E: cursor down Ps rows to column 0 (CNL), ECMA-48 8.3.12. */
  cnl(n: number): void {
    this.cud(n);
    this.g.x = 0;
  }

  /** CSI Ps F: cursor up Ps rows to column 0 (CPL), ECMA-48 8.3.13. */
  cpl(n: number): void {
    this.cuu(n);
    this.g.x = 0;
  }

  /** CSI Ps G and CSI Ps `: cursor to column Ps, 1-based (CHA, HPA), ECMA-48 8.3.9 / 8.3.57. */
  cha(n: number): void {
    this.setCursor(n - 1, this.g.y);
  }

  /** CSI Ps ; Ps H and CSI Ps ; Ps f: cursor to row;column, 1-based (CUP, HVP), ECMA-48 8.3.21 / 8.3.63. */
  cup(row: number, col: number): void {
    this.setCursor(col - 1, row - 1);
  }

  /** CSI Ps d: cursor to row Ps, 1-based, same column (VPA), ECMA-48 8.3.158. */
  vpa(n: number): void {
    this.setCursor(this.g.x, n - 1);
  }

  /** CSI Ps e: cursor down Ps rows, ignoring the scroll region (VPR), ECMA-48 8.3.160. */
  vpr(n: number): void {
    this.moveCursor(0, n);
  }

  /** CSI Ps a: cursor forward Ps columns (HPR), ECMA-48 8.3.59. */
  hpr(n: number): void {
    this.moveCursor(n, 0);
  }

  /** CR: carriage return to column 0, ECMA-48 8.3.15. */
  cr(): void {
    this.g.x = 0;
  }

  /**
   * BS: cursor back one column (ECMA-48 8.3.5); from a pending wrap it lands on cols-2 as in
   * xterm. With reverse wraparound (?45) column 0 of a soft-wrapped row goes to the row above.
   */
  bs(): void {
    const g = this.g;
    if (!this.reverseWraparound) {
      this.restrict();
      if (g.x > 0) g.x--;
      return;
    }
    this.restrict(this.cols);
    if (g.x > 0) {
      g.x--;
    } else if (g.y > g.scrollTop && g.y <= g.scrollBottom && g.isWrapped(g.y)) {
      g.setWrapped(g.y, false);
      g.y--;
      g.x = this.cols - 1;
      const c = g.cells[g.rowStart(g.y) + g.x];
      if (c >>> WIDTH_SHIFT && !(c & CONTENT_MASK)) g.x--;
    }
    this.restrict();
  }

  /**
   * LF, VT, FF: line feed (ECMA-48 8.3.74): next row, scrolling the region at its bottom;
   * clears the new row's soft-wrap flag; a pending wrap is dropped. Under LNM also CR.
   */
  lf(): void {
    const g = this.g;
    if (this.newline) g.x = 0;
    g.y++;
    if (g.y === g.scrollBottom + 1) {
      g.y--;
      this.scrollUp(false);
    } else if (g.y >= this.rows) {
      g.y = this.rows - 1;
    } else {
      g.setWrapped(g.y, false);
    }
    if (g.x >= this.cols) g.x--;
  }

  /** ESC D: index, down one row scrolling at the region's bottom (IND), DEC STD 070. */
  ind(): void {
    const g = this.g;
    this.restrict();
    g.y++;
    if (g.y === g.scrollBottom + 1) {
      g.y--;
      this.scrollUp(false);
    } else if (g.y >= this.rows) {
      g.y = this.rows - 1;
    }
    this.restrict();
  }

  /** ESC E: next line, CR + IND (NEL), ECMA-48 8.3.86. */
  nel(): void {
    this.g.x = 0;
    this.ind();
  }

  /** ESC M: reverse index, up one row scrolling down at the region's top (RI), ECMA-48 8.3.104. */
  ri(): void {
    const g = this.g;
    this.restrict();
    if (g.y === g.scrollTop) {
      g.rotateDown(g.scrollTop, g.scrollBottom);
      this.version++;
    } else {
      g.y--;
      this.restrict();
    }
  }

  /** Scrolls the region up one row; the entering row gets soft-wrap flag `wrapped`. */
  private scrollUp(wrapped: boolean): void {
    const g = this.g;
    g.rotateUp(g.scrollTop, g.scrollBottom, wrapped);
    if (g.scrollTop === 0 && g === this.normal && g.ybase < SCROLLBACK) g.ybase++;
    this.version++;
  }

  /** ESC 7 and CSI s: save cursor and charset (DECSC / SCOSC), DEC STD 070. */
  decsc(): void {
    const g = this.g;
    g.savedX = g.x;
    g.savedY = g.ybase + g.y;
    g.savedCharset = this.charset;
  }

  /** ESC 8 and CSI u: restore cursor and charset (DECRC / SCORC), DEC STD 070. */
  decrc(): void {
    const g = this.g;
    g.x = g.savedX;
    g.y = Math.max(g.savedY - g.ybase, 0);
    this.charset = g.savedCharset;
    this.restrict();
  }

  // ---------------------------------------------------------------------------------------
  // Tabs

  private nextStop(x: number): number {
    const tabs = this.g.tabs;
    while (!tabs[++x] && x < this.cols);
    return x >= this.cols ? this.cols - 1 : x < 0 ? 0 : x;
  }

  private prevStop(x: number): number {
    const tabs = this.g.tabs;
    while (!tabs[--x] && x > 0);
    return x >= this.cols ? this.cols - 1 : x < 0 ? 0 : x;
  }

  /** HT: to the next tab stop or the last column (ECMA-48 8.3.60). */
  ht(): void {
    if (this.g.x < this.cols) this.g.x = this.nextStop(this.g.x);
  }

  /** CSI Ps I: forward Ps tab stops (CHT), ECMA-48 8.3.10. */
  cht(n: number): void {
    const g = this.g;
    if (g.x >= this.cols) return;
    for (n = Math.min(n, this.cols); n > 0; n--) g.x = this.nextStop(g.x);
  }

  /** CSI Ps Z: back Ps tab stops (CBT), ECMA-48 8.3.7. */
  cbt(n: number): void {
    const g = this.g;
    if (g.x >= this.cols) return;
    for (n = Math.min(n, this.cols); n > 0; n--) g.x = this.prevStop(g.x);
  }

  /** ESC H: set a tab stop at the cursor column (HTS), ECMA-48 8.3.62. */
  hts(): void {
    const g = this.g;
    if (g.x < g.tabs.length) g.tabs[g.x] = 1;
  }

  /** CSI Ps g: clear the tab stop at the cursor (0) or all (3) (TBC), ECMA-48 8.3.154. */
  tbc(p: number): void {
    const g = this.g;
    if (p === 0) {
      if (g.x < g.tabs.length) g.tabs[g.x] = 0;
    } else if (p === 3) {
      g.tabs.fill(0);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Erasing, inserting, deleting

  /**
   * CSI Ps J: erase in display (ED), ECMA-48 8.3.39: 0 cursor to end, 1 start to cursor,
   * 2 everything, 3 scrollback (here: nothing visible; the saved-row offset resets).
   */
  ed(p: number): void {
    const g = this.g;
    this.restrict(this.cols);
    const y = g.y;
    switch (p) {
      case 0:
        g.eraseCells(y, g.x, this.cols);
        if (g.x === 0) g.setWrapped(y, false);
        for (let j = y + 1; j < this.rows; j++) g.clearRow(j);
        break;
      case 1: {
        g.eraseCells(y, 0, g.x + 1);
        g.setWrapped(y, false);
        if (g.x + 1 >= this.cols) {
          // xterm clears the wrap flag of buffer line y+1 counted from the top of its
          // scrollback, i.e. visible row y+1-ybase (a bug kept for equality).
          const r = y + 1 - g.ybase;
          if (r >= 0 && r < this.rows) g.setWrapped(r, false);
        }
        for (let j = 0; j < y; j++) g.clearRow(j);
        break;
      }
      case 2:
        for (let j = 0; j < this.rows; j++) g.clearRow(j);
        break;
      case 3:
        g.ybase = 0;
        return;
      default:
        return;
    }
    this.version++;
  }

  /** CSI Ps K: erase in line (EL), ECMA-48 8.3.41: 0 cursor to end, 1 start to cursor, 2 all. */
  el(p: number): void {
    const g = this.g;
    this.restrict(this.cols);
    switch (p) {
      case 0:
        g.eraseCells(g.y, g.x, this.cols);
        if (g.x === 0) g.setWrapped(g.y, false);
        break;
      case 1:
        g.eraseCells(g.y, 0, g.x + 1);
        break;
      case 2:
        g.eraseCells(g.y, 0, this.cols);
        g.setWrapped(g.y, false);
        break;
      default:
        return;
    }
    this.version++;
  }

  /** CSI Ps X: erase Ps characters from the cursor on (ECH), ECMA-48 8.3.38. */
  ech(n: number): void {
    this.restrict();
    const g = this.g;
    g.eraseCells(g.y, g.x, g.x + n);
    this.version++;
  }

  /** CSI Ps @: insert Ps blank characters at the cursor (ICH), ECMA-48 8.3.64. */
  ich(n: number): void {
    this.restrict();
    this.g.insertCells(this.g.y, this.g.x, n);
    this.version++;
  }

  /** CSI Ps P: delete Ps characters at the cursor (DCH), ECMA-48 8.3.26. */
  dch(n: number): void {
    this.restrict();
    this.g.deleteCells(this.g.y, this.g.x, n);
    this.version++;
  }

  /** CSI Ps L: insert Ps blank rows at the cursor row inside the scroll region (IL), ECMA-48 8.3.67. */
  il(n: number): void {
    this.restrict();
    const g = this.g;
    if (g.y > g.scrollBottom || g.y < g.scrollTop) return;
    n = Math.min(n, g.scrollBottom - g.y + 1);
    for (let i = 0; i < n; i++) g.rotateDown(g.y, g.scrollBottom);
    g.x = 0;
    this.version++;
  }

  /** CSI Ps M: delete Ps rows at the cursor row inside the scroll region (DL), ECMA-48 8.3.32. */
  dl(n: number): void {
    this.restrict();
    const g = this.g;
    if (g.y > g.scrollBottom || g.y < g.scrollTop) return;
    n = Math.min(n, g.scrollBottom - g.y + 1);
    for (let i = 0; i < n; i++) g.rotateUp(g.y, g.scrollBottom);
    g.x = 0;
    this.version++;
  }

  /** CSI Ps S: scroll the region up Ps rows (SU), ECMA-48 8.3.147. */
  su(n: number): void {
    const g = this.g;
    n = Math.min(n, g.scrollBottom - g.scrollTop + 1);
    for (let i = 0; i < n; i++) g.rotateUp(g.scrollTop, g.scrollBottom);
    this.version++;
  }

  /** CSI Ps T: scroll the region down Ps rows (SD), ECMA-48 8.3.113. */
  sd(n: number): void {
    const g = this.g;
    n = Math.min(n, g.scrollBottom - g.scrollTop + 1);
    for (let i = 0; i < n; i++) g.rotateDown(g.scrollTop, g.scrollBottom);
    this.version++;
  }

  /** Applies `op` to every row of the scroll region when the cursor is inside it (SL, SR, DECIC, DECDC). */
  private regionColumns(op: (y: number) => void): void {
    const g = this.g;
    if (g.y > g.scrollBottom || g.y < g.scrollTop) return;
    for (let y = g.scrollTop; y <= g.scrollBottom; y++) {
      op(y);
      g.setWrapped(y, false);
    }
    this.version++;
  }

  /** CSI Ps SP @: scroll left Ps columns (SL), ECMA-48 8.3.121. */
  sl(n: number): void {
    this.regionColumns((y) => this.g.deleteCells(y, 0, n));
  }

  /** CSI Ps SP A: scroll right Ps columns (SR), ECMA-48 8.3.135. */
  sr(n: number): void {
    this.regionColumns((y) => this.g.insertCells(y, 0, n));
  }

  /** CSI Ps ' }: insert Ps blank columns at the cursor column (DECIC), DEC STD 070. */
  decic(n: number): void {
    this.regionColumns((y) => this.g.insertCells(y, this.g.x, n));
  }

  /** CSI Ps ' ~: delete Ps columns at the cursor column (DECDC), DEC STD 070. */
  decdc(n: number): void {
    this.regionColumns((y) => this.g.deleteCells(y, this.g.x, n));
  }

  /** ESC # 8: fill the screen with 'E' (DECALN), DEC STD 070. */
  decaln(): void {
    const g = this.g;
    this.setCursor(0, 0);
    for (let y = g.y; y < this.rows; y++) {
      const start = g.rowStart(y);
      g.cells.fill(0x45 | BLANK, start, start + this.cols);
      g.touch(y);
      g.setWrapped(y, false);
    }
    this.setCursor(0, 0);
    this.version++;
  }

  // ---------------------------------------------------------------------------------------
  // Modes and state

  /**
   * CSI Ps ; Ps r: set the scroll region, 1-based inclusive rows, and home the cursor
   * (DECSTBM), DEC STD 070. Ignored unless bottom > top.
   */
  decstbm(top: number, bottom: number): void {
    if (bottom > this.rows || bottom === 0) bottom = this.rows;
    if (top === 0) top = 1;
    if (bottom > top) {
      this.g.scrollTop = top - 1;
      this.g.scrollBottom = bottom - 1;
      this.setCursor(0, 0);
    }
  }

  /** DECOM (CSI ? 6 h / l): origin mode on/off; homes the cursor (DEC STD 070). */
  setOrigin(on: boolean): void {
    this.origin = on;
    this.setCursor(0, 0);
  }

  /**
   * CSI ? 47/1047/1049 h: switch to the alternate screen, blank, cursor carried over
   * (xterm `activateAltBuffer`; 1049 saves the cursor first, done by the caller).
   */
  enterAlt(): void {
    if (this.g !== this.normal) return;
    let alt = this.alt;
    if (!alt) alt = this.alt = new Grid(this.rows, this.cols);
    alt.clearAll();
    alt.scrollTop = 0;
    alt.scrollBottom = this.rows - 1;
    alt.resetTabs();
    alt.x = this.normal.x;
    alt.y = this.normal.y;
    this.g = alt;
    alt.markAllChanged();
    this.version++;
  }

  /** CSI ? 47/1047/1049 l: back to the normal screen, cursor carried over (xterm `activateNormalBuffer`). */
  leaveAlt(): void {
    if (this.g === this.normal) return;
    this.normal.x = this.g.x;
    this.normal.y = this.g.y;
    this.g = this.normal;
    this.normal.markAllChanged();
    this.version++;
  }

  /** SO, SI, LS2, LS3 (and xterm's LS1R..LS3R): use G`level` (ECMA-35 / DEC STD 070). */
  setGLevel(level: number): void {
    this.glevel = level;
    this.charset = this.gsets[level];
  }

  /** ESC ( F and friends: designate charset `id` into G`slot` (SCS, DEC STD 070). */
  designate(slot: number, id: number): void {
    this.gsets[slot] = id;
    if (this.glevel === slot) this.charset = id;
  }

  private resetCharsets(): void {
    this.gsets.fill(CHARSET_ASCII);
    this.glevel = 0;
    this.charset = CHARSET_ASCII;
  }

  /** CSI ! p: soft terminal reset (DECSTR), DEC STD 070 / xterm `softReset`. */
  decstr(): void {
    const g = this.g;
    g.scrollTop = 0;
    g.scrollBottom = this.rows - 1;
    this.insertMode = false;
    this.wraparound = true;
    this.origin = false;
    this.reverseWraparound = false;
    this.resetCharsets();
    g.savedX = 0;
    g.savedY = g.ybase;
    g.savedCharset = CHARSET_ASCII;
  }

  /**
   * ESC c: full reset (RIS), ECMA-48 8.3.105: blank normal screen, cursor home, modes,
   * charsets and tab stops reset. LNM survives, as in xterm (there it is an option).
   */
  ris(): void {
    this.normal = new Grid(this.rows, this.cols);
    this.alt = null;
    this.g = this.normal;
    this.insertMode = false;
    this.wraparound = true;
    this.origin = false;
    this.reverseWraparound = false;
    this.resetCharsets();
    this.joinWidth = 0;
    this.version++;
  }

  /**
   * Changes the size. Rows are cut or added at the bottom, except that rows above the cursor
   * are dropped first when the cursor would fall off; columns are cut or added at the right
   * (no reflow of soft-wrapped rows, unlike xterm's normal buffer). Scroll regions reset.
   */
  resize(rows: number, cols: number): void {
    rows = clampSize(rows, 1, MAX_ROWS);
    cols = clampSize(cols, MIN_COLS, MAX_COLS);
    if (rows === this.rows && cols === this.cols) return;
    const wasAlt = this.g !== this.normal;
    this.normal = this.resizeGrid(this.normal, rows, cols);
    if (this.alt) this.alt = this.resizeGrid(this.alt, rows, cols);
    this.rows = rows;
    this.cols = cols;
    this.g = wasAlt && this.alt ? this.alt : this.normal;
    this.joinWidth = 0;
    this.version++;
  }

  private resizeGrid(old: Grid, rows: number, cols: number): Grid {
    const g = new Grid(rows, cols);
    // Rows dropped from the top so that the cursor row stays on screen.
    const drop = Math.max(0, old.y - (rows - 1));
    const w = Math.min(cols, old.cols);
    for (let y = 0; y < rows && y + drop < old.rows; y++) {
      const from = old.rowStart(y + drop);
      const to = g.rowStart(y);
      g.cells.set(old.cells.subarray(from, from + w), to);
      g.bg.set(old.bg.subarray(from, from + w), to);
      if (w < cols) g.cells.fill(BLANK, to + w, to + cols);
      else if (g.cells[to + cols - 1] >>> WIDTH_SHIFT === 2) g.cells[to + cols - 1] = BLANK;
      g.setWrapped(y, old.isWrapped(y + drop));
      for (let x = 0; x < w; x++) {
        if (g.cells[to + x] & COMBINED) g.combined.set(to + x, old.combined.get(from + x) ?? '');
      }
    }
    for (let x = 0; x < Math.min(cols, old.cols); x++) g.tabs[x] = old.tabs[x];
    for (let x = old.cols; x < cols; x++) g.tabs[x] = x % 8 === 0 ? 1 : 0;
    g.x = Math.min(old.x, cols - 1);
    g.y = Math.min(old.y - drop, rows - 1);
    g.savedX = Math.min(old.savedX, cols - 1);
    g.savedY = old.savedY;
    g.savedCharset = old.savedCharset;
    g.ybase = old.ybase;
    return g;
  }
}
