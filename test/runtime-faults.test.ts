/**
 * Faults the live runtime must survive, with real PTYs and processes, in a temporary
 * AGENTWATCH_DIR (each test names its fault): an agent that crashes (SIGKILL) or exits at once;
 * a 50 MB/s flood next to two sessions that must keep answering; invalid UTF-8 and random
 * bytes; a resize storm; stale and live socket files; the foreground addon missing; 100
 * sessions in one host; a listener that throws; garbage on the control socket.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import { request, subscribe } from '../src/runtime/control-client.ts';
import { listSessions } from '../src/runtime/session-directory.ts';
import { listenControl } from '../src/runtime/control-server.ts';
import { sessionForeground } from '../src/runtime/default-host.ts';
import { type HostOptions, SessionHost } from '../src/runtime/host.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { lineReader, type SessionInfo } from '../src/runtime/protocol.ts';
import type { Session } from '../src/runtime/session.ts';
import { sleep, until } from './support/until.ts';
import { agentwatchArgv, cli as runCli } from './support/cli.ts';
import { writeFakeClaude } from './support/fake-claude.ts';

const cli = runCli;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MANIFESTS = loadBundledManifests();

/**
 * Writes random printable text, cursor moves, erases, SGR colours and UTF-8 characters as
 * fast as the PTY takes them, up to RATE bytes/s, until it reads a key (raw mode); then
 * FLOOD-END and the byte count. It floods until told to stop, not for a time of its own: on a
 * loaded machine a flood timed by its own clock could end before the test had looked.
 */
const FLOOD = String.raw`
const RATE = Number(process.argv[2]);
let stop = false;
process.stdin.setRawMode(true);
process.stdin.once('data', () => (stop = true));
const words = ['lorem', 'ipsum', '─────', '❯', '✻ Working…', 'é', '🚀', 'done', '12345'];
function chunk(size) {
  let s = '';
  while (s.length < size) {
    const r = Math.random();
    if (r < 0.55) s += words[Math.floor(Math.random() * words.length)] + ' ';
    else if (r < 0.65) s += '\r\n';
    else if (r < 0.75) s += '\x1b[' + (1 + Math.floor(Math.random() * 32)) + ';' + (1 + Math.floor(Math.random() * 120)) + 'H';
    else if (r < 0.82) s += '\x1b[38;2;' + Math.floor(Math.random() * 256) + ';99;' + Math.floor(Math.random() * 256) + 'm';
    else if (r < 0.88) s += '\x1b[0m\x1b[K';
    else if (r < 0.92) s += '\x1b[' + Math.floor(Math.random() * 5) + 'A\x1b[2C';
    else if (r < 0.94) s += '\x1b[J';
    else s += String.fromCharCode(33 + Math.floor(Math.random() * 94)).repeat(8);
  }
  return Buffer.from(s);
}
const pool = [chunk(200000), chunk(200000), chunk(200000), chunk(200000)];
const t0 = Date.now();
let sent = 0, k = 0;
function pump() {
  const elapsed = Date.now() - t0;
  if (stop) {
    process.stdout.write('\x1b[0m\x1b[H\x1b[2JFLOOD-END ' + sent);
    process.stdin.pause();
    setInterval(() => {}, 1000);
    return;
  }
  if (sent > (RATE * (elapsed + 10)) / 1000) return void setTimeout(pump, 2);
  const buf = pool[k++ % pool.length];
  sent += buf.length;
  // synchronous on a TTY: the PTY's reader sets the pace; the next chunk after a turn of the
  // event loop, in which the key is read
  process.stdout.write(buf, () => setImmediate(pump));
}
pump();
`;

