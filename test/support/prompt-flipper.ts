/**
 * A child program for the typing guard's stress test (test/guard.test.ts): in a PTY it shows a
 * Claude-like idle screen (the input box between two `─` rules and the footer `  ⏸ manual mode
 * on · ? for shortcuts`) and, at random moments, replaces the bottom rows with a Claude-like
 * permission dialog (the shape of fixtures/claude-code/claude.blocked.screen.txt: `Do you want
 * to proceed?`, `❯ 1. Yes`, `  2. No`, `Esc to cancel · Tab to amend`), erased again Ink-style
 * (cursor up + `CSI J`) and the idle box redrawn.
 *
 * It logs, one line each, to the file named by `--log` (written with write(2), so a kill loses
 * nothing; times are `process.hrtime.bigint()`, CLOCK_MONOTONIC, comparable across processes
 * on Linux):
 *   `R <t>`                 ready (idle screen drawn)
 *   `D <drain> <before> <after>`  the dialog drawn: when the input drain before it began, and
 *                           the times around the write(2) of its bytes
 *   `E <drain> <before> <after>`  the dialog erased (and the idle box drawn), the same
 *   `I <t> <up> <hex>`      input bytes read, `up` 1 when the dialog was on screen then
 *
 * Input is read by libuv (`stdin` 'data') and, right before every draw and every erase,
 * synchronously from a second, non-blocking descriptor of the same terminal (`/dev/tty`), so
 * that a byte which reached the terminal before the dialog was drawn is logged as read with
 * the dialog down, and one that came while it was up is logged up before it is erased: `up`
 * is exact with respect to this program's own draws. Bytes read while the dialog is down show
 * in the input box (its last 60 characters; an Enter empties it), as an agent echoes what is
 * typed (`send` presses Enter only once its text shows there); those read while it is up do
 * not (they went to the dialog).
 *
 * Options: `--log FILE` (required), `--seed N`, `--idle MIN,MAX` and `--up MIN,MAX` (how long
 * each phase lasts, ms, uniform), `--hold` (draw the dialog once and keep it). Runs until
 * SIGTERM or SIGHUP. Run as `node --import tsx test/support/prompt-flipper.ts --log F ...`;
 * importing this module (uvu loads every file under test/) runs nothing.
 */
import { closeSync, constants, openSync, readSync, writeSync } from 'node:fs';
import { prng } from '../../src/sim/rng.ts';

/** Rows of the idle box at the bottom of the screen. */
export function idleBox(cols: number): string[] {
  const rule = '─'.repeat(cols);
  return [rule, '❯ ', rule, '  ⏸ manual mode on · ? for shortcuts'];
}

/** Rows of the permission dialog (Claude Code 2.1.332's shape) at the bottom of the screen. */
export function dialog(cols: number): string[] {
  return [
    '─'.repeat(cols),
    ' Bash command',
    ' touch hello.txt',
    ' Create empty hello.txt file',
    ' Do you want to proceed?',
    ' ❯ 1. Yes',
    '   2. No',
    '',
    ' Esc to cancel · Tab to amend',
  ];
}

/** The question and options the guard must report for {@link dialog}. */
export const DIALOG_QUESTION = 'Do you want to proceed?';
export const DIALOG_OPTIONS = ['1. Yes', '2. No'];

/** Writes all of `text` to `fd` with write(2). */
function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    }
  }
}

/** Parses `MIN,MAX` (ms). */
function range(text: string | undefined, fallback: [number, number]): [number, number] {
  if (!text) return fallback;
  const [a, b] = text.split(',').map(Number);
  return [a, b ?? a];
}

/** The program; see the file comment. */
function main(argv: string[]): void {
  const opt = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const logPath = opt('log');
  if (!logPath) throw new Error('prompt-flipper: --log FILE is required');
  const random = prng(Number(opt('seed') ?? 1));
  const idleMs = range(opt('idle'), [1, 25]);
  const upMs = range(opt('up'), [1, 25]);
  const hold = argv.includes('--hold');

  const log = openSync(logPath, 'w');
  const now = () => process.hrtime.bigint();
  const put = (line: string) => writeSync(log, line + '\n');
  const rows = process.stdout.rows || 32;
  const cols = process.stdout.columns || 120;
  process.stdin.setRawMode(true);
  // A second descriptor of the terminal, non-blocking, to drain input synchronously.
  const tty = openSync('/dev/tty', constants.O_RDONLY | constants.O_NONBLOCK);
  const buf = Buffer.alloc(4096);
  let up = false;
  /** What was typed into the input box since the last Enter. */
  let typed = '';
  /** The input box's rows, showing the end of what was typed. */
  const boxNow = () => {
    const box = idleBox(cols);
    box[1] += typed.slice(-60);
    return box;
  };

  const got = (bytes: Buffer) => {
    if (!bytes.length) return;
    put(`I ${now()} ${up ? 1 : 0} ${bytes.toString('hex')}`);
    if (up) return;
    for (const ch of bytes.toString('utf8')) {
      if (ch === '\r') typed = '';
      else if (ch >= ' ') typed += ch;
    }
    writeAll(1, `\x1b[${rows - 2};1H\x1b[2K${boxNow()[1]}`);
  };
  const drain = () => {
    for (;;) {
      let n = 0;
      try {
        n = readSync(tty, buf, 0, buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return;
        throw e;
      }
      if (n <= 0) return;
      got(Buffer.from(buf.subarray(0, n)));
    }
  };
  process.stdin.on('data', (d: Buffer) => got(d));

  /** Bytes that put `lines` on the bottom rows, from the row above them down. */
  const bottom = (lines: string[]) => {
    let out = '';
    lines.forEach((l, i) => (out += `\x1b[${rows - lines.length + i + 1};1H\x1b[2K${l}`));
    return out;
  };
  const dlg = dialog(cols);
  // The idle screen: a transcript line at the top, the input box at the bottom, cursor in it.
  const cursor = `\x1b[${rows - 2};3H`;
  writeAll(
    1,
    `\x1b[?1049h\x1b[2J\x1b[H● Ready for a task.${bottom(boxNow())}${cursor}`,
  );
  put(`R ${now()}`);

  const show = () => {
    const td = now();
    drain();
    up = true;
    const t0 = now();
    writeAll(1, bottom(dlg) + `\x1b[${rows};1H`);
    put(`D ${td} ${t0} ${now()}`);
    if (!hold) setTimeout(hide, upMs[0] + random() * (upMs[1] - upMs[0]));
  };
  const hide = () => {
    const td = now();
    drain();
    const t0 = now();
    // Ink erases: from the last row, cursor up to the dialog's first row, erase to the end.
    writeAll(1, `\r\x1b[${dlg.length - 1}A\x1b[J${bottom(boxNow())}${cursor}`);
    up = false;
    put(`E ${td} ${t0} ${now()}`);
    setTimeout(show, idleMs[0] + random() * (idleMs[1] - idleMs[0]));
  };
  setTimeout(show, idleMs[0] + random() * (idleMs[1] - idleMs[0]));

  const stop = () => {
    drain();
    closeSync(tty);
    closeSync(log);
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);
}

if (process.argv.includes('--prompt-flipper')) main(process.argv.slice(2));
