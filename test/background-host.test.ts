/**
 * Sessions that outlive the terminal: `run --detach` starts them in the per-user background
 * host (a real detached `agentwatch __host` process), `ls` shows them, `kill` ends them, and
 * the host ends with its last session. Real processes and sockets in a temporary
 * AGENTWATCH_DIR; readiness is awaited with until().
 */
import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './support/cli.ts';
import { until } from './support/until.ts';
import { alive } from './support/processes.ts';
import { listSessions } from '../src/runtime/session-directory.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { BackgroundHost } from '../src/runtime/background-host.ts';
import { checkSpec, HOST_SOCKET } from '../src/runtime/host-protocol.ts';
import { createHost } from '../src/runtime/default-host.ts';
import { hostStatus, startDetached } from '../src/runtime/host-client.ts';
import { listEnded } from '../src/runtime/ended-sessions.ts';

/** A private folder for sockets, config and state, and the environment pointing at it. */
function sandbox(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bg-'));
  return {
    dir,
    env: {
      ...process.env,
      AGENTWATCH_DIR: join(dir, 's'),
      XDG_CONFIG_HOME: join(dir, 'config'),
      XDG_STATE_HOME: join(dir, 'state'),
      XDG_CACHE_HOME: join(dir, 'cache'),
    },
  };
}

const sessions = (env: NodeJS.ProcessEnv): Promise<SessionInfo[]> =>
  listSessions(env.AGENTWATCH_DIR);

/**
 * The pids of the background hosts (`... __host`) whose environment holds
 * `AGENTWATCH_DIR=folder` (Linux: /proc/PID/cmdline and environ; elsewhere none): the hosts
 * serving that folder, also one too busy to answer a listing (CI, at load: the test's folder
 * was found again after its removal, a host still writing to it).
 */
function processesServing(folder: string): number[] {
  if (process.platform !== 'linux') return [];
  const want = `AGENTWATCH_DIR=${folder}`;
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const host = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').includes('__host');
      if (host && readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(want)) {
        out.push(Number(name));
      }
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** Ends whatever a test left running in `dir` (hosts by SIGTERM), then removes it. */
async function cleanup(dir: string, env: NodeJS.ProcessEnv, hosts: Set<number>): Promise<void> {
  for (const s of await sessions(env).catch(() => [])) hosts.add(s.host);
  for (const pid of processesServing(env.AGENTWATCH_DIR!)) hosts.add(pid);
  for (const pid of hosts) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone
    }
  }
  await until('the hosts to end', () => [...hosts].every((p) => !alive(p)), 30_000);
  rmSync(dir, { recursive: true, force: true });
}

test('run --detach: ls shows the session, kill ends it, the host ends after the last one', async () => {
  const { dir, env } = sandbox();
  const hosts = new Set<number>();
  try {
    const a = await cli(['run', '--detach', '--name', 'one', '--', 'bash', '--norc'], env);
    assert.is(a.code, 0, a.stderr);
    const idA = a.stdout.trim();
    assert.match(idA, /^one-[0-9a-f]{4}$/);
    const b = await cli(['run', '--detach', '--', 'sleep', '600'], env);
    assert.is(b.code, 0, b.stderr);
    const idB = b.stdout.trim();
    // A session reads its foreground at the host's first look after it started (up to one
    // sweep interval): ls shows both as they are once that look was taken.
    const want = [
      new RegExp(`^${idA} .*shell`, 'm'),
      new RegExp(`^${idB} .*running +\\S+ +sleep`, 'm'),
    ];
    let ls = await cli(['ls'], env);
    await until('ls to show the shell and the sleep', async () => {
      ls = await cli(['ls'], env);
      return want.every((w) => w.test(ls.stdout));
    }, 15_000).catch(() => undefined);
    for (const w of want) assert.match(ls.stdout, w);
    const infos = await sessions(env);
    assert.is(infos.length, 2);
    const host = infos[0].host;
    hosts.add(host);
    assert.is(infos[1].host, host, 'one host serves both');
    assert.is.not(host, process.pid);
    assert.ok(alive(host));
    // The session runs in the folder the client ran in, with the client's environment.
    const k = await cli(['kill', 'one'], env);
    assert.is(k.code, 0, k.stderr);
    assert.match(k.stdout, new RegExp(`ended ${idA}`));
    assert.equal((await sessions(env)).map((s) => s.id), [idB]);
    assert.ok(alive(host), 'the host stays while a session is left');
    const again = await cli(['kill', 'one'], env);
    assert.is(again.code, 4, 'no such session');
    assert.match(again.stderr, /no session 'one'/);
    const k2 = await cli(['kill', idB], env);
    assert.is(k2.code, 0, k2.stderr);
    await until('the host to end after its last session', () => !alive(host), 30_000);
    assert.not.ok(existsSync(join(env.AGENTWATCH_DIR!, HOST_SOCKET)), 'its socket is gone');
    assert.equal(await sessions(env), []);
    const log = readFileSync(join(env.AGENTWATCH_DIR!, 'host.log'), 'utf8');
    assert.match(log, /ending: its last session ended/);
  } finally {
    await cleanup(dir, env, hosts);
  }
});