/** Prints invalid UTF-8 around ASCII, then 2 MB of random bytes, then a reset and a marker. */
const GARBAGE = String.raw`
const crypto = require('crypto');
const out = process.stdout;
out.write(Buffer.from([0x41, 0xff, 0x42, 0xc3, 0x28, 0x43, 0xe2, 0x82, 0x20, 0xf0, 0x9f, 0x98, 0x44, 0x0d, 0x0a]));
for (let i = 0; i < 32; i++) out.write(crypto.randomBytes(65536));
// CAN ends any string state, RIS resets charsets and modes, then a known line
out.write(Buffer.concat([Buffer.from('\x18\x1b\\\x1bc'), Buffer.from([0x41, 0xff, 0x42, 0xc3, 0x28, 0x43]), Buffer.from(' RANDOM-END')]));
setInterval(() => {}, 1000);
`;

/**
 * 100-session load: a bash script named `claude` (so the kernel names it 'claude') drawing a
 * Claude-like frame for $AW_KIND once, then a line every 100 ms (read -t is a builtin: no
 * process per line).
 */
const LOOP = String.raw`#!/bin/bash
rule=$(printf '─%.0s' $(seq 1 120))
at() { printf '\033[%d;1H%s' "$1" "$2"; }
printf '\033[H\033[2J'
case "$AW_KIND" in
  idle) at 29 "$rule"; at 30 '❯ '; at 31 "$rule"; at 32 '  ⏸ manual mode on · ? for shortcuts' ;;
  working) at 27 '✻ Working… (esc to interrupt)'; at 29 "$rule"; at 30 '❯ '; at 31 "$rule"
    at 32 '  ⏸ manual mode on · esc to interrupt' ;;
  blocked) at 22 "$rule"; at 23 ' Bash command'; at 25 '   touch hello.txt'
    at 27 ' Do you want to proceed?'; at 28 ' ❯ 1. Yes'; at 29 '   2. No'
    at 31 ' Esc to cancel · Tab to amend' ;;
esac
n=0
while :; do
  n=$((n + 1))
  at 1 "tick $n"
  read -t 0.1 -r _ || true
done
`;

/** A temporary AGENTWATCH_DIR holding the fake agents' scripts too. */
interface Scratch {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** The executable fake Claude Code (named `claude`). */
  claude: string;
  /** Writes `text` to an executable file `name` in the directory; returns its path. */
  script(name: string, text: string): string;
  /** Removes the directory. */
  done(): void;
}

