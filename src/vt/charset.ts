/**
 * Character sets a G0..G3 slot can hold (SCS: `ESC ( F` and friends, DEC STD 070 3.5;
 * xterm ctlseqs "Controls beginning with ESC"). Only two are modelled: US ASCII and the DEC
 * Special Graphics (line drawing) set that curses programs use. The national replacement sets
 * (British, Dutch, ...) are read as ASCII: no agent uses them (a documented difference from
 * xterm.js, which maps e.g. '#' to '£' under `ESC ( A`).
 */

/** Charset id: no mapping (US ASCII). */
export const CHARSET_ASCII = 0;
/** Charset id: DEC Special Graphics (`ESC ( 0`). */
export const CHARSET_DEC_GRAPHICS = 1;

/**
 * DEC Special Graphics: code point for 0x60..0x7E as xterm.js 6.0.0 maps it
 * (`src/common/data/Charsets.ts`, from xterm's vttest output); index = ASCII code - 0x60.
 */
const DEC_GRAPHICS = [
  0x25c6,
  0x2592,
  0x2409,
  0x240c,
  0x240d,
  0x240a,
  0x00b0,
  0x00b1,
  0x2424,
  0x240b,
  0x2518,
  0x2510,
  0x250c,
  0x2514,
  0x253c,
  0x23ba,
  0x23bb,
  0x2500,
  0x23bc,
  0x23bd,
  0x251c,
  0x2524,
  0x2534,
  0x252c,
  0x2502,
  0x2264,
  0x2265,
  0x03c0,
  0x2260,
  0x00a3,
  0x00b7,
];

/** Maps ASCII code point `cp` (< 0x7F) through charset `id`; other code points pass through. */
export function mapCharset(id: number, cp: number): number {
  if (id === CHARSET_DEC_GRAPHICS && cp >= 0x60 && cp < 0x7f) return DEC_GRAPHICS[cp - 0x60];
  return cp;
}

/** Final bytes of the sets xterm.js designates (others leave the slot unchanged). */
const KNOWN_FINALS = '0AB4C5RQKYE6ZH7=';

/**
 * Charset id designated by final byte `final` of an SCS sequence: '0' gives DEC Special
 * Graphics, the other sets xterm.js knows give ASCII, an unknown final gives -1 (ignored).
 */
export function charsetFor(final: number): number {
  if (final === 0x30) return CHARSET_DEC_GRAPHICS;
  return KNOWN_FINALS.indexOf(String.fromCharCode(final)) >= 0 ? CHARSET_ASCII : -1;
}
