/**
 * The seed's baseline detector input, kept to show why agentwatch emulates a screen: the
 * last 8 KB of output with escape sequences stripped, and per line only the text after the
 * last `\r`. On Claude Code 2.1.x, which writes no `\n` and places words with `CSI n G`,
 * this loses every prompt (seed: tail 5/11 vs screen 11/11 on the same rules).
 */

/**
 * Strips escape sequences from `bytes` (decoded as UTF-8, invalid bytes replaced) and keeps,
 * for each line, the text after its last `\r`. Lines end with `\n` or `\r\n` (the `\r` of
 * a CRLF ends the line, it does not erase it: inline agents such as Gemini CLI and Qwen Code
 * end their lines with CRLF).
 * Sequences removed: CSI (`ESC [` ... final byte 0x40-0x7e), OSC (`ESC ]` ... BEL or ST),
 * DCS/SOS/PM/APC (`ESC P|X|^|_` ... ST), and two-byte `ESC x` escapes (ECMA-48 5.3).
 */
export function strippedTail(bytes: Uint8Array): string {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const stripped = text
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g, '')
    .replace(/\x1b[PX^_][^\x1b]*(?:\x1b\\)?/g, '')
    .replace(/\x1b[ -/]*[0-~]/g, '')
    .replace(/[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]/g, '');
  return stripped
    .split(/\r?\n/)
    .map((line) => {
      const cr = line.lastIndexOf('\r');
      return cr >= 0 ? line.slice(cr + 1) : line;
    })
    .join('\n');
}

/** The stripped tail as a detection input: its lines as rows, no title, no OSC payloads. */
export function tailScreen(bytes: Uint8Array): {
  rows: string[];
  wrapped: boolean[];
  title: string;
  osc: Map<number, string>;
} {
  const rows = strippedTail(bytes).split('\n').map((r) => r.trimEnd());
  return { rows, wrapped: rows.map(() => false), title: '', osc: new Map() };
}
