/**
 * The reference emulator for the VT core's differential tests: @xterm/headless 6.0.0 with the
 * Unicode 11 width addon, configured like the fixtures' `.screen.txt` files were made
 * (DESIGN.md section 3; fixtures/README.md). Dev dependency only: nothing in src/ imports it.
 */
import { createRequire } from 'node:module';

// Both packages are CommonJS bundles; require() loads them the same way under ESM and tsx.
const require = createRequire(import.meta.url);
const { Terminal: XTerm } = require('@xterm/headless') as typeof import('@xterm/headless');
const { Unicode11Addon } = require(
  '@xterm/addon-unicode11',
) as typeof import('@xterm/addon-unicode11');

/** What the oracle saw after a stream: the same fields our Terminal exposes. */
export interface OracleScreen {
  /** Visible rows, each `translateToString(true)` with trailing spaces trimmed. */
  rows: string[];
  /** `wrapped[y]`: row y continues on row y+1 (xterm's `isWrapped` of row y+1). */
  wrapped: boolean[];
  /** Cursor, 0-based; xterm's column may be `cols` (pending wrap). */
  cursor: { row: number; col: number };
  /** Last title set by OSC 0/2, '' when none. */
  title: string;
  /** True when the alternate buffer is active. */
  altScreen: boolean;
}

/** A headless xterm at `rows` x `cols` with Unicode 11 widths active. */
export function makeXterm(rows: number, cols: number) {
  const term = new XTerm({
    rows,
    cols,
    allowProposedApi: true,
    logLevel: 'off',
    scrollback: 1000,
  });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  let title = '';
  term.onTitleChange((t: string) => {
    title = t;
  });
  return {
    term,
    /** Feeds bytes synchronously (xterm's internal writeSync; same parser as write). */
    writeSync(data: Uint8Array): void {
      // deno-lint-ignore no-explicit-any
      (term as any)._core.writeSync(data);
    },
    /** Feeds bytes through the public async API and resolves when they are parsed. */
    write(data: Uint8Array): Promise<void> {
      return new Promise((resolve) => term.write(data, resolve));
    },
    screen(): OracleScreen {
      const buf = term.buffer.active;
      const rowsOut: string[] = [];
      const wrapped: boolean[] = [];
      for (let y = 0; y < rows; y++) {
        const line = buf.getLine(buf.baseY + y);
        rowsOut.push(line ? line.translateToString(true).replace(/ +$/, '') : '');
        const next = y + 1 < rows ? buf.getLine(buf.baseY + y + 1) : undefined;
        wrapped.push(next ? next.isWrapped : false);
      }
      return {
        rows: rowsOut,
        wrapped,
        cursor: { row: buf.cursorY, col: buf.cursorX },
        title,
        altScreen: buf.type === 'alternate',
      };
    },
    dispose(): void {
      term.dispose();
    },
  };
}

/** Renders `data` written in one piece; throws what xterm throws. */
export function xtermRender(data: Uint8Array, rows = 32, cols = 120): OracleScreen {
  const x = makeXterm(rows, cols);
  try {
    x.writeSync(data);
    return x.screen();
  } finally {
    x.dispose();
  }
}
