/**
 * `answer` with a non-first option on a Gemini CLI tool dialog (`Allow execution of [Shell]?`:
 * 1. Allow once, 2. Allow for this session, 3. No, suggest changes (esc)), reached with arrow
 * keys. Gemini CLI 0.61.0 redraws its whole dialog after a Down without a synchronized update
 * (erase, then draw): a look between the two read a blocked screen (its title says Action
 * Required) with no prompt or half of one, the next the dialog again, which counted as a new
 * episode, "keys typed into it": `answer 3` stopped after its own Down, exit 3, and left
 * option 2 selected (tester t10 M4; 3 of 4 rounds with real Gemini here before the fix). The
 * guard's own arrow keys now never count as someone else's change; a key someone else types
 * while it moves the selection still stops it, and the refusal says which option is
 * selected now.
 *
 * - A Gemini-like dialog (a small node program in a real PTY, hosted by a SessionHost, the
 *   bundled gemini.toml rules) that redraws slowly and in pieces after each arrow key:
 *   answered with option 3 (Down, Down, Enter); and with a key typed into the pane during the
 *   first redraw: refused after one Down, naming "2. Allow for this session" as selected.
 * - Real Gemini CLI 0.61.0 (dev dependency) under `agentwatch run` in a real PTY against the
 *   fake Gemini server, `agentwatch answer --yes g1 3` from a terminal of its own, two rounds:
 *   answered, the command denied (skipped, saying so, when Gemini is missing).
 * About 40-90 s.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { GUARD_EXIT, guardedAnswer } from '../src/runtime/typing-guard.ts';
import type { UserError } from '../src/errors.ts';
import { startDialog } from './support/fake-dialog.ts';
import { followSession, mark, runCli, startRun } from './support/agentwatch-e2e.ts';
import { GEMINI_BIN, makeGeminiHome } from './support/agent-homes.ts';
import { startFakeGemini } from './support/fake-gemini.ts';
import type { PtyDriver } from './support/pty-driver.ts';
import { sleep } from './support/until.ts';

/**
 * argv LOG: Gemini CLI 0.61.0's tool dialog at the bottom of the screen, its title `✋  Action
 * Required`; logs `K <hex>` per key read. Each arrow key moves the selection and redraws the
 * dialog as a loaded Gemini was seen to: the dialog's rows erased, 150 ms later its top half
 * (the selection already moved), 150 ms later the rest. Enter closes it: title `◇  Ready`,
 * Gemini's composer.
 */
const GEMINI_DIALOG = String.raw`
const fs = require('fs');
const out = process.stdout;
const rows = out.rows || 30;
const cols = out.columns || 100;
const [log] = process.argv.slice(2);
const options = ['Allow once', 'Allow for this session', 'No, suggest changes (esc)'];
let selected = 0;
const row = (t) => '│ ' + t.padEnd(cols - 4) + ' │';
const dialog = () => [
  '╭' + '─'.repeat(cols - 2) + '╮',
  row('? Shell  touch hello.txt'),
  row(''),
  row('Allow execution of [Shell]?'),
  row(''),
  ...options.map((o, i) => row((i === selected ? '● ' : '  ') + (i + 1) + '. ' + o)),
  '╰' + '─'.repeat(cols - 2) + '╯',
];
const top = rows - dialog().length + 1;
const put = (lines, from) => {
  let s = '';
  lines.forEach((l, i) => (s += '\x1b[' + (top + from + i) + ';1H\x1b[2K' + l));
  out.write(s);
};
let drawing = false;
const pending = [];
function redraw() {
  drawing = true;
  put(dialog().map(() => ''), 0);
  setTimeout(() => {
    put(dialog().slice(0, 6), 0);
    setTimeout(() => {
      put(dialog().slice(6), 6);
      drawing = false;
      if (pending.length) handle(pending.shift());
    }, 150);
  }, 150);
}
function handle(k) {
  if (drawing) return void pending.push(k);
  if (k === '\x1b[B' && selected < 2) selected++;
  else if (k === '\x1b[A' && selected > 0) selected--;
  else if (k === '\r') {
    out.write('\x1b]0;◇  Ready (proj)\x07\x1b[' + top + ';1H\x1b[J✦ Cancelled: ' + options[selected] +
      '\r\n > Type your message or @path/to/file');
    return;
  } else return;
  redraw();
}
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  fs.appendFileSync(log, 'K ' + d.toString('hex') + '\n');
  handle(d.toString());
});
out.write('\x1b[H\x1b[2J\x1b]0;✋  Action Required (proj)\x07✦ I will create the file.');
put(dialog(), 0);
`;