test('background host: SIGTERM ends its sessions, and each keeps how it ended', async () => {
  const { dir, env } = sandbox();
  const hosts = new Set<number>();
  try {
    const ids: string[] = [];
    for (const args of [['sleep', '600'], ['bash', '--norc'], ['sleep', '601']]) {
      const r = await cli(['run', '--detach', '--', ...args], env);
      assert.is(r.code, 0, r.stderr);
      ids.push(r.stdout.trim());
    }
    const host = (await sessions(env))[0].host;
    hosts.add(host);
    process.kill(host, 'SIGTERM');
    await until('the host to end', () => !alive(host), 30_000);
    // Every one of them, the last one to exit too (tester4: the host left before writing it).
    assert.equal(
      listEnded(env.AGENTWATCH_DIR!).map((e) => e.info.id).sort(),
      [...ids].sort(),
    );
    const ls = await cli(['ls'], env);
    for (const id of ids) assert.match(ls.stdout, new RegExp(`^${id} +- +ended`, 'm'));
  } finally {
    await cleanup(dir, env, hosts);
  }
});

test('run --detach: the session ends by itself, and a new one starts after (a new host)', async () => {
  const { dir, env } = sandbox();
  const hosts = new Set<number>();
  try {
    const a = await cli(['run', '--detach', '--name', 'short', '--', 'bash', '--norc'], env);
    assert.is(a.code, 0, a.stderr);
    const [first] = await sessions(env);
    hosts.add(first.host);
    // Its own exit ends it: `exit` typed through the guard.
    const sent = await cli(['send', 'short', 'exit'], env);
    assert.is(sent.code, 0, sent.stderr);
    await until('the first host to end', () => !alive(first.host), 30_000);
    const b = await cli(['run', '--detach', '--name', 'second', '--', 'bash', '--norc'], {
      ...env,
      AW_FIRST_CLIENT: 'yes',
    });
    assert.is(b.code, 0, b.stderr);
    const [second] = await sessions(env);
    hosts.add(second.host);
    assert.is(second.name, 'second');
    assert.is.not(second.host, first.host);
    // ... and a third while the host is up joins it, with its own client's environment and
    // folder (not those of the client that started the host).
    const c = await cli(['run', '--detach', '--name', 'third', '--', 'bash', '--norc'], {
      ...env,
      AW_THIRD_CLIENT: 'yes',
    });
    assert.is(c.code, 0, c.stderr);
    const all = await sessions(env);
    assert.equal(all.map((s) => s.host), [second.host, second.host]);
    const echo = await cli(
      ['send', 'third', 'echo "env:$AW_FIRST_CLIENT:$AW_THIRD_CLIENT:$PWD"'],
      env,
    );
    assert.is(echo.code, 0, echo.stderr);
    const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
    await until('the echo', async () => {
      const s = await cli(['explain', 'third'], env);
      return s.stdout.includes(`env::yes:${root}`);
    });
  } finally {
    await cleanup(dir, env, hosts);
  }
});

