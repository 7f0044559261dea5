/**
 * A child program for test/guard-enter.test.ts: in a PTY it shows the Claude-like idle screen of
 * prompt-flipper.ts; the first input it reads (the text `send` types) it shows in its input box
 * (as an agent echoes it), then it stops reading its input (stdin paused: later bytes wait in
 * the terminal's input queue), draws the permission dialog of prompt-flipper.ts `--dialog-at`
 * ms later, and reads again `--resume-at` ms after the text. It logs to `--log FILE` (write(2),
 * one line each): `R` ready, `T <hex>` the text read, `D` the dialog drawn, `I <up> <hex>`
 * later input with `up` 1 while the dialog shows. Run as
 * `node --import tsx test/support/late-dialog.ts --late-dialog --log F`; importing this module
 * runs nothing.
 */
import { openSync, writeSync } from 'node:fs';
import { dialog, idleBox } from './prompt-flipper.ts';

function main(argv: string[]): void {
  const opt = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const logPath = opt('log');
  if (!logPath) throw new Error('late-dialog: --log FILE is required');
  const dialogAt = Number(opt('dialog-at') ?? 1500);
  const resumeAt = Number(opt('resume-at') ?? 2500);
  const log = openSync(logPath, 'w');
  const put = (line: string) => writeSync(log, line + '\n');
  const rows = process.stdout.rows || 32;
  const cols = process.stdout.columns || 120;
  const bottom = (lines: string[]) =>
    lines.map((l, i) => `\x1b[${rows - lines.length + i + 1};1H\x1b[2K${l}`).join('');
  process.stdin.setRawMode(true);
  process.stdout.write(
    `\x1b[?1049h\x1b[2J\x1b[H● Ready for a task.${bottom(idleBox(cols))}\x1b[${rows - 2};3H`,
  );
  put('R');
  let up = false;
  let first = true;
  process.stdin.on('data', (d: Buffer) => {
    if (!first) {
      put(`I ${up ? 1 : 0} ${d.toString('hex')}`);
      return;
    }
    first = false;
    put(`T ${d.toString('hex')}`);
    // the text shows in the box, as an agent echoes it (send presses Enter only then)
    const box = idleBox(cols);
    box[1] += d.toString('utf8');
    process.stdout.write(bottom(box) + `\x1b[${rows - 2};${3 + d.length}H`);
    process.stdin.pause();
    setTimeout(() => {
      process.stdout.write(bottom(dialog(cols)) + `\x1b[${rows};1H`);
      up = true;
      put('D');
    }, dialogAt);
    setTimeout(() => process.stdin.resume(), resumeAt);
  });
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGHUP', () => process.exit(0));
}

if (process.argv.includes('--late-dialog')) main(process.argv.slice(2));