/** Starts the Gemini-like dialog in a host of this process; its pane, log and cleanup. */
async function geminiLike(name: string) {
  const dir = mkdtempSync(join(tmpdir(), 'aw-gem-arrows-'));
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  const log = join(dir, 'log');
  writeFileSync(log, '');
  try {
    const { w } = await startDialog(host, dir, {
      name,
      program: GEMINI_DIALOG,
      args: [log],
      agent: 'gemini',
      rows: 30,
      cols: 100,
    });
    const keys = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const close = async () => {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    };
    return { w, keys, close };
  } catch (e) {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

const DOWN = 'K 1b5b42';

test('a dialog redrawn slowly and in pieces after each Down: option 3 answered (Down, Down, Enter)', async () => {
  const g = await geminiLike('slow');
  try {
    const confirmed = await g.w.prompt();
    assert.is(confirmed.options[2], '3. No, suggest changes (esc)', JSON.stringify(confirmed));
    const r = await guardedAnswer(g.w, 2, confirmed).then(
      (answered) => ({ answered, error: undefined }),
      (error: UserError) => ({ answered: undefined, error }),
    );
    assert.is(r.answered, '3. No, suggest changes (esc)', r.error?.message);
    assert.equal(g.keys(), [DOWN, DOWN, 'K 0d']);
  } finally {
    await g.close();
  }
});

test('a key typed into the pane while the Down redraws: refused, naming the option selected now', async () => {
  const g = await geminiLike('other');
  try {
    const confirmed = await g.w.prompt();
    // someone types into the pane (a key the dialog ignores) while the first Down redraws
    let sent = false;
    const off = g.w.session.onInput((d) => {
      if (sent || Buffer.from(d).toString() !== '\x1b[B') return;
      sent = true;
      setTimeout(() => g.w.session.write('x'), 60);
    });
    const r = await guardedAnswer(g.w, 2, confirmed).then(
      (answered) => ({ answered, error: undefined }),
      (error: UserError) => ({ answered: undefined, error }),
    );
    off();
    assert.is(r.error?.exitCode, GUARD_EXIT, `answered: ${r.answered}`);
    assert.match(r.error!.message, /keys were typed into it/);
    assert.match(
      r.error!.message,
      /only Down had been typed .*"2\. Allow for this session" is selected now: an Enter in its pane answers with it/,
      r.error!.message,
    );
    assert.equal(g.keys(), [DOWN, 'K 78']);
  } finally {
    await g.close();
  }
});

if (!existsSync(GEMINI_BIN)) {
  console.log(
    `answer-gemini-arrows: skipped Gemini: ${GEMINI_BIN} is missing (npm ci installs it)`,
  );
  test.skip('real Gemini CLI: answer 3 on its tool dialog');
} else {
  test('real Gemini CLI under run: answer --yes g1 3 on its tool dialog, twice: answered, denied', async () => {
    const server = await startFakeGemini();
    const home = makeGeminiHome({ baseUrl: server.url });
    const dir = mkdtempSync(join(tmpdir(), 'aw-gem-arrows-run-'));
    const env = { ...process.env, AGENTWATCH_DIR: dir };
    const hello = join(home.project, 'hello.txt');
    const mtime = statSync(hello).mtimeMs;
    let pty: PtyDriver | undefined;
    const f = { close: () => {} };
    try {
      pty = await startRun(home, dir, ['--name', 'g1', '--', GEMINI_BIN]);
      await pty.waitForScreen(/Type your message or @path\/to\/file/, 180_000);
      const fol = await followSession(dir, 'g1', 30_000);
      f.close = () => fol.close();
      await fol.waitFor('idle', 60_000);
      await sleep(1000); // the person reads the screen before typing
      for (const n of [1, 2]) {
        const from = mark(fol);
        await pty.type(`task-bash round ${n}: please touch hello.txt`);
        await sleep(300);
        pty.send('\r');
        await fol.waitFor('blocked', 60_000, from);
        const a = await runCli(['answer', '--yes', 'g1', '3'], env, 120_000, { tty: true });
        assert.is(a.code, 0, `round ${n}: ${a.stdout}${a.stderr}\n${pty.screen()}`);
        assert.match(a.stdout, /answered: 3\. No, suggest changes \(esc\)/);
        const after = mark(fol);
        if (fol.state() !== 'idle') await fol.waitFor('idle', 60_000, after);
      }
      assert.is(statSync(hello).mtimeMs, mtime, 'the command was denied: hello.txt untouched');
    } finally {
      f.close();
      await pty?.close();
      await server.close();
      await home.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test.run();