test('run --detach: four clients at once start one host', async () => {
  const { dir, env } = sandbox();
  const hosts = new Set<number>();
  try {
    const runs = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        cli(['run', '--detach', '--name', `c${n}`, '--', 'sleep', '600'], env)
      ),
    );
    for (const r of runs) assert.is(r.code, 0, r.stderr);
    const all = await sessions(env);
    for (const s of all) hosts.add(s.host);
    assert.equal(all.map((s) => s.name).sort(), ['c1', 'c2', 'c3', 'c4']);
    assert.is(hosts.size, 1, `one host, got ${[...hosts].join(', ')}`);
  } finally {
    await cleanup(dir, env, hosts);
  }
});

test('background host: a crashed session leaves the host and the others running', async () => {
  const { dir, env } = sandbox();
  const hosts = new Set<number>();
  try {
    for (const name of ['keep', 'crash']) {
      const r = await cli(['run', '--detach', '--name', name, '--', 'bash', '--norc'], env);
      assert.is(r.code, 0, r.stderr);
    }
    const infos = await sessions(env);
    const host = infos[0].host;
    hosts.add(host);
    process.kill(infos.find((s) => s.name === 'crash')!.pid, 'SIGSEGV');
    await until(
      'the crashed session to go',
      async () => (await sessions(env)).length === 1,
      30_000,
    );
    assert.ok(alive(host));
    const left = await sessions(env);
    assert.is(left[0].name, 'keep');
    const sent = await cli(['send', 'keep', 'echo still-here'], env);
    assert.is(sent.code, 0, sent.stderr);
    await until('the kept session to answer', async () => {
      const s = await cli(['explain', 'keep'], env);
      return /still-here\s*\n.*still-here/s.test(s.stdout);
    });
  } finally {
    await cleanup(dir, env, hosts);
  }
});

test('background host: a dead host (SIGKILL) is replaced by the next client', async () => {
  const { dir, env } = sandbox();
  const hosts = new Set<number>();
  try {
    const a = await cli(['run', '--detach', '--', 'sleep', '600'], env);
    assert.is(a.code, 0, a.stderr);
    const [first] = await sessions(env);
    hosts.add(first.host);
    process.kill(first.host, 'SIGKILL'); // its host socket stays behind, refusing
    try {
      process.kill(-first.pid, 'SIGKILL');
    } catch {
      // the PTY's hangup ended it
    }
    await until('the host to be gone', () => !alive(first.host));
    assert.ok(existsSync(join(env.AGENTWATCH_DIR!, HOST_SOCKET)), 'a stale socket is left');
    const b = await cli(['run', '--detach', '--name', 'after', '--', 'sleep', '600'], env);
    assert.is(b.code, 0, b.stderr);
    const live = await sessions(env);
    assert.equal(live.map((s) => s.name), ['after']);
    hosts.add(live[0].host);
    assert.is.not(live[0].host, first.host);
  } finally {
    await cleanup(dir, env, hosts);
  }
});

test('background host: its socket folder removed, it ends its sessions and itself, saying why', async () => {
  const { dir, env } = sandbox();
  const hosts = new Set<number>();
  try {
    const a = await cli(['run', '--detach', '--name', 'orphan', '--', 'sleep', '600'], env);
    assert.is(a.code, 0, a.stderr);
    const [first] = await sessions(env);
    hosts.add(first.host);
    // Its log is in the folder: kept open here to read what it says once the folder is gone.
    const log = openSync(join(env.AGENTWATCH_DIR!, 'host.log'), 'r');
    try {
      rmSync(env.AGENTWATCH_DIR!, { recursive: true, force: true });
      // A client right after makes the folder anew with a new host: the old one still ends
      // (its folder is another one now) and leaves the new host and its session alone.
      const b = await cli(['run', '--detach', '--name', 'after', '--', 'sleep', '600'], env);
      assert.is(b.code, 0, b.stderr);
      await until('the old host to end', () => !alive(first.host), 30_000);
      await until('its session to end', () => !alive(first.pid), 30_000);
      assert.match(
        readFileSync(log, 'utf8'),
        /host \d+ ending: its socket folder \S+ was (removed|replaced)/,
      );
      const live = await sessions(env);
      assert.equal(live.map((s) => s.name), ['after']);
      hosts.add(live[0].host);
      assert.is.not(live[0].host, first.host);
      assert.ok(alive(live[0].host));
    } finally {
      closeSync(log);
    }
  } finally {
    await cleanup(dir, env, hosts);
  }
});