/** Makes a {@link Scratch} directory. */
function scratch(prefix: string): Scratch {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const script = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode: 0o755 });
    return path;
  };
  return {
    dir,
    env: { ...process.env, AGENTWATCH_DIR: dir },
    claude: writeFakeClaude(dir),
    script,
    done: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A host with the bundled manifests and the real foreground reader, its sockets in `env`'s
 * AGENTWATCH_DIR. Agents start without hooks where the host supports turning them off.
 */
function newHost(env: NodeJS.ProcessEnv, intervalMs?: number): SessionHost {
  const options: HostOptions & { hooks?: boolean } = {
    manifests: () => MANIFESTS,
    foreground: sessionForeground,
    intervalMs,
    env,
    hooks: false,
  };
  return new SessionHost(options);
}

/** Starts the fake Claude Code in `host` and waits until it reads keys. */
async function startFake(host: SessionHost, s: Scratch, name: string): Promise<Session> {
  const session = await host.start({
    command: s.claude,
    args: [],
    name,
    agent: 'claude',
    headless: true,
  });
  await screenShows(session, 'READY');
  // Looked at once READY shows: a follower that subscribes next is told its idle, not the
  // "starting: nothing drawn yet" of a look taken before it drew (read as working).
  host.classifyNow(session.id);
  return session;
}

/** Waits until the screen of `session` contains `text`. */
function screenShows(session: Session, text: string, timeoutMs = 30_000): Promise<true> {
  return until(
    `'${text}' on the screen of ${session.id}`,
    () => session.terminal.screenText().includes(text),
    timeoutMs,
  );
}

/** Every state line a `subscribe` connection receives, with the time it came. */
class Follower {
  readonly infos: Array<SessionInfo & { at: number }> = [];
  readonly socket: Socket;

  constructor(path: string) {
    this.socket = subscribe(path, (i) => this.infos.push({ ...i, at: Date.now() }), () => {});
  }

  /** Waits for a state line with `state` received at or after `since` (ms). */
  next(state: string, since = 0, timeoutMs = 30_000): Promise<SessionInfo & { at: number }> {
    return until(
      `state ${state} (seen: ${this.infos.map((i) => i.state).join(' ')})`,
      () => this.infos.find((i) => i.state === state && i.at >= since),
      timeoutMs,
    );
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Times one `info` request on `session`'s socket, ms. */
async function timedInfo(session: Session): Promise<number> {
  const t0 = performance.now();
  const a = await request<{ session: SessionInfo }>(session.spec.socket, { op: 'info' }, 5000);
  assert.is(a.session.id, session.id);
  return performance.now() - t0;
}

/** A raw connection to a control socket that collects answer lines. */
async function rawConnection(path: string): Promise<{ socket: Socket; lines: string[] }> {
  const socket = createConnection(path);
  const lines: string[] = [];
  socket.on('data', lineReader((l) => lines.push(l), () => lines.push('(overflow)')));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, lines };
}

/** Entries of /proc/self/fd (open file descriptors of this process). */
function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

/** True when process `pid` still exists and is not a zombie. */
function processLives(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

test('fault: an agent crashes (SIGKILL itself) -> exited with the signal; the others are unaffected', async () => {
  const s = scratch('aw-crash-');
  const host = newHost(s.env, 100);
  try {
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => startFake(host, s, n)));
    const fc = new Follower(c.spec.socket);
    const t0 = Date.now();
    c.write('k');
    const crashed = await fc.next('exited', t0);
    assert.equal(crashed.exit, { code: 0, signal: 9 });
    assert.is(crashed.reason, 'process exited with signal 9');
    // the crashed session still answers for the record; the others keep working
    assert.is(
      (await request<{ session: SessionInfo }>(c.spec.socket, { op: 'info' })).session
        .state,
      'exited',
    );
    const fa = new Follower(a.spec.socket);
    const fb = new Follower(b.spec.socket);
    a.write('w');
    b.write('b');
    const working = await fa.next('working', t0);
    assert.is(working.activity, 'Working…', 'what the agent says it does, its spinner text');
    assert.is((await fb.next('blocked', t0)).question, 'Do you want to proceed?');
    assert.is(a.exit, null);
    assert.is(b.exit, null);
    for (const f of [fa, fb, fc]) f.close();
  } finally {
    await host.close();
    s.done();
  }
});

test('fault: an agent exits at once -> exited with its code; a command that cannot start leaves no socket', async () => {
  const s = scratch('aw-quick-');
  const host = newHost(s.env, 100);
  try {
    const quick = await host.start({
      command: '/bin/sh',
      args: ['-c', 'exit 7'],
      name: 'quick',
      headless: true,
    });
    await until('the exit', () => quick.exit);
    const f = new Follower(quick.spec.socket);
    const info = await f.next('exited');
    assert.equal(info.exit, { code: 7 });
    assert.is(info.by, 'exit');
    const screen = await request<{ text: string }>(quick.spec.socket, { op: 'screen' });
    assert.type(screen.text, 'string');
    f.close();

    let error: Error | undefined;
    try {
      await host.start({ command: 'no-such-agent-xyz', args: [], headless: true });
    } catch (e) {
      error = e as Error;
    }
    assert.match(String(error?.message), /no-such-agent-xyz: command not found/);
    assert.equal(
      readdirSync(s.dir).filter((n) => n.endsWith('.sock')),
      [`${quick.id}.sock`],
      'the failed start removed its socket',
    );
  } finally {
    await host.close();
    s.done();
  }
});

test('fault: a 50 MB/s flood for 2 s; two other sessions keep being classified and answering within 1 s', async () => {
  const s = scratch('aw-flood-');
  const host = newHost(s.env); // the default 700 ms sweep
  try {
    const flood = s.script('flood.js', FLOOD);
    const [a, b] = await Promise.all([startFake(host, s, 'a'), startFake(host, s, 'b')]);
    const fa = new Follower(a.spec.socket);
    const fb = new Follower(b.spec.socket);
    await fa.next('idle');
    await fb.next('idle');
    const flooder = await host.start({
      command: process.execPath,
      args: [flood, String(50 * 2 ** 20)],
      name: 'flood',
      headless: true,
    });
    const t0 = Date.now();
    // the flood under way (its first MB through the PTY) before anything is measured
    await until('the flood under way', () => flooder.bytesOut > 2 ** 20, 30_000).catch((e) => {
      throw new Error(
        `${e.message}: ${flooder.bytesOut} bytes read\n${flooder.terminal.screenText()}`,
      );
    });
    const infoMs: number[] = [];
    const transitions: number[] = [];
    // while it floods: `info` on both sockets every 100 ms for 2.2 s, and two state changes
    const pollFrom = Date.now();
    const poll = (async () => {
      while (Date.now() - pollFrom < 2200) {
        infoMs.push(...(await Promise.all([timedInfo(a), timedInfo(b)])));
        await sleep(100);
      }
    })();
    let t = Date.now();
    a.write('b');
    transitions.push((await fa.next('blocked', t)).at - t);
    t = Date.now();
    b.write('w');
    transitions.push((await fb.next('working', t)).at - t);
    await poll;
    flooder.write('q'); // the flood ends after the state changes and 2.2 s of info answers
    await screenShows(flooder, 'FLOOD-END', 20000);
    const seconds = (Date.now() - t0) / 1000;
    const mb = flooder.bytesOut / 2 ** 20;
    console.log(
      `    flood: ${mb.toFixed(0)} MB parsed in ${seconds.toFixed(1)} s; ` +
        `info answers max ${Math.max(...infoMs).toFixed(0)} ms (${infoMs.length}); ` +
        `transitions published after ${transitions.join(', ')} ms`,
    );
    // Offered at 50 MB/s; the PTY paces the writer to what the host reads and parses. The bounds
    // say "not starved" and "still answers", not a speed (that is bench/'s job): generous enough
    // for a CI machine running three test files at once.
    assert.ok(mb > 1, `the flood got through (${mb.toFixed(1)} MB)`);
    assert.ok(Math.max(...infoMs) < 3000, `info answers: ${infoMs.map(Math.round).join(' ')}`);
    assert.ok(Math.max(...transitions) < 3000, `transitions: ${transitions.join(' ')}`);
    assert.is(flooder.listenerErrors, 0);
    fa.close();
    fb.close();
  } finally {
    await host.close();
    s.done();
  }
});

test('fault: invalid UTF-8 and 2 MB of random bytes: nothing throws, invalid bytes are dropped as xterm does', async () => {
  const s = scratch('aw-bytes-');
  const host = newHost(s.env, 50);
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);
  process.on('uncaughtException', onUncaught);
  try {
    const session = await host.start({
      command: process.execPath,
      args: [s.script('garbage.js', GARBAGE)],
      name: 'garbage',
      agent: 'claude',
      headless: true,
    });
    await screenShows(session, 'RANDOM-END', 60_000);
    const w = host.ptyPane(session.id)!;
    // 0xff, and 0xc3 before '(' are not UTF-8: xterm.js (the reference) drops them, so do we
    assert.ok(session.terminal.screenText().includes('AB(C RANDOM-END'));
    assert.ok(session.bytesOut > 2 * 2 ** 20);
    assert.is(session.listenerErrors, 0);
    assert.equal(uncaught, []);
    const before = w.evaluations;
    assert.is(w.classifyNow().state, 'idle', 'the sweep still classifies it');
    assert.is(w.evaluations, before + 1);
    assert.is(evaluate(session.terminal.snapshot(), MANIFESTS.get('claude')!).state, 'idle');
    const info = await request<{ session: SessionInfo }>(session.spec.socket, { op: 'info' });
    assert.is(info.session.exit, null, 'the writer is still running');
  } finally {
    process.off('uncaughtException', onUncaught);
    await host.close();
    s.done();
  }
});

