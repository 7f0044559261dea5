/**
 * `answer` in a pane too small for the prompt says "make it taller or look at it"; a person who
 * makes it taller and then confirms is shown the prompt again, now whole, and confirms once
 * more (not refused: the tester's finding). A Claude-like Bash dialog with a six-line command
 * (a plain node program in a real PTY hosted by a SessionHost, rules and `[answer] keys` from
 * the bundled claude.toml), drawn in the bottom rows and again on every resize, logs the keys
 * it reads; `agentwatch answer` runs as a person does, in a terminal of its own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { GUARD_EXIT, guardedAnswer } from '../src/runtime/typing-guard.ts';
import type { UserError } from '../src/errors.ts';
import type { SessionHost } from '../src/runtime/host.ts';
import type { PtyPane } from '../src/runtime/pty-pane.ts';
import type { Session } from '../src/runtime/session.ts';
import { agentwatchArgv } from './support/cli.ts';
import { startDialog } from './support/fake-dialog.ts';
import { startPty } from './support/pty-driver.ts';
import { until } from './support/until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The dialog: argv LOG. Logs `K <hex>` per key read, `C` when it closes. */
const DIALOG = String.raw`
const fs = require('fs');
const [log] = process.argv.slice(2);
const out = process.stdout;
let open = true;
function draw() {
  const rows = out.rows || 32;
  const cols = out.columns || 120;
  const command = ['one', 'two', 'three', 'four', 'five', 'six']
    .map((n, i) => '   echo ' + n + (i < 5 ? ' &&' : ''));
  const lines = open
    ? ['─'.repeat(cols), ' Bash command', ...command, '   Run six echo commands', '',
      ' Do you want to proceed?', ' ❯ 1. Yes', '   2. No', '', ' Esc to cancel · Tab to amend']
    : ['─'.repeat(cols), '❯ ', '─'.repeat(cols), '  ⏸ manual mode on · ? for shortcuts'];
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

/**
 * Starts DIALOG in `host` in a pane of 50x12 cells (too small for its command) until it reads
 * blocked. Returns the session, its pane, and the key log's path.
 */
async function startSmallDialog(host: SessionHost, dir: string) {
  const log = join(dir, 'log');
  writeFileSync(log, '');
  const started = await startDialog(host, dir, {
    name: 'small',
    program: DIALOG,
    args: [log],
    agent: 'claude',
    rows: 12,
    cols: 50,
  });
  return { ...started, log };
}

/** Makes the pane 50x32 cells and waits until the whole dialog (its title too) is read. */
async function makeTaller(session: Session, w: PtyPane): Promise<void> {
  w.resize(32, 50);
  await until('the whole dialog read', () => {
    w.classifyNow();
    return w.info().details?.includes('Bash command');
  }).catch((e) => {
    throw new Error(`${e.message}\n${session.terminal.screenText()}\n${w.info().details}`);
  });
}

test('answer: the pane made taller while it asks shows the prompt again; confirmed, it is answered', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-resize-'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.AGENTWATCH_DIR = dir;
  delete env.AGENTWATCH_SESSION;
  const host = createHost({ intervalMs: 100 }, env);
  let cli: Awaited<ReturnType<typeof startPty>> | undefined;
  try {
    const { log, session, w } = await startSmallDialog(host, dir);
    cli = await startPty({
      command: process.execPath,
      args: agentwatchArgv(['answer', 'small', '1']),
      cwd: ROOT,
      env,
      rows: 40,
      cols: 120,
    });
    await cli.waitForScreen(/not all visible in the pane \(50x12\)[\s\S]*\[y\/N\]/, 30_000);
    // The person does as told: the pane is made taller, the whole dialog shows.
    await makeTaller(session, w);
    await cli.type('y\r');
    const again = await cli.waitForScreen(
      /now shows other details[\s\S]*\| Bash command[\s\S]*Answer "1\. Yes"\? \[y\/N\]\s*$/,
      15_000,
    );
    const after = again.slice(again.indexOf('now shows other details'));
    assert.not.match(after, /not all visible/, 'all of it shows now');
    assert.match(after, /\| echo one &&/);
    assert.not.ok(readFileSync(log, 'utf8').includes('K '), 'nothing typed before the second y');
    await cli.type('y\r');
    const exit = await cli.exited;
    assert.is(exit.exitCode, 0, cli.screen());
    assert.match(cli.screen(), /answered: 1\. Yes/);
    assert.equal(
      readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('K ')),
      ['K 31'],
      'one key: the digit',
    );
  } finally {
    await cli?.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the guard, given the prompt as it was before the resize: refused, saying nothing was typed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-resize-'));
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  try {
    const { log, session, w } = await startSmallDialog(host, dir);
    const confirmed = await w.prompt();
    assert.is(confirmed.detailsCut, true);
    await makeTaller(session, w);
    const refused = await guardedAnswer(w, 0, confirmed).then(
      () => null,
      (e: UserError) => e,
    );
    assert.ok(refused, 'refused');
    assert.is(refused!.exitCode, GUARD_EXIT);
    assert.match(refused!.message, /not the one you confirmed; nothing was typed$/);
    assert.not.ok(readFileSync(log, 'utf8').includes('K '), 'nothing typed');
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
