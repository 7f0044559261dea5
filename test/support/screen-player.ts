/**
 * A child program for the record/cut test (test/record-cut.test.ts): in a PTY it plays real
 * captured screens, one file of raw terminal bytes at a time, each a full redraw (the
 * fixtures/claude-code/*.raw files start with `ESC[2J`). The key `n` shows the next file, `q`
 * (or the end of the list) exits 0; on SIGWINCH it writes the current file again, as Claude Code
 * redraws on a resize. Every byte it reads is appended, hex, one line per read, to `--log FILE`,
 * so a test can see what reached the program.
 *
 * Run as `node --import tsx test/support/screen-player.ts --screen-player --log F FILE...`;
 * importing this module (uvu loads every file under test/) runs nothing.
 */
import { appendFileSync, readFileSync } from 'node:fs';

function main(argv: string[]): void {
  const log = argv[argv.indexOf('--log') + 1];
  const files = argv.filter((a, i) =>
    a !== '--screen-player' && a !== '--log' && argv[i - 1] !== '--log'
  );
  let i = 0;
  const show = () => process.stdout.write(readFileSync(files[i]));
  process.stdin.setRawMode(true);
  process.stdin.on('data', (d: Buffer) => {
    appendFileSync(log, d.toString('hex') + '\n');
    if (d.includes(0x71)) process.exit(0); // q
    if (d.includes(0x6e)) { // n
      if (++i >= files.length) process.exit(0);
      show();
    }
  });
  process.on('SIGWINCH', show);
  show();
}

if (process.argv.includes('--screen-player')) main(process.argv.slice(2));
