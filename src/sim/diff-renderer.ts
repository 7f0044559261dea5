/**
 * How the simulated agent (agent.ts) writes its frames: Claude Code 2.1.332's cell-diff habits
 * (fixtures/claude-code/README.md "What this version looks like"), rows as styled spans.
 */

/** A run of text in one style (SGR parameters, '' for the default). */
export interface Span {
  text: string;
  style?: string;
}
/** One screen row. */
export type Line = Span[];

/** A row of one span. */
export const plain = (text: string, style?: string): Line => [{ text, style }];

/**
 * Turns frames into Claude-style cell-diff bytes: only rows that changed are written, each
 * reached from `ESC[H` with `\r` + `ESC[nB`, erased with `ESC[2K` and its words placed with
 * `ESC[nG`. Widths: every character used here is one cell wide (Unicode 11).
 */
export class DiffRenderer {
  /** What each row shows now, as a key ('' = blank). */
  #rows: string[] = [];

  constructor(public rows: number, public cols: number) {}

  /** Forgets what is on screen: the next render writes every row after `ESC[2J`. */
  invalidate(): void {
    this.#rows = [];
  }

  /** Marks rows `from`..end as blank (after the caller erased them with `ESC[J`). */
  blankFrom(from: number): void {
    for (let y = from; y < this.rows; y++) this.#rows[y] = '';
  }

  /** The bytes that turn the last frame into `frame` (length = rows). */
  render(frame: Line[]): string {
    const full = this.#rows.length === 0;
    let out = full ? '\x1b[2J\x1b[H' : '';
    let at = -1; // the row the cursor is on, -1 = unknown (go home first)
    for (let y = 0; y < this.rows; y++) {
      const line = frame[y] ?? [];
      const key = rowKey(line);
      if (!full && this.#rows[y] === key) continue;
      if (full && key === '') {
        this.#rows[y] = key;
        continue;
      }
      if (at < 0) {
        if (!full) out += '\x1b[H';
        at = 0;
      }
      if (y > at) out += `\r\x1b[${y - at}B`;
      else out += '\r';
      at = y;
      out += (this.#rows[y] ? '\x1b[2K' : '') + rowBytes(line, this.cols);
      this.#rows[y] = key;
    }
    return out;
  }
}

function rowKey(line: Line): string {
  let k = '';
  for (const s of line) if (s.text) k += `${s.style ?? ''}\u0001${s.text}\u0002`;
  return k.replace(/ +\u0002$/, '\u0002');
}

/** One row's bytes: SGR per span, each word placed with `ESC[nG`, cut at `cols`. */
function rowBytes(line: Line, cols: number): string {
  let out = '';
  let col = 0;
  let move = false;
  let style = '';
  for (const span of line) {
    for (const ch of span.text) {
      if (col >= cols) break;
      if (ch === ' ') {
        col++;
        move = true;
        continue;
      }
      if ((span.style ?? '') !== style) {
        style = span.style ?? '';
        out += `\x1b[0m${style ? `\x1b[${style}m` : ''}`;
      }
      if (move) out += `\x1b[${col + 1}G`;
      move = false;
      out += ch;
      col++;
    }
  }
  return style ? out + '\x1b[0m' : out;
}
