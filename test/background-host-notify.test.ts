/**
 * A detached session of the simulated agent (`run --detach`, in the background host, real
 * processes): its prompt is announced by the host with the session's own `--notify-cmd`, once
 * per prompt, and `answer --yes` from outside any session answers it; `kill` ends it and the
 * host with it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  agentwatchArgv,
  followSession,
  mark,
  runCli,
  settledIdle,
} from './support/agentwatch-e2e.ts';
import { until } from './support/until.ts';
import { cli } from './support/cli.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("run --detach: the host announces a prompt with the session's --notify-cmd; answer answers it", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bgn-'));
  const sockets = join(dir, 's');
  const log = join(dir, 'notices.log');
  const script = join(dir, 'log.sh');
  writeFileSync(script, `echo "$AGENTWATCH_SESSION $AGENTWATCH_NOTICE" >> ${log}\n`);
  const env = {
    ...process.env,
    AGENTWATCH_DIR: sockets,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
  };
  const lines = () =>
    (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []).filter(Boolean);
  let host = 0;
  try {
    const started = await runCli([
      'run',
      '--detach',
      '--agent',
      'claude',
      '--name',
      'bg',
      '--no-desktop',
      '--notify-cmd',
      `sh ${script}`,
      '--',
      process.execPath,
      ...agentwatchArgv(['sim-agent', '--seed', '11', '--speed', '2']),
    ], env);
    assert.is(started.code, 0, started.stderr);
    const f = await followSession(sockets, 'bg', 30_000);
    host = f.first.host;
    assert.is.not(host, process.pid);
    // The agent's first screen drawn (before it, the blank pane reads idle by default).
    await until(
      'the idle screen',
      () => /\brule\b/.test(f.received.at(-1)?.info.reason ?? ''),
      30_000,
    );
    let blocked = false;
    for (let attempt = 0; attempt < 6 && !blocked; attempt++) {
      await settledIdle(f, 30_000);
      const from = mark(f);
      // A frame drawn in parts (the footer before the input box) reads as a draft in the box:
      // the guard refuses (3), and the task is sent again once the frame is whole.
      await until(`task ${attempt} typed`, async () => {
        const sent = await runCli(['send', 'bg', `task ${attempt}`], env);
        if (sent.code === 0) return true;
        if (sent.code === 3 && /input box holds text/.test(sent.stderr)) return false;
        const seen = await runCli(['explain', 'bg'], env);
        assert.unreachable(`task ${attempt}: ${sent.stderr}\n${seen.stdout.slice(0, 3000)}`);
      }, 20_000);
      const reached = await Promise.race([
        f.waitFor('blocked', 30_000, from).then(() => 'blocked'),
        f.waitFor('idle', 30_000, from + 1).then(() => 'idle'),
      ]).catch(() => 'none');
      blocked = reached === 'blocked';
      if (!blocked) await f.waitFor('idle', 30_000, from).catch(() => {});
    }
    assert.ok(blocked, 'a prompt shown');
    await until('the notice', () => lines().length >= 1, 30_000);
    assert.match(lines()[0], new RegExp(`^${f.first.id} blocked$`));
    const from = mark(f);
    // The person, in a terminal of their own outside any session.
    const answered = await cli(['answer', '--yes', 'bg', '1'], env, { tty: true });
    assert.is(answered.code, 0, answered.stderr + answered.stdout);
    await f.waitFor('working', 30_000, from);
    assert.is(lines().length, 1, 'one notice per prompt');
    const killed = await runCli(['kill', 'bg'], env);
    assert.is(killed.code, 0, killed.stderr);
    await until('the host to end', () => !alive(host), 30_000);
    f.close();
  } finally {
    if (host && alive(host)) process.kill(host, 'SIGTERM');
    await until('the host to end', () => !host || !alive(host), 15_000).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
