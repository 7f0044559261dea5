/**
 * A busy or stopped host: the tester's 17 sessions on a machine at load 20-60 had commands
 * run at once call live sessions "no session" (exit 4), and `wait --timeout 40` end after
 * 118-169 s. Reproduced without load: a real background host (`run --detach -- bash`) is
 * stopped (SIGSTOP) while real CLI processes ask it. Commands then exit 6 ("no answer"), never
 * 4, remove no socket, and `wait --timeout` ends while the host is still stopped; a command
 * whose request reached the stopped host answers once it goes on (SIGCONT). Each command's
 * connection is awaited in the kernel's table of Unix sockets, /proc/net/unix.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, type CliRun } from './support/cli.ts';
import { sandbox } from './support/sandbox.ts';
import { until } from './support/until.ts';
import { alive } from './support/processes.ts';
import { listSessions } from '../src/runtime/session-directory.ts';
import { NO_ANSWER_EXIT } from '../src/runtime/control-client.ts';

/** Whether process `pid` is stopped (state T in /proc/PID/stat). */
function stopped(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
}

/**
 * How many connections to the listening Unix socket at `path` the kernel holds (accepted or
 * waiting in its queue): the entries of /proc/net/unix with that path that are not the
 * listener (flag __SO_ACCEPTCON, 00010000).
 */
function connectionsTo(path: string): number {
  return readFileSync('/proc/net/unix', 'utf8').split('\n')
    .filter((l) => l.endsWith(` ${path}`) && l.split(/\s+/)[3] !== '00010000').length;
}

/**
 * A background host serving sessions `names` (each `bash --norc`) in a sandbox; `body` gets
 * the environment, the host's pid and the sessions' socket paths by name. The host is let go
 * on (SIGCONT) and ended (SIGTERM) after, the folder removed.
 */
async function withHost(
  names: string[],
  body: (env: Record<string, string>, host: number, sockets: Map<string, string>) => Promise<void>,
): Promise<void> {
  const { dir, env } = sandbox('aw-busy-');
  let host = 0;
  try {
    for (const name of names) {
      const r = await cli(['run', '--detach', '--name', name, '--', 'bash', '--norc'], env);
      assert.is(r.code, 0, r.stderr);
    }
    const infos = await listSessions(env.AGENTWATCH_DIR);
    assert.equal(infos.map((s) => s.name).sort(), [...names].sort());
    host = infos[0].host;
    await body(env, host, new Map(infos.map((s) => [s.name, s.socket])));
  } finally {
    if (!host) host = (await listSessions(env.AGENTWATCH_DIR).catch(() => []))[0]?.host ?? 0;
    if (host) {
      process.kill(host, 'SIGCONT');
      process.kill(host, 'SIGTERM');
      await until('the host to end', () => !alive(host), 30_000);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a stopped host: commands at once exit 6 naming the silent sessions, never "no session"; no socket is removed; wait --timeout ends while it is stopped', async () => {
  await withHost(['b1', 'b2', 'b3'], async (env, host, sockets) => {
    const before = readdirSync(env.AGENTWATCH_DIR).sort();
    process.kill(host, 'SIGSTOP');
    await until('the host to stop', () => stopped(host));
    const runs: Record<string, CliRun> = {};
    await Promise.all(
      Object.entries({
        explain: ['explain', 'b1'],
        send: ['send', 'b2', 'echo hi'],
        wait: ['wait', 'b3', '--until', 'exited', '--timeout', '2'],
        ls: ['ls'],
        unknown: ['explain', 'nosuch'],
      }).map(async ([what, args]) => (runs[what] = await cli(args, env))),
    );
    // Every one ended while the host was still stopped: --timeout and the 10 s hold.
    assert.ok(stopped(host), 'the host is still stopped');
    for (const [what, r] of Object.entries(runs)) {
      assert.is(r.code, NO_ANSWER_EXIT, `${what}: ${r.stderr}`);
      assert.not.match(r.stderr, /no session '/, what);
    }
    const ids = [...sockets.values()].map((p) => p.slice(p.lastIndexOf('/') + 1, -5)).sort();
    for (const what of ['explain', 'send', 'wait', 'unknown']) {
      assert.match(
        runs[what].stderr,
        `no answer from 3 sessions ${ids.join(', ')} within `,
        what,
      );
      assert.match(runs[what].stderr, /their host is busy or stopped/, what);
    }
    assert.match(runs.wait.stderr, / within 2 s /);
    assert.match(runs.ls.stderr, `3 session(s) did not answer within 10 s`);
    assert.match(runs.ls.stderr, ids.join(', '));
    assert.equal(readdirSync(env.AGENTWATCH_DIR).sort(), before, 'nothing was removed');

    process.kill(host, 'SIGCONT');
    const ls = await cli(['ls'], env);
    assert.is(ls.code, 0, ls.stderr);
    for (const name of sockets.keys()) assert.match(ls.stdout, new RegExp(`^${name}-`, 'm'));
    const ex = await cli(['explain', 'b1'], env);
    assert.is(ex.code, 0, ex.stderr);
  });
});

test('a host stopped while a command waits on it: the command answers once the host goes on', async () => {
  await withHost(['c1', 'c2'], async (env, host, sockets) => {
    const paths = [...sockets.values()];
    await until(
      "the host to close the set-up's connections",
      () => paths.every((p) => connectionsTo(p) === 0),
    );
    process.kill(host, 'SIGSTOP');
    await until('the host to stop', () => stopped(host));
    const explained = cli(['explain', 'c2'], env);
    // Its info requests wait in the stopped host's queues.
    await until(
      'explain to connect to both sessions',
      () => paths.every((p) => connectionsTo(p) > 0),
    );
    process.kill(host, 'SIGCONT');
    const r = await explained;
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^c2 \(c2-[0-9a-f]{4}\): shell/);
  });
});

test('wait --timeout holds when the host stops after the wait began: exit 1 or 6, never 4', async () => {
  await withHost(['d1'], async (env, host, sockets) => {
    const path = sockets.get('d1')!;
    await until("the host to close the set-up's connections", () => connectionsTo(path) === 0);
    let ended: CliRun | undefined;
    // A timeout long enough for the wait to be found connected on a loaded machine.
    const waiting = cli(['wait', 'd1', '--until', 'exited', '--timeout', '20'], env).then(
      (r) => (ended = r),
    );
    await until('wait to connect', () => {
      if (ended) throw new Error(`wait ended first: ${JSON.stringify(ended)}`);
      return connectionsTo(path) > 0;
    });
    process.kill(host, 'SIGSTOP');
    await until('the host to stop', () => stopped(host));
    const r = await waiting;
    assert.ok(stopped(host), 'wait ended while the host was still stopped');
    if (r.code === 1) assert.match(r.stderr, /d1 did not reach exited within 20 s/);
    else {
      assert.is(r.code, NO_ANSWER_EXIT, r.stderr);
      assert.match(r.stderr, /no answer from session d1-[0-9a-f]{4} within /);
    }
  });
});

test.run();
