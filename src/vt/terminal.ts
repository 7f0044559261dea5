/**
 * The VT core's public face: a terminal without a display. Feed it a program's output bytes
 * and read back the visible screen as text, the window title, OSC payloads and the replies a
 * real terminal would send. The layers above (detect, runtime, cli) use only this class.
 *
 * Same screen text as @xterm/headless 6.0.0 with Unicode 11 widths for the same bytes
 * (DESIGN.md section 3), checked by test/vt-*.test.ts on every fixture, on every split of
 * the Claude Code captures and on random streams.
 */
import { Parser } from './parser.ts';
import { Perform } from './perform.ts';
import { Screen } from './screen.ts';

/** What detection reads of a terminal (structurally `ScreenInput` of src/detect/types.ts). */
export interface ScreenSnapshot {
  /** Visible rows, top first, trailing blanks trimmed; length = rows. */
  rows: string[];
  /** `wrapped[y]`: row y continues on row y+1 (soft wrap). */
  wrapped: boolean[];
  /** Window title (OSC 0 / OSC 2), '' when never set. */
  title: string;
  /** Latest payload per OSC number (a copy). */
  osc: ReadonlyMap<number, string>;
}

/** A headless terminal of `rows` x `cols` cells. Single-threaded; no I/O. */
export class Terminal {
  private readonly screen: Screen;
  private readonly perform: Perform;
  private readonly parser: Parser;

  /**
   * @param rows visible rows, clamped to 1..1000 (default 32)
   * @param cols columns in cells, clamped to 2..2000 (default 120)
   */
  constructor(rows = 32, cols = 120) {
    this.screen = new Screen(rows, cols);
    this.perform = new Perform(this.screen);
    this.parser = new Parser(this.perform);
  }

  /** Visible rows (cells). */
  get rows(): number {
    return this.screen.rows;
  }

  /** Columns (cells). */
  get cols(): number {
    return this.screen.cols;
  }

  /**
   * Feeds program output. Chunks may be split anywhere, also inside an escape sequence or a
   * UTF-8 character. Invalid UTF-8 bytes are dropped (as xterm.js does). Never throws.
   */
  write(data: Uint8Array): void {
    this.parser.write(data);
  }

  /**
   * Changes the size (clamped like the constructor). Text stays at the top left, rows above
   * the cursor are dropped if the cursor would fall off; soft-wrapped rows are not reflowed.
   */
  resize(rows: number, cols: number): void {
    this.screen.resize(rows, cols);
  }

  /** The visible rows (never scrollback), each trimmed of trailing blanks, joined by '\n'. */
  screenText(): string {
    const g = this.screen.g;
    const out: string[] = [];
    for (let y = 0; y < this.screen.rows; y++) out.push(g.rowText(y));
    return out.join('\n');
  }

  /** Visible row `y` (0-based) trimmed of trailing blanks; '' outside the screen. */
  rowText(y: number): string {
    if (!(y >= 0 && y < this.screen.rows)) return '';
    return this.screen.g.rowText(Math.floor(y));
  }

  /**
   * The background tags of row `y`, one per UTF-16 code unit of {@link rowText}(y): 0 for the
   * default background, 255 for inverse video, else a hash (1..254) of the SGR background the
   * character was printed with. Equal tags mean the same background (collisions aside); [] for
   * a row out of range.
   */
  rowBackgrounds(y: number): number[] {
    if (!(y >= 0 && y < this.screen.rows)) return [];
    return this.screen.g.rowBackgrounds(Math.floor(y));
  }

  /** True when row `y` continues on row y+1 because of autowrap (soft wrap). */
  isWrapped(y: number): boolean {
    if (!(y >= 0 && y + 1 < this.screen.rows)) return false;
    return this.screen.g.isWrapped(Math.floor(y) + 1);
  }

  /** The OSC payloads as of {@link Perform.oscVersion} `#oscAt` (a copy, shared by snapshots). */
  #osc: ReadonlyMap<number, string> = new Map();
  #oscAt = -1;

