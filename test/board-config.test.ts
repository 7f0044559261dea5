/**
 * config.toml broken while a board is open: the board's `n` still starts the session (with the
 * settings the board read when it started; a background host started now uses the defaults)
 * and says which file and line is wrong. Real board in a PTY, a real background host in a
 * temporary AGENTWATCH_DIR; readiness is awaited.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

test('board n with a broken config.toml: started, and told the file and line', async () => {
  const { dir, env } = sandbox('aw-bcfg-');
  const config = join(dir, 'config', 'agentwatch', 'config.toml');
  mkdirSync(join(dir, 'config', 'agentwatch'), { recursive: true });
  writeFileSync(config, '[sweep]\ninterval = 700\n');
  let host = 0;
  const board = await startPty({
    command: process.execPath,
    args: agentwatchArgv(['watch', '--no-desktop']),
    env,
    cwd: dir,
    rows: 24,
    cols: 200,
  });
  try {
    await board.waitForScreen(/no sessions yet/, 30_000);
    writeFileSync(config, '[sweep]\ninterval = 700\nbogus = 1\n');
    const wrong = new RegExp(
      `started one: bash --norc · ${
        config.replace(/[.]/g, '\\.')
      }:3: sweep\\.bogus: unknown key 'bogus'[\\s\\S]*\\(until\\s+it\\s+is\\s+fixed,\\s+this\\s+board\\s+keeps\\s+the\\s+settings\\s+it\\s+started\\s+with\\)`,
    );
    // No background host yet: the one started now reads the broken file and uses the defaults.
    board.send('n');
    await board.type('--name one bash --norc\r');
    await board.waitForScreen(wrong, 30_000);
    await board.waitForScreen(/one +\S+ +shell/, 30_000);
    const [first] = await listSessions(env.AGENTWATCH_DIR);
    host = first.host;
    const log = readFileSync(join(env.AGENTWATCH_DIR, 'host.log'), 'utf8');
    assert.match(log, /config\.toml:3: .*bogus.*; this host uses the defaults/);
    // The host runs: the second n is told as well, and starts too.
    board.send('n');
    await board.type('--name two bash --norc\r');
    await board.waitForScreen(new RegExp(wrong.source.replace('one', 'two')), 30_000);
    await board.waitForScreen(/two +\S+ +shell/, 30_000);
    // Fixed: no more warning.
    writeFileSync(config, '[sweep]\ninterval = 700\n');
    board.send('n');
    await board.type('--name three bash --norc\r');
    await board.waitForScreen(/started three: bash --norc$/m, 30_000);
    for (const name of ['one', 'two', 'three']) {
      const k = await runCli(['kill', name], env);
      assert.is(k.code, 0, k.stderr);
    }
    await until('the host to end', () => !alive(host), 15_000);
    board.send('q');
    await board.exited;
  } finally {
    await board.close();
    if (host && alive(host)) process.kill(host, 'SIGTERM');
    await until('the host to end', () => !host || !alive(host), 15_000).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
