/** What a terminal sends that is no typing: its answers to a program's queries. */

/**
 * True when `d` holds only a terminal's reports, the answers to a program's queries (ECMA-48
 * and xterm ctlseqs): cursor position `CSI row;col R`, device attributes `CSI ? ... c` /
 * `CSI > ... c`, mode reports `CSI ? n;m $ y` and `CSI n;m $ y`, the kitty keyboard
 * protocol's flags `CSI ? flags u` (a key event has no `?`), window reports `CSI n;n;n t`,
 * focus `CSI I` / `CSI O`, OSC answers (colours) and DCS answers (XTGETTCAP, DECRQSS).
 */
export function isTerminalReport(d: Uint8Array): boolean {
  const s = Buffer.from(d).toString('latin1');
  return s.length > 0 &&
    /^(?:\x1b\[\??\d+(?:;\d+)*R|\x1b\[[?>=][\d;]*c|\x1b\[\??\d+;\d+\$y|\x1b\[\?\d*u|\x1b\[\d+(?:;\d+)*t|\x1b\[[IO]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1bP[^\x1b]*\x1b\\)+$/
      .test(s);
}
