/**
 * The session answers the agent's terminal queries itself only while no real terminal shows
 * it (headless): a real PTY, a real child that asks (DSR, XTWINOPS 14/18, OSC 11 and 13, as
 * opencode 1.18.33 does at start-up) and prints, as hex, every byte it then reads until a
 * `Z` the test types once the query is out. Headless: the answers come before the `Z`. With
 * a real terminal attached (not headless): only the `Z` (that terminal answers, not us twice).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Session } from '../src/runtime/session.ts';
import { until } from './support/until.ts';

/** A child in raw mode: asks, says `asked`, then prints what it reads up to a `Z`. */
const CHILD = `
process.stdin.setRawMode(true);
let got = Buffer.alloc(0);
process.stdin.on('data', (d) => {
  got = Buffer.concat([got, d]);
  const z = got.indexOf(0x5a);
  if (z >= 0) { process.stdout.write('\\r\\nGOT ' + got.subarray(0, z).toString('hex') + ' END\\r\\n'); process.exit(0); }
});
process.stdout.write('\\x1b[6n\\x1b[14t\\x1b[18t\\x1b]11;?\\x07\\x1b]13;?\\x1b\\\\asked\\r\\n');
`;

async function ask(headless: boolean): Promise<string> {
  const s = new Session({
    id: `replies-${headless}`,
    name: 'replies',
    command: process.execPath,
    args: ['-e', CHILD],
    rows: 24,
    cols: 200, // the hex line fits on one row
    headless,
    socket: '/nonexistent/agentwatch.sock',
  });
  try {
    await until('the child to ask', () => s.terminal.screenText().includes('asked'), 30_000);
    s.write('Z');
    const text = await until('the child to report', () => {
      const m = /GOT ([0-9a-f]*) END/.exec(s.terminal.screenText());
      return m && { hex: m[1] };
    }, 30_000);
    return Buffer.from(text.hex, 'hex').toString('latin1');
  } finally {
    s.kill('SIGKILL');
  }
}

test('headless: the session answers DSR, XTWINOPS 14/18 and OSC 11/13 before the next key', async () => {
  const got = await ask(true);
  assert.is(
    got,
    '\x1b[1;1R\x1b[4;384;1600t\x1b[8;24;200t\x1b]11;rgb:0000/0000/0000\x07' +
      '\x1b]13;rgb:ffff/ffff/ffff\x1b\\',
  );
});

test('a real terminal attached (not headless): the session answers nothing', async () => {
  assert.is(await ask(false), '');
});

test.run();
