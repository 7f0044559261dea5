/**
 * Sessions started from the board live in the background host: quitting the board (`q`)
 * leaves them running, a board started again shows them, `kill` ends them and the host ends
 * with the last one. `watch --json -- CMD` likewise. Real processes in PTYs, a temporary
 * AGENTWATCH_DIR.
 */
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentwatchArgv, runCli } from './support/agentwatch-e2e.ts';
import { startPty } from './support/pty-driver.ts';
import { sandbox } from './support/sandbox.ts';
import { until } from './support/until.ts';
import { listSessions } from '../src/runtime/session-directory.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('board: sessions started with watch -- CMD and n outlive the board; a new board shows them', async () => {
  const { dir, env } = sandbox('aw-bd-');
  let host = 0;
  try {
    const board = await startPty({
      command: process.execPath,
      args: agentwatchArgv(['watch', '--no-desktop', '--name', 'first', '--', 'bash', '--norc']),
      env,
      cwd: dir,
    });
    await board.waitForScreen(/first/, 30_000);
    board.send('n');
    await board.type('--name second bash --norc\r');
    await board.waitForScreen(/second/, 30_000);
    const before = await listSessions(env.AGENTWATCH_DIR);
    assert.equal(before.map((s) => s.name).sort(), ['first', 'second']);
    host = before[0].host;
    assert.is(before[1].host, host, 'one host serves both');
    assert.is.not(host, board.pid, 'not the board');
    board.send('q');
    await board.exited;
    const after = await listSessions(env.AGENTWATCH_DIR);
    assert.equal(after.map((s) => s.name).sort(), ['first', 'second'], 'both still run');
    // A board started again shows them.
    const again = await startPty({
      command: process.execPath,
      args: agentwatchArgv(['watch', '--no-desktop']),
      env,
      cwd: dir,
    });
    await again.waitForScreen(/first[\s\S]*second|second[\s\S]*first/, 30_000);
    for (const name of ['first', 'second']) {
      const k = await runCli(['kill', name], env);
      assert.is(k.code, 0, k.stderr);
    }
    await until('the host to end', () => !alive(host), 30_000);
    await again.waitForScreen(/no sessions|exited|ended/, 30_000).catch(() => '');
    again.send('q');
    await again.exited;
  } finally {
    if (host && alive(host)) process.kill(host, 'SIGTERM');
    await until('the host to end', () => !host || !alive(host), 15_000).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

test('watch --json -- CMD: the session outlives the watch', async () => {
  const { dir, env } = sandbox('aw-bd-');
  let host = 0;
  try {
    const watch = await startPty({
      command: process.execPath,
      args: agentwatchArgv([
        'watch',
        '--json',
        '--no-desktop',
        '--name',
        'j',
        '--',
        'bash',
        '--norc',
      ]),
      env,
      cwd: dir,
    });
    const [s] = await until('the session', async () => {
      const l = await listSessions(env.AGENTWATCH_DIR);
      return l.length ? l : null;
    }, 30_000);
    host = s.host;
    assert.is.not(host, watch.pid);
    process.kill(watch.pid, 'SIGINT');
    await watch.exited;
    assert.equal((await listSessions(env.AGENTWATCH_DIR)).map((x) => x.name), ['j']);
    const k = await runCli(['kill', 'j'], env);
    assert.is(k.code, 0, k.stderr);
    await until('the host to end', () => !alive(host), 30_000);
  } finally {
    if (host && alive(host)) process.kill(host, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