test('fault: keys typed while agents exit: no write to the closed PTY (no EBADF from node-pty), nothing thrown', async () => {
  const s = scratch('aw-keys-exit-');
  const host = newHost(s.env, 50);
  // node-pty 1.1 reports a failed queued write with console.error ('Unhandled pty write
  // error'), nowhere else.
  const logged: unknown[][] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    // 20 agents that read no input and exit after 0.2 s, each typed at in every turn of the
    // event loop until it has exited: the keys fill the terminal's input buffer (EAGAIN), and
    // some are typed as the PTY closes.
    const sessions = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        host.start({
          command: '/bin/sh',
          args: ['-c', 'sleep 0.2'],
          name: `exits-${i}`,
          headless: true,
        })),
    );
    await Promise.all(sessions.map((session) =>
      new Promise<void>((resolve) => {
        const type = () => {
          session.write('x'.repeat(64));
          if (session.exit) resolve();
          else setImmediate(type);
        };
        type();
      })
    ));
    for (const x of sessions) assert.is(x.exit?.code, 0);
    await host.close(); // turns of the event loop in which a write queued before could fail
    assert.equal(logged, [], 'nothing logged');
  } finally {
    console.error = consoleError;
    await host.close();
    s.done();
  }
});

test('fault: a resize storm (500 in 1 s through the socket and Session.resize): no crash, final size right', async () => {
  const s = scratch('aw-resize-');
  const host = newHost(s.env, 50);
  try {
    const session = await startFake(host, s, 'storm');
    const { socket, lines } = await rawConnection(session.spec.socket);
    for (let i = 0; i < 500; i++) {
      const rows = 10 + (i % 40);
      const cols = 20 + ((i * 7) % 180);
      if (i % 2) session.resize(rows, cols);
      else socket.write(JSON.stringify({ op: 'resize', rows, cols }) + '\n');
      if (i % 5 === 4) await sleep(10);
    }
    socket.write(JSON.stringify({ op: 'resize', rows: 24, cols: 80 }) + '\n');
    await until('251 answers', () => lines.length >= 251, 30_000);
    assert.ok(
      lines.every((l) => JSON.parse(l).ok === true),
      lines.find((l) => !l.includes('true')),
    );
    socket.destroy();
    // the agent redraws its size on each SIGWINCH, as the kernel reports it then: the last
    // size set is 24x80, so any redraw from now on says so
    await screenShows(session, 'size 24x80', 30_000);
    assert.ok(session.terminal.screenText().startsWith('size 24x80'));
    const info = await request<{ session: SessionInfo }>(session.spec.socket, { op: 'info' });
    assert.equal([info.session.rows, info.session.cols], [24, 80]);
    assert.equal([session.pty.rows, session.pty.cols], [24, 80]);
    assert.is(info.session.exit, null);
    // the agent is still classified at its new size
    session.write('b');
    await until('blocked at 24x80', () => host.ptyPane(session.id)!.record.state === 'blocked');
  } finally {
    await host.close();
    s.done();
  }
});

