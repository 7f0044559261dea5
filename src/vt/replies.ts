/**
 * What a real terminal answers to queries (DSR, DA, DECRQM, OSC colour queries, ...): the
 * bytes are queued here and the runtime writes them back to the program, which otherwise
 * waits for them at start-up when no real terminal is attached (Codex, opencode, Gemini CLI).
 * Reply formats: xterm ctlseqs, "Device-Status-Report", "Send Device Attributes",
 * "Request Mode", "Operating System Commands" (colour reports `rgb:RRRR/GGGG/BBBB`).
 */

/** Most reply bytes held between two `take` calls; later replies are dropped. */
export const MAX_REPLY_BYTES = 4096;

/** A bounded queue of reply bytes. */
export class Replies {
  private buf: Uint8Array | null = null;
  private len = 0;

  /** Queues an ASCII (7-bit) string; dropped whole when it would not fit. */
  push(s: string): void {
    if (this.len + s.length > MAX_REPLY_BYTES) return;
    if (this.buf === null) this.buf = new Uint8Array(MAX_REPLY_BYTES);
    for (let i = 0; i < s.length; i++) this.buf[this.len++] = s.charCodeAt(i) & 0x7f;
  }

  /** The queued bytes (a copy), or null when there are none; empties the queue. */
  take(): Uint8Array | null {
    if (this.len === 0 || this.buf === null) return null;
    const out = this.buf.slice(0, this.len);
    this.len = 0;
    return out;
  }
}

/** Default foreground, background and cursor colours (xterm.js's default theme), 0xRRGGBB. */
export const DEFAULT_FG = 0xffffff;
export const DEFAULT_BG = 0x000000;
export const DEFAULT_CURSOR = 0xffffff;

/**
 * The dynamic colours OSC 10..19 report, indexed by OSC number - 10, 0xRRGGBB (xterm ctlseqs,
 * "Operating System Commands", Ps = 10..19; xterm's defaults: the pointer (13/14) and
 * Tektronix (15/16, 18) colours follow the text colours, the highlight (17 background, 19
 * foreground) is reverse video). opencode 1.18.33 (opentui) asks for all of them at start-up
 * and waits for the missing ones until its own timeout.
 */
export const DYNAMIC_COLORS: readonly number[] = [
  DEFAULT_FG, // 10 text foreground
  DEFAULT_BG, // 11 text background
  DEFAULT_CURSOR, // 12 text cursor
  DEFAULT_FG, // 13 pointer foreground
  DEFAULT_BG, // 14 pointer background
  DEFAULT_FG, // 15 Tektronix foreground
  DEFAULT_BG, // 16 Tektronix background
  DEFAULT_FG, // 17 highlight background (reverse video)
  DEFAULT_FG, // 18 Tektronix cursor
  DEFAULT_BG, // 19 highlight foreground (reverse video)
];

/**
 * Size of one character cell in pixels that the window reports assume (`CSI 14 t`, `CSI 16 t`),
 * height then width: no window is drawn for a headless pane, so this is the common 8x16
 * console font; a real terminal attached answers with its own.
 */
export const CELL_PIXELS = { height: 16, width: 8 } as const;

/** The 16 ANSI colours of xterm.js's default theme (Tango), 0xRRGGBB. */
const ANSI = [
  0x2e3436,
  0xcc0000,
  0x4e9a06,
  0xc4a000,
  0x3465a4,
  0x75507b,
  0x06989a,
  0xd3d7cf,
  0x555753,
  0xef2929,
  0x8ae234,
  0xfce94f,
  0x729fcf,
  0xad7fa8,
  0x34e2e2,
  0xeeeeec,
];
const CUBE = [0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff];

/** Colour `index` (0..255) of the 256-colour palette as 0xRRGGBB (16 ANSI, 6x6x6 cube, 24 greys). */
export function paletteColor(index: number): number {
  if (index < 16) return ANSI[index];
  if (index < 232) {
    const i = index - 16;
    return (CUBE[Math.floor(i / 36)] << 16) | (CUBE[Math.floor(i / 6) % 6] << 8) | CUBE[i % 6];
  }
  const v = 8 + (index - 232) * 10;
  return (v << 16) | (v << 8) | v;
}

/** `rgb:RRRR/GGGG/BBBB` for 0xRRGGBB, each channel doubled to 16 bits (xterm's report form). */
export function rgbSpec(rgb: number): string {
  const ch = (v: number) => {
    const h = (v & 0xff).toString(16).padStart(2, '0');
    return h + h;
  };
  return `rgb:${ch(rgb >> 16)}/${ch(rgb >> 8)}/${ch(rgb)}`;
}
