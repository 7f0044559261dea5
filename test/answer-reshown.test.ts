/**
 * `answer` (the CLI) shows the prompt again when, by the time the person confirms, it shows
 * other options or details with the same question (tester7: its pane resized 30x8 → 120x32 and
 * back while `answer c1 1` asked [y/N]; it refused, "not the one you confirmed", exit 3; README
 * "Using it": it is shown again and you confirm again). Real Claude Code 2.1.332 in 30x8 shows
 * "❯ 1. Yes" and "↑ 5 more lines" only, in 120x32 its four options: DIALOG draws the same, in a
 * real PTY hosted by a SessionHost (the bundled claude.toml), and logs the keys it reads;
 * `answer` runs in a terminal of its own, as a person's does. With --yes nobody saw the new
 * prompt: refused, saying so (a fake session socket whose guard refuses, then shows more).
 */
import { join } from 'node:path';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import type { PtyPane } from '../src/runtime/pty-pane.ts';
import { agentwatchArgv, cli } from './support/cli.ts';
import { startDialog } from './support/fake-dialog.ts';
import { fakeInfo, type FakeSession, fakeSession } from './support/fake-session.ts';
import { startPty } from './support/pty-driver.ts';
import { until } from './support/until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The dialog: argv LOG. Logs `K <hex>` per key read, `C` when it closes on `1`. */
const DIALOG = String.raw`
const fs = require('fs');
const [log] = process.argv.slice(2);
const out = process.stdout;
let open = true;
function draw() {
  const rows = out.rows || 32;
  const cols = out.columns || 120;
  const rule = '╌'.repeat(cols);
  const lines = !open
    ? ['─'.repeat(cols), '❯ ', '─'.repeat(cols), '  ⏸ manual mode on · ? for shortcuts']
    : rows < 12
    ? [' Create empty hello.txt file', rule, ' touch hello.txt', rule, ' Do you want to proceed?',
      ' ❯ 1. Yes', ' ↑ 5 more lines', ' Esc to cancel · Tab to amend']
    : ['─'.repeat(cols), ' Bash command', ' Create empty hello.txt file', rule, ' touch hello.txt',
      rule, ' Do you want to proceed?', ' ❯ 1. Yes',
      '   2. Yes, and always allow access to proj from this project', '   3. No', '',
      ' Esc to cancel · Tab to amend'];
  const shown = lines.slice(-rows);
  let s = '\x1b[H\x1b[2J';
  shown.forEach((l, i) => (s += '\x1b[' + (rows - shown.length + i + 1) + ';1H' + l));
  out.write(s);
}
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  fs.appendFileSync(log, 'K ' + d.toString('hex') + '\n');
  if (open && d.toString() === '1') {
    open = false;
    fs.appendFileSync(log, 'C\n');
    draw();
  }
});
out.on('resize', draw);
draw();
`;

/** Resizes `w` to `rows`x`cols` and waits until its prompt shows `count` options. */
async function resizeTo(w: PtyPane, rows: number, cols: number, count: number): Promise<void> {
  w.resize(rows, cols);
  await until(`${count} option(s) read at ${cols}x${rows}`, async () => {
    w.classifyNow();
    return (await w.prompt()).options.length === count;
  });
}

for (
  const [from, to] of [
    [{ rows: 8, cols: 30, options: 1 }, { rows: 32, cols: 120, options: 3 }],
    [{ rows: 32, cols: 120, options: 3 }, { rows: 8, cols: 30, options: 1 }],
  ]
) {
  test(`answer: the pane resized ${from.cols}x${from.rows} → ${to.cols}x${to.rows} while it asks: shown again, confirmed again, answered`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-reshown-'));
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    env.AGENTWATCH_DIR = dir;
    delete env.AGENTWATCH_SESSION;
    const host = createHost({ intervalMs: 100 }, env);
    let person: Awaited<ReturnType<typeof startPty>> | undefined;
    try {
      const log = join(dir, 'log');
      writeFileSync(log, '');
      const { w } = await startDialog(host, dir, {
        name: 'c1',
        program: DIALOG,
        args: [log],
        agent: 'claude',
        rows: from.rows,
        cols: from.cols,
      });
      await resizeTo(w, from.rows, from.cols, from.options);
      person = await startPty({
        command: process.execPath,
        args: agentwatchArgv(['answer', 'c1', '1']),
        cwd: ROOT,
        env,
        rows: 40,
        cols: 120,
      });
      await person.waitForScreen(/asks: Do you want to proceed\?[\s\S]*\[y\/N\]/, 30_000);
      await resizeTo(w, to.rows, to.cols, to.options);
      await person.type('y\r');
      const again = await person.waitForScreen(
        /now shows other options[\s\S]*asks: Do you want to proceed\?[\s\S]*Answer "1\. Yes"[^\n]*\? \[y\/N\]\s*$/,
        15_000,
      );
      const after = again.slice(again.indexOf('now shows other options'));
      if (to.options === 3) assert.match(after, /2\. Yes, and always allow[\s\S]*3\. No/);
      else assert.not.match(after, /2\. Yes/);
      assert.not.ok(readFileSync(log, 'utf8').includes('K '), 'nothing typed before the second y');
      await person.type('y\r');
      const exit = await person.exited;
      assert.is(exit.exitCode, 0, person.screen());
      assert.match(person.screen(), /answered: 1\. Yes/);
      assert.equal(
        readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('K ')),
        ['K 31'],
        'one key: the digit',
      );
    } finally {
      await person?.close();
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('answer --yes: the guard refuses as the prompt shows more options: refused, saying nobody saw them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-reshown-'));
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTWATCH_DIR: dir };
  delete env.AGENTWATCH_SESSION;
  const socket = join(dir, 'c1-0001.sock');
  const narrow = { question: 'Do you want to proceed?', options: ['1. Yes'], details: ['x'] };
  const wide = { ...narrow, options: ['1. Yes', '2. Yes, and always allow', '3. No'] };
  let refused = false;
  const answers: unknown[] = [];
  let session: FakeSession | undefined;
  try {
    session = await fakeSession(
      socket,
      () => fakeInfo('c1-0001', socket, { name: 'c1', state: 'blocked', ...narrow }),
      (req) => {
        if (req.op === 'prompt') {
          return { ok: true, op: 'prompt', ...(refused ? wide : narrow), selected: 0, episode: 1 };
        }
        answers.push(req);
        refused = true;
        return {
          ok: false,
          op: req.op,
          error: 'the prompt on screen is not the one you confirmed; nothing was typed',
          code: 3,
        };
      },
    );
    const r = await cli(['answer', '--yes', 'c1', '1'], env, { tty: true });
    assert.is(r.code, 3, `${r.stdout}\n${r.stderr}`);
    assert.is(answers.length, 1, 'one answer asked, refused; none again');
    assert.match(
      r.stderr,
      /c1's prompt now shows other options than those printed above .*nothing was typed: with --yes nobody read them/,
    );
  } finally {
    await session?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