test('background host: only its socket removed, it serves its sessions until they end', async () => {
  const { dir, env } = sandbox();
  const hosts = new Set<number>();
  try {
    const a = await cli(['run', '--detach', '--name', 'stays', '--', 'bash', '--norc'], env);
    assert.is(a.code, 0, a.stderr);
    const [first] = await sessions(env);
    hosts.add(first.host);
    const logPath = join(env.AGENTWATCH_DIR!, 'host.log');
    rmSync(join(env.AGENTWATCH_DIR!, HOST_SOCKET));
    await until(
      'the host to say it lost its socket',
      () =>
        /host\.socket was removed or replaced: new sessions go to another host/.test(
          readFileSync(logPath, 'utf8'),
        ),
      15_000,
    );
    assert.ok(alive(first.host));
    // A new session goes to a new host; the old session still answers on its own socket.
    const b = await cli(['run', '--detach', '--name', 'next', '--', 'sleep', '600'], env);
    assert.is(b.code, 0, b.stderr);
    const live = await sessions(env);
    assert.equal(live.map((s) => s.name), ['stays', 'next']);
    hosts.add(live[1].host);
    assert.is.not(live[1].host, first.host);
    const k = await cli(['kill', 'stays'], env);
    assert.is(k.code, 0, k.stderr);
    await until('the old host to end with its last session', () => !alive(first.host), 30_000);
    assert.ok(existsSync(join(env.AGENTWATCH_DIR!, HOST_SOCKET)), "the new host's socket stays");
    assert.equal((await sessions(env)).map((s) => s.name), ['next']);
  } finally {
    await cleanup(dir, env, hosts);
  }
});

