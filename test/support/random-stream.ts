/**
 * Random VT streams for property tests: a generator of streams built from the sequences the
 * VT core supports (see test/vt-random.test.ts for what is left out and why), driven by the
 * project's one seeded PRNG (src/sim/rng.ts), so every failure can be replayed from its seed.
 */

const enc = new TextEncoder();

const WORDS = ['a', 'hello', 'Do you want to proceed?', 'x', '❯ 1. Yes', '─────', '  ', 'esc'];
const WIDE = ['中', '文', '字', '🚀', '✋', '😀', '한', 'ｱ'];
const NARROW = ['é', '─', '│', '⠋', '·', '…', '✻', '⏵', 'ß', '█'];
const ZERO = ['\u0301', '\u0308', '\u200d', '\ufe0f', '\u200b', '\u20d7', '\u0e31'];
const CSI_FINALS = 'ABCDEFGHIJKLMPSTXZ`abcdefgr@'.split('');
const DEC_MODES = [1, 6, 7, 25, 45, 47, 1047, 1048, 1049, 2004, 2026, 1000, 1006, 12, 66, 3];

/** Builds one random stream of supported sequences (a list of pieces, concatenated). */
export function randomStream(rnd: () => number, length: number): Uint8Array {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const int = (n: number) => Math.floor(rnd() * n);
  const param = (big = true): string => {
    const r = rnd();
    if (r < 0.15) return '';
    if (r < 0.8) return String(int(8));
    if (r < 0.95 || !big) return String(int(30));
    return String(pick([100, 999, 65535, 99999]));
  };
  const parts: string[] = [];
  const bytes: number[][] = [];
  for (let k = 0; k < length; k++) {
    const r = rnd();
    let s: string;
    if (r < 0.25) s = pick(WORDS);
    else if (r < 0.33) s = pick(WIDE);
    else if (r < 0.38) s = pick(NARROW);
    else if (r < 0.43) s = pick(ZERO);
    else if (r < 0.53) s = pick(['\r', '\n', '\r\n', '\b', '\t', '\x0b', '\x0c', '\x07', '\x7f']);
    else if (r < 0.75) {
      const f = pick(CSI_FINALS);
      if (f === 'b') s = `\x1b[${int(40)}b`;
      else if ('LMST'.includes(f)) s = `\x1b[${param(false)}${f}`; // xterm splices once per line
      else if (f === 'H' || f === 'f' || f === 'r') s = `\x1b[${param()};${param()}${f}`;
      else s = `\x1b[${param()}${f}`;
    } else if (r < 0.8) {
      s = `\x1b[?${pick(DEC_MODES)}${pick(['h', 'l'])}`;
    } else if (r < 0.83) {
      s = pick([
        '\x1b7',
        '\x1b8',
        '\x1bD',
        '\x1bE',
        '\x1bM',
        '\x1bH',
        '\x1b[s',
        '\x1b[u',
        '\x1b#8',
        '\x1b[3g',
        '\x1b[0g',
        '\x1b[4h',
        '\x1b[4l',
        '\x1b[20h',
        '\x1b[20l',
        '\x1bc',
        '\x1b[!p',
      ]);
    } else if (r < 0.86) {
      s = pick([
        '\x1b(0',
        '\x1b(B',
        '\x1b)0',
        '\x0e',
        '\x0f',
        '\x1bn',
        '\x1b*0',
        'lqqk',
        'x`~a',
        '\x1b%G',
        '\x1b[?2h',
      ]);
    } else if (r < 0.89) {
      const t = pick(['t', 'title ✦', '⠋ Working', '', 'a;b']);
      s = `\x1b]${pick([0, 1, 2, 7501, 9])};${t}${pick(['\x07', '\x1b\\'])}`;
    } else if (r < 0.91) {
      s = `\x1b[${param()} ${pick(['@', 'A', 'q'])}` +
        (rnd() < 0.5 ? `\x1b[${param()}'${pick(['}', '~'])}` : '');
    } else if (r < 0.93) {
      s = `\x1b[38;2;${int(256)};${int(256)};${int(256)}m\x1b[${param()}m\x1b[1:2;3m`;
    } else if (r < 0.95) {
      s = pick([
        '\x1bP$qm\x1b\\',
        '\x1bP+q4d73\x1b\\',
        '\x1b_Gapc\x1b\\',
        '\x1b^pm\x1b\\',
        '\x1bXsos\x18',
        '\x1b[?1;2$p',
        '\x1b[>c',
        '\x1b[5n',
        '\x1b[?u',
        '\x1b[>1u',
        '\x1b[?1;2?h',
        '\x1b[1\x0aA',
        '\x1b[2\x1b[3B',
        '\x1b]0;abc\x18',
        '\x1b[ é',
      ]);
    } else if (r < 0.97) {
      // UTF-8 edge cases: C1 controls as UTF-8, invalid and cut sequences, BOM.
      const b = pick([
        [0xc2, 0x9b, 0x32, 0x4a],
        [0xc2, 0x85],
        [0xc2, 0x84],
        [0xc2, 0x88],
        [0xc2, 0x9d, 0x32, 0x3b, 0x41, 0xc2, 0x9c],
        [0xff],
        [0x80],
        [0x9b, 0x41], // a raw 8-bit CSI is invalid UTF-8: dropped, 'A' printed
        [0x1b, 0x5b, 0x31, 0xe2, 0x94, 0x80, 0x41], // non-ASCII inside a CSI ends it
        [0xe2, 0x94],
        [0xc0, 0xaf],
        [0xed, 0xa0, 0x80],
        [0xef, 0xbb, 0xbf],
        [0xf0, 0x9f, 0x9a],
      ]);
      bytes.push(b);
      parts.push(`\u0000BYTES${bytes.length - 1}\u0000`);
      continue;
    } else {
      s = `\x1b[${int(8)};${int(24)}H${pick(WIDE)}${pick(WORDS)}`;
    }
    parts.push(s);
  }
  // Splice the raw byte pieces in where their markers are.
  const chunks: Uint8Array[] = [];
  for (const p of parts) {
    const m = /^\u0000BYTES(\d+)\u0000$/.exec(p);
    chunks.push(m ? new Uint8Array(bytes[Number(m[1])]) : enc.encode(p));
  }
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}