  /**
   * Rows, wrap flags, title and OSC payloads at this moment. Cheap when little changed: each
   * row's text is rebuilt only when a cell of it changed, and the OSC copy only when a
   * payload changed (snapshots share it: treat it as read-only).
   */
  snapshot(): ScreenSnapshot {
    const g = this.screen.g;
    const n = this.screen.rows;
    const rows: string[] = new Array(n);
    const wrapped: boolean[] = new Array(n);
    for (let y = 0; y < n; y++) {
      rows[y] = g.rowText(y);
      wrapped[y] = y + 1 < n && g.isWrapped(y + 1);
    }
    if (this.#oscAt !== this.perform.oscVersion) {
      this.#osc = new Map(this.perform.osc);
      this.#oscAt = this.perform.oscVersion;
    }
    return { rows, wrapped, title: this.perform.title, osc: this.#osc };
  }

  /** Cursor position, 0-based; at a pending wrap the column is the last one. */
  get cursor(): { row: number; col: number } {
    const g = this.screen.g;
    return { row: g.y, col: Math.min(g.x, this.screen.cols - 1) };
  }

  /** Window title set by OSC 0 or OSC 2, '' when never set. */
  get title(): string {
    return this.perform.title;
  }

  /** Latest payload of OSC `n` (without the number and ';'), undefined when never seen. */
  oscPayload(n: number): string | undefined {
    return this.perform.osc.get(n);
  }

  /** Latest payload per OSC number (live view; at most 64 numbers, each at most 4 KB). */
  get osc(): ReadonlyMap<number, string> {
    return this.perform.osc;
  }

  /** True while the program shows the alternate screen (?47/?1047/?1049). */
  get altScreen(): boolean {
    return this.screen.altScreen;
  }

  /**
   * Increases whenever visible cells, the title or an OSC payload change (also on some
   * writes that leave them equal); compare with the last value seen to skip re-evaluation.
   */
  get version(): number {
    return this.screen.version;
  }

  /**
   * The bytes a terminal would have answered since the last call (DSR, DA1/DA2, DECRQM,
   * XTVERSION, OSC 4/10/11/12 colour queries, kitty keyboard query, DECRQSS, XTGETTCAP,
   * window size), or null when nothing was asked. At most 4 KB are held.
   */
  takeReplies(): Uint8Array | null {
    return this.perform.replies.take();
  }

  /**
   * The bytes to answer queries that no real terminal answers, so the runtime sends them even
   * when a real terminal is attached: the `OSC 7501 ; ?` state-report probe of Claude Code
   * 2.1.332 (answered with the probe itself). Empties the queue; null when empty.
   */
  takeExtensionReplies(): Uint8Array | null {
    return this.perform.extensionReplies.take();
  }

  /** Control sequences seen that the emulator does not know (counted, not logged). */
  get unknownSequences(): number {
    return this.perform.unknownSequences;
  }

  /**
   * kitty keyboard protocol flags the program set (`CSI > flags u`); 0 means legacy key
   * encoding. Whoever types into the program must encode keys accordingly.
   */
  get keyboardFlags(): number {
    return this.perform.keyboardFlags;
  }

  /** True while the program enabled bracketed paste (DECSET 2004; xterm ctlseqs). */
  get bracketedPaste(): boolean {
    return this.perform.bracketedPaste;
  }

  /**
   * True while the program is inside a synchronized update (DEC private mode 2026 set, `CSI ?
   * 2026 h`, not yet reset): the screen holds part of a frame that a terminal honouring the
   * mode would not show yet (contour's "Synchronized Output" spec, which kitty, foot, WezTerm
   * and iTerm2 follow). opencode 1.18 draws every frame so, and a frame of more than one PTY
   * read is torn in between.
   */
  get synchronizedUpdate(): boolean {
    return this.perform.syncOutput;
  }

  #titleSeen = 0;
  #otherOscSeen = 0;

  /**
   * The visible rows that may have changed since {@link markSeen}: one byte per visible row,
   * 1 when its text or wrap flag may have changed or it moved (a scroll, an inserted or
   * deleted line); every row after a resize, a buffer switch or a reset. A live view: read it
   * at once, it is replaced on resize.
   */
  get changedRows(): Uint8Array {
    return this.screen.g.changed;
  }

  /** How many of {@link changedRows} are set. */
  get changedRowCount(): number {
    return this.screen.g.changedCount;
  }

  /** True when the title (OSC 0 or 2) changed since {@link markSeen}. */
  get titleChanged(): boolean {
    return this.perform.titleVersion !== this.#titleSeen;
  }

  /** True when an OSC payload other than the title's changed since {@link markSeen}. */
  get otherOscChanged(): boolean {
    return this.perform.otherOscVersion !== this.#otherOscSeen;
  }

  /** Clears {@link changedRows}, {@link titleChanged} and {@link otherOscChanged}: what a reader has seen. */
  markSeen(): void {
    this.screen.g.markRowsSeen();
    this.#titleSeen = this.perform.titleVersion;
    this.#otherOscSeen = this.perform.otherOscVersion;
  }

  /** Bytes of typed arrays held by this terminal (grids, parser buffers). */
  byteSize(): number {
    return this.screen.byteSize() + this.parser.byteSize();
  }
}
