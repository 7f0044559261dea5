/**
 * The board's status line on a machine without notify-send (tester: `notify failed: desktop
 * (notify-send is not installed)` was appended to the status line, and the messages that
 * matter, a refusal, an answer's outcome, went onto a second line cut at 80 columns).
 *
 * Real parts: `agentwatch watch` (the board) in a real PTY of 80x24 with a PATH without
 * notify-send; it starts `b1` (`watch -- CMD`, in the background host, desktop notices on as
 * by default): a node script that says blocked in-band (Claude Code's `OSC 7501 ;
 * state=blocked`) and draws no dialog. The host's notice for it fails on the desktop channel
 * (`ls --json` says so); then b1 says working, and blocked again (SIGUSR1), so the board gets
 * an info that carries that failure (each prompt's info does). Then `1` on b1's row is refused
 * (no numbered options on its screen).
 *
 * Checked: the missing notify-send is said once, as a message, with the ways out (install it,
 * `--no-desktop`, `desktop = false` in config.toml), and never again on the status line; the
 * refusal is read in full on the 80-column board, nothing cut.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { agentwatchArgv, runCli } from './support/agentwatch-e2e.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';
import { until } from './support/until.ts';

/**
 * Says blocked in-band and draws one line of prose, no dialog; each SIGUSR1 says working, or
 * blocked again, in turn. Stays until ended.
 */
const BLOCKER = String.raw`
const say = (state) => process.stdout.write('\x1b]7501;state=' + state + ':app=claude-code\x07');
say('blocked');
process.stdout.write('Thinking about it.\r\n');
let blocked = true;
process.on('SIGUSR1', () => say((blocked = !blocked) ? 'blocked' : 'working'));
setInterval(() => {}, 1 << 30);
`;

/** The screen's rows joined into one text, each trimmed (a wrapped message reads whole). */
const joined = (screen: string) =>
  screen.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');

test('board at 80 columns without notify-send: said once, and a refusal reads in full', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-notify-missing-'));
  const sock = join(dir, 'sock');
  mkdirSync(sock, { mode: 0o700 });
  const path = (process.env.PATH ?? '').split(':').filter((d) =>
    d && !existsSync(join(d, 'notify-send'))
  ).join(':');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    AGENTWATCH_DIR: sock,
    XDG_CONFIG_HOME: join(dir, 'config'),
    PATH: path,
    TERM: 'xterm-256color',
  };
  delete env.AGENTWATCH_SESSION;
  const script = join(dir, 'blocker.cjs');
  writeFileSync(script, BLOCKER);
  let board: PtyDriver | undefined;
  try {
    board = await startPty({
      command: process.execPath,
      args: agentwatchArgv([
        'watch',
        '--name',
        'b1',
        '--agent',
        'claude',
        '--',
        process.execPath,
        script,
      ]),
      env,
      cwd: dir,
      cols: 80,
      rows: 24,
    });
    const b = board;
    const screen = await b.waitForScreen(/desktop notices are off/, 30_000);
    assert.match(
      joined(screen),
      'desktop notices are off: notify-send is not installed (not on PATH); install it ' +
        '(libnotify), or turn them off: --no-desktop, or desktop = false in [notify] of config.toml',
    );
    await b.waitForScreen(/b1 +claude +blocked/, 30_000);
    // the host's notice for b1 failed on the desktop: ls --json says so
    const listed = async () => {
      const ls = await runCli(['ls', '--json'], env);
      const out = JSON.parse(ls.stdout);
      return ((Array.isArray(out) ? out : out.sessions) as SessionInfo[]).find((s) =>
        s.name === 'b1'
      );
    };
    const b1 = await until('the desktop failure in ls --json', async () => {
      const i = await listed();
      return i?.notify?.desktop ? i : undefined;
    }, 30_000);
    assert.match(b1.notify!.desktop!, /notify-send is not installed/);
    // another prompt: working, then blocked again; its info carries the failure to the board
    process.kill(b1.pid, 'SIGUSR1');
    await b.waitForScreen(/b1 +claude +working/, 30_000);
    process.kill(b1.pid, 'SIGUSR1');
    await b.waitForScreen(/b1 +claude +blocked/, 30_000);
    b.send('1');
    const refused = await b.waitForScreen(/nothing was typed/, 30_000);
    const text = joined(refused);
    assert.match(
      text,
      'b1 is blocked but its screen shows no numbered options (its screen ends with ' +
        '"Thinking about it."); nothing was typed: answer in its pane',
      refused,
    );
    assert.not.match(text, /notify-send|notify failed/, `said once, not again:\n${refused}`);
    assert.not.match(text, /…/, `nothing cut:\n${refused}`);
  } finally {
    await board?.close();
    const kill = await runCli(['kill', 'b1'], env);
    assert.ok(kill.code === 0 || kill.code === 4, `kill b1: ${kill.code} ${kill.stderr}`);
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