test('run --detach: refusals are clear and start no session', async () => {
  const { dir, env } = sandbox();
  const hosts = new Set<number>();
  try {
    const missing = await cli(['run', '--detach', '--', 'no-such-command-aw'], env);
    assert.is(missing.code, 127, 'as a shell says: command not found');
    assert.match(missing.stderr, /no-such-command-aw/);
    const agent = await cli(['run', '--detach', '--agent', 'nope', '--', 'sleep', '1'], env);
    assert.is(agent.code, 2, 'a usage error');
    assert.match(agent.stderr, /--agent nope: no such agent \(known: claude, codex/);
    const wide = await cli(['run', '--detach', '--interval', '200', '--', 'sleep', '1'], env);
    assert.is(wide.code, 2);
    assert.match(wide.stderr, /--interval cannot go with --detach/);
    assert.equal(await sessions(env), []);
  } finally {
    await cleanup(dir, env, hosts);
  }
});

/** Leaves a socket nobody listens on at `path` (as a host killed with SIGKILL does). */
async function staleSocket(path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const server = createServer();
  await new Promise<void>((r) => server.listen(path, r));
  linkSync(path, `${path}.keep`);
  await new Promise((r) => server.close(r)); // removes `path`, not its other name
  renameSync(`${path}.keep`, path);
}

test("background host in-process: four claims at once over a dead host's socket, one host; idle grace ends it", async () => {
  const { dir, env } = sandbox();
  try {
    const path = join(env.AGENTWATCH_DIR!, HOST_SOCKET);
    await staleSocket(path);
    assert.ok(existsSync(path));
    const lines: string[] = [];
    const make = (idleMs: number) =>
      new BackgroundHost(createHost({}, env, { hooks: false }), {
        env,
        idleMs,
        log: (line) => lines.push(line),
      });
    // The claimers' grace outlasts the race: on a loaded machine four claims can spread over
    // more than a short grace, and a winner that ended idle meanwhile lets a later one win
    // after it (a new host, rightly; but not the race this checks).
    const hosts = [make(600_000), make(600_000), make(600_000), make(600_000)];
    const claims = await Promise.all(hosts.map((h) => h.claim()));
    assert.equal(claims.filter(Boolean).length, 1, `exactly one wins: ${claims}`);
    const winner = hosts[claims.indexOf(true)];
    for (const h of hosts) if (h !== winner) await h.host.close();
    assert.equal(
      readdirSync(env.AGENTWATCH_DIR!).filter((n) => n.startsWith('host')).sort(),
      [HOST_SOCKET],
      'nothing left beside the host socket',
    );
    await winner.end('the race is checked');
    assert.not.ok(existsSync(path));
    // A host that never gets a session ends after its grace.
    const lone = make(300);
    assert.ok(await lone.claim());
    assert.ok(existsSync(path));
    await lone.ended;
    assert.not.ok(existsSync(path));
    assert.ok(lines.some((l) => /ending: no session to host/.test(l)), lines.join('\n'));
    // A client after it starts a fresh host process.
    const started = await startDetached({ command: 'sleep', args: ['600'] }, env);
    assert.match(started.id, /^sleep-/);
    assert.ok(alive(started.host));
    assert.is.not(started.host, process.pid);
    assert.equal(await hostStatus(env), { pid: started.host, sessions: [started.id] });
  } finally {
    await cleanup(dir, env, new Set());
  }
});

test('run --detach: a host that answers after the start deadline is waited for, not reported dead', async () => {
  // A host that accepted a start request starts the session: a client that gave up on it for a
  // deadline a few ms away said "did not answer within 17 ms" for a session that then ran.
  const { dir, env } = sandbox();
  mkdirSync(env.AGENTWATCH_DIR!, { recursive: true, mode: 0o700 });
  const server = createServer((c) => {
    c.on('data', () =>
      setTimeout(() =>
        c.end(
          JSON.stringify({ ok: true, op: 'start', id: 'late-1', socket: 's', pid: 1, host: 2 }) +
            '\n',
        ), 400));
  });
  try {
    await new Promise<void>((r) => server.listen(join(env.AGENTWATCH_DIR!, HOST_SOCKET), r));
    const started = await startDetached({ command: 'sleep', args: ['1'] }, env, 50);
    assert.equal(started, { id: 'late-1', socket: 's', pid: 1, host: 2 });
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('checkSpec: a start request with a wrong field is refused, naming the field', () => {
  const ok = { command: 'bash', args: [] };
  assert.equal(checkSpec({ ...ok, rows: 40, cols: 100, cwd: '/' }).cwd, '/');
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ args: [] }, /'command' must be a non-empty string/],
    [{ command: 'bash', args: 'x' }, /'args' must be a list of strings/],
    [{ ...ok, name: 3 }, /'name' must be a string/],
    [{ ...ok, cwd: 'relative' }, /'cwd' must be an absolute path/],
    [{ ...ok, cwd: '/no/such/folder-aw' }, /no such folder: \/no\/such\/folder-aw/],
    [{ ...ok, env: { A: 1 } }, /'env' must be an object of strings/],
    [{ ...ok, rows: 0 }, /'rows' must be a whole number from 1 to 500/],
    [{ ...ok, cols: 1.5 }, /'cols' must be a whole number from 1 to 1000/],
    [{ ...ok, hooks: 'no' }, /'hooks' must be a boolean/],
    [{ ...ok, notify: { desktop: true } }, /'notify' must be resolved notification settings/],
  ];
  for (const [req, why] of bad) assert.throws(() => checkSpec(req), why, JSON.stringify(req));
});

test.run();