test('fault: a socket file left by a dead process is cleaned by listSessions and its name can be bound again; a live one is refused', async () => {
  const s = scratch('aw-stale-');
  const children: ChildProcess[] = [];
  /** Starts a server on `path` in a child process and SIGKILLs it: the socket file stays. */
  const staleSocket = async (path: string) => {
    const child = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`,
    ], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    await new Promise<void>((r) => child.stdout!.once('data', () => r()));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.ok(existsSync(path), 'the dead server left its socket file');
  };
  try {
    const path = join(s.dir, 'claude-dead.sock');
    await staleSocket(path);
    assert.equal(await listSessions(s.dir), []);
    assert.not.ok(existsSync(path), 'listSessions removed the stale socket');

    await staleSocket(path); // again, and this time bind over it directly
    const server = await listenControl(path, () => ({ hello: 'again' }));
    try {
      assert.equal(await request(path, { op: 'info' }), { ok: true, op: 'info', hello: 'again' });
      let refused: Error | undefined;
      try {
        await listenControl(path, () => ({}));
      } catch (e) {
        refused = e as Error;
      }
      assert.match(
        String(refused?.message),
        /claude-dead\.sock: a live session already uses this socket/,
      );
      assert.equal(
        await request(path, { op: 'info' }),
        { ok: true, op: 'info', hello: 'again' },
        'still serving',
      );
    } finally {
      await new Promise((r) => server.close(r));
    }
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    s.done();
  }
});

test('fault: the foreground addon missing (AGENTWATCH_NO_ADDON=1 in a run): still classifies, reports the shell and the agent', async () => {
  const s = scratch('aw-noaddon-');
  const run = spawn(process.execPath, [
    ...agentwatchArgv([]),
    'run',
    '--name',
    'noaddon',
    '--interval',
    '100',
    '--no-desktop',
    '--',
    'bash',
    '--norc',
    '--noprofile',
    '-i',
  ], {
    env: { ...s.env, AGENTWATCH_NO_ADDON: '1', PS1: '' },
    cwd: ROOT,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  run.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number | null>((r) => run.on('exit', (code) => r(code)));
  /** The run's session once `test` accepts it. */
  const seen = (what: string, test: (i: SessionInfo) => boolean) =>
    until(what, async () => (await listSessions(s.dir)).find((i) => test(i)), 60_000);
  try {
    const shell = await seen('bash in the foreground', (i) => i.foreground === 'bash');
    assert.is(shell.state, 'shell', 'no agent ran yet: alive, nothing to do');
    assert.is(shell.by, 'foreground');
    run.stdin!.write(`${s.claude}\r`);
    const agent = await seen('the agent', (i) => i.foreground === 'claude');
    assert.is(agent.agent, 'claude');
    run.stdin!.write('b');
    const blocked = await seen('blocked', (i) => i.state === 'blocked');
    assert.is(blocked.question, 'Do you want to proceed?');
    run.stdin!.write('x');
    const back = await seen('the shell back', (i) => i.foreground === 'bash');
    assert.is(back.state, 'exited');
    run.stdin!.end(); // run sends Ctrl-D to bash at the end of its input
    assert.is(await exit, 0, stderr);
  } finally {
    if (run.exitCode === null) run.kill('SIGKILL');
    s.done();
  }
});

test('fault: 100 sessions in one host: all reach their states, ls lists 100, close ends them all; no EMFILE, no fd leak', async () => {
  const s = scratch('aw-100-');
  mkdirSync(join(s.dir, 'loop'));
  const loop = s.script('loop/claude', LOOP);
  const host = newHost(s.env); // the default 700 ms sweep
  const kinds = ['idle', 'working', 'blocked'] as const;
  const sessions: Session[] = [];
  let closed = false;
  try {
    const fds0 = openFds();
    const t0 = Date.now();
    for (let i = 0; i < 100; i++) {
      sessions.push(
        await host.start({
          command: loop,
          args: [],
          name: `load${i}`,
          env: { AW_KIND: kinds[i % 3] },
          headless: true,
        }),
      );
    }
    const started = Date.now() - t0;
    const fds1 = openFds();
    const want = (i: number) => kinds[i % 3];
    await until(
      'all 100 in their states',
      () => sessions.every((x, i) => host.ptyPane(x.id)!.record.state === want(i)),
      60_000,
    );
    const reached = Date.now() - t0;
    const ls = await cli(['ls', '--json'], s.env);
    assert.is(ls.code, 0, ls.stderr);
    const listed = JSON.parse(ls.stdout) as SessionInfo[];
    assert.is(listed.length, 100);
    const byId = new Map(listed.map((i) => [i.id, i]));
    sessions.forEach((x, i) => {
      const info = byId.get(x.id);
      assert.ok(info, `${x.id} listed`);
      assert.is(info.state, want(i), `${x.id}`);
      assert.is(info.agent, 'claude');
      assert.is(info.foreground, 'claude');
    });
    assert.ok(sessions.every((x) => x.terminal.screenText().includes('tick')), 'all still print');

    await host.close();
    closed = true;
    await until('every PTY child reported its exit', () => sessions.every((x) => x.exit), 30_000);
    await until('no process left', () => sessions.every((x) => !processLives(x.pid)), 30_000);
    // the PTY masters and sockets close as their handles are released: wait for them (the
    // assertion below says how many were left if they never do)
    await until('the descriptors closed', () => openFds() - fds0 <= 5, 15_000).catch(() => {});
    const fds2 = openFds();
    assert.equal(readdirSync(s.dir).filter((n) => n.endsWith('.sock')), [], 'sockets removed');
    console.log(
      `    100 sessions: started in ${started} ms, in their states after ${reached} ms; ` +
        `fds ${fds0} -> ${fds1} (${((fds1 - fds0) / 100).toFixed(1)} per session) -> ${fds2} ` +
        `after close; ulimit -n ${ulimitN()}`,
    );
    assert.ok(fds2 - fds0 <= 5, `fds after close: ${fds0} -> ${fds2}`);
  } finally {
    if (!closed) await host.close();
    for (const x of sessions) if (processLives(x.pid)) process.kill(x.pid, 'SIGKILL');
    s.done();
  }
});

test('fault: a listener that throws in one session does not stop the others', async () => {
  const s = scratch('aw-listener-');
  const host = newHost(s.env, 100);
  try {
    let thrown = 0;
    host.onTransition(() => {
      thrown++;
      throw new Error('a broken transition listener');
    });
    const seen: string[] = [];
    host.onTransition((t) => seen.push(`${t.info.name}:${t.info.state}`));
    const [a, b] = await Promise.all([startFake(host, s, 'a'), startFake(host, s, 'b')]);
    a.onOutput(() => {
      throw new Error('a broken output listener');
    });
    const fa = new Follower(a.spec.socket);
    const fb = new Follower(b.spec.socket);
    const t0 = Date.now();
    a.write('w');
    b.write('b');
    await fa.next('working', t0);
    await fb.next('blocked', t0);
    a.write('b');
    await fa.next('blocked', Date.now());
    assert.ok(
      seen.includes('a:working') && seen.includes('a:blocked') && seen.includes('b:blocked'),
    );
    assert.ok(thrown >= 3);
    assert.ok(a.listenerErrors >= 2, 'output listener errors are counted, not thrown');
    assert.ok(a.terminal.screenText().includes('Do you want to proceed?'), 'a is still parsed');
    assert.is(b.listenerErrors, 0);
    fa.close();
    fb.close();
  } finally {
    await host.close();
    s.done();
  }
});

test('fault: a control client sending garbage gets error lines and the server keeps serving', async () => {
  const s = scratch('aw-garbage-');
  const host = newHost(s.env, 100);
  try {
    const session = await startFake(host, s, 'g');
    const { socket, lines } = await rawConnection(session.spec.socket);
    const send = (text: string | Buffer) => socket.write(text);
    send('garbage\n');
    send('{}\n');
    send('[1,2]\n');
    send('null\n');
    send('{"op": 5}\n');
    send('{"op":"nope"}\n');
    send('{"op":"resize"}\n');
    send('{"op":"resize","rows":"many","cols":80}\n');
    send(
      Buffer.concat([Buffer.from([0x00, 0xff, 0xfe, 0x1b, 0x5b, 0x41, 0x80]), Buffer.from('\n')]),
    );
    // a request whose op is cut inside a UTF-8 character ('ï' is c3 af) by two writes
    const split = Buffer.from('{"op":"ïnfo"}\n');
    send(split.subarray(0, 8));
    await sleep(50);
    send(split.subarray(8));
    await until('10 error lines', () => lines.length >= 10);
    const answers = lines.map((l) => JSON.parse(l) as { ok: boolean; error?: string });
    assert.ok(answers.every((a) => a.ok === false), lines.join('\n'));
    for (let i = 0; i < 5; i++) {
      assert.match(answers[i].error!, /^bad request: not a JSON object with an "op"/);
    }
    assert.is(answers[5].error, "unknown op 'nope'");
    assert.match(answers[6].error!, /resize: rows must be 1-1000 and cols 2-2000/);
    assert.match(answers[7].error!, /resize: rows must be 1-1000 and cols 2-2000/);
    assert.match(answers[8].error!, /^bad request/);
    assert.is(answers[9].error, "unknown op 'ïnfo'", 'a UTF-8 character split across reads');
    // the same reader on the client side: a 4-byte character in three pieces
    const got: string[] = [];
    const read = lineReader((l) => got.push(l), () => {});
    const rocket = Buffer.from('go 🚀\n');
    for (const [a, b] of [[0, 4], [4, 5], [5, 8]]) read(rocket.subarray(a, b));
    assert.equal(got, ['go 🚀']);
    assert.equal([session.terminal.rows, session.terminal.cols], [32, 120], 'no resize to NaN');

    // a line over 1 MB, then a request on the same connection: refused, closed, not run
    const before = lines.length;
    let closed = false;
    socket.on('close', () => (closed = true));
    send('x'.repeat(1.5 * 2 ** 20) + '\n');
    send('{"op":"kill"}\n');
    await until('the connection closed after the long line', () => closed, 30_000);
    assert.equal(lines.slice(before).map((l) => JSON.parse(l).error), [
      'request line longer than 1 MB',
    ]);
    assert.is(session.exit, null, 'the kill after the long line did not run');
    // and a fresh connection works
    assert.is(
      (await request<{ session: SessionInfo }>(session.spec.socket, { op: 'info' })).session
        .state,
      'idle',
    );
  } finally {
    await host.close();
    s.done();
  }
});

test('fault: close() with a client that keeps its connection open and an agent that ignores SIGHUP', async () => {
  const s = scratch('aw-close-');
  const host = newHost(s.env, 100);
  let stubborn: Session | undefined;
  try {
    stubborn = await host.start({
      command: '/bin/sh',
      args: ['-c', "trap '' HUP; echo STUBBORN; while :; do sleep 0.2; done"],
      name: 'stubborn',
      headless: true,
    });
    await screenShows(stubborn, 'STUBBORN');
    // a client that never closes its side (allowHalfOpen), never sends a request
    const idle = createConnection({ path: stubborn.spec.socket, allowHalfOpen: true });
    idle.on('error', () => {});
    await new Promise((r) => idle.once('connect', r));
    const t0 = Date.now();
    await host.close();
    const took = Date.now() - t0;
    // not held by the client that never closes (a hang would be for ever): the agent's grace,
    // then SIGKILL; bounded for a loaded machine
    assert.ok(took < 30_000, `close took ${took} ms`);
    await until('the SIGKILL', () => stubborn!.exit, 30_000);
    assert.is(stubborn.exit!.signal, 9, 'SIGHUP ignored, then SIGKILL');
    await until('no process left', () => !processLives(stubborn!.pid), 30_000);
    assert.ok(idle.destroyed || idle.readableEnded, 'the idle client was ended');
    idle.destroy();
  } finally {
    if (stubborn && processLives(stubborn.pid)) process.kill(-stubborn.pid, 'SIGKILL');
    s.done();
  }
});

/** The soft limit on open files (`ulimit -n`), from /proc/self/limits. */
function ulimitN(): string {
  const m = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return m ? m[1] : '?';
}

test.run();
