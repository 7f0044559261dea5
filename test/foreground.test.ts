/**
 * foreground(): real PTYs, real processes. bash in a PTY holds its terminal; `sleep 5` typed
 * into it takes the foreground; Ctrl-C gives it back. Every source (addon, /proc, ps) must
 * see the same, and a dead child must give null.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isatty } from 'node:tty';
import * as pty from 'node-pty';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  executableName,
  type Foreground,
  foreground,
  foregroundDiagnostics,
  type ForegroundVia,
  LEADER_REREAD_MS,
  loadForegroundAddon,
  type PtyMaster,
  ptyMasterFd,
  setAddonPath,
} from '../src/runtime/foreground.ts';

const WAIT_MS = 3000;
const STEP_MS = 20;
const BASH = { name: 'bash', argv: ['bash', '--norc', '--noprofile', '-i'] };
const SOURCES: ForegroundVia[] = process.platform === 'linux'
  ? ['addon', 'proc', 'ps']
  : ['addon', 'ps'];

function spawnBash(): pty.IPty {
  return pty.spawn('bash', ['--norc', '--noprofile', '-i'], {
    name: 'xterm-256color',
    cols: 80,
    rows: 24,
    cwd: tmpdir(),
    env: { ...process.env, HISTFILE: '/dev/null', PS1: '$ ' },
  });
}

/** Polls `read` every STEP_MS until `done` holds, for at most `ms`; returns the last value. */
async function waitFor<T>(read: () => T, done: (value: T) => boolean, ms = WAIT_MS): Promise<T> {
  const deadline = Date.now() + ms;
  let value = read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, STEP_MS));
    value = read();
  }
  return value;
}

/** Kills the PTY's child and any foreground group it left, and waits for node-pty's exit. */
async function killAll(p: pty.IPty, groups: number[]): Promise<void> {
  const exited = new Promise<void>((resolve) => p.onExit(() => resolve()));
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch { /* already gone */ }
  }
  try {
    process.kill(p.pid, 'SIGKILL');
  } catch { /* already gone */ }
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, WAIT_MS))]);
}

/**
 * Asserts that every source, asked alone, gives `expected` (and names itself in `via`). ps is
 * asked again, up to 5 times, when one of its runs ran out of its 1 s (a loaded machine was
 * slow to start it): spawnSync ETIMEDOUT for the group, or the leader left unread (an empty
 * name) though it is alive.
 */
function everySourceSays(m: PtyMaster, expected: Omit<Foreground, 'via'>): void {
  for (const via of SOURCES) {
    let got: Foreground | null | undefined;
    for (let attempt = 1; attempt <= 5; attempt++) {
      try {
        got = foreground(m, { via });
      } catch (e) {
        if (via !== 'ps' || attempt === 5 || !/ETIMEDOUT/.test(String(e))) throw e;
        continue;
      }
      if (via !== 'ps' || got?.name !== '') break;
    }
    assert.equal(got, { ...expected, via }, via);
  }
}

test('the addon is built and loads', () => {
  const d = foregroundDiagnostics();
  assert.is(d.addon, 'loaded', d.summary);
  assert.ok(d.loadedFrom?.endsWith(path.join('build', 'Release', 'agentwatch_foreground.node')));
});

test('bash, then sleep 5, then bash again after Ctrl-C; addon, /proc and ps agree', async () => {
  const p = spawnBash();
  const groups: number[] = [];
  try {
    const fd = ptyMasterFd(p);
    assert.type(fd, 'number');
    assert.ok(isatty(fd!), 'the master fd is a terminal');
    const m = { fd, pid: p.pid };

    const bash = await waitFor(() => foreground(m), (f) => f?.name === 'bash' && f.argv.length > 0);
    const bashHolds = { pgid: p.pid, pid: p.pid, ...BASH };
    assert.equal(bash, { ...bashHolds, via: 'addon' });
    everySourceSays(m, bashHolds);

    p.write('sleep 5\r');
    const sleep = await waitFor(
      () => foreground(m),
      (f) => f?.name === 'sleep' && f.argv.length > 0,
    );
    assert.ok(sleep);
    groups.push(sleep.pgid);
    assert.is(sleep.name, 'sleep');
    assert.equal(sleep.argv, ['sleep', '5']);
    assert.is.not(sleep.pgid, p.pid);
    assert.is(sleep.pid, sleep.pgid);
    assert.is(sleep.via, 'addon');
    everySourceSays(m, { pgid: sleep.pgid, pid: sleep.pgid, name: 'sleep', argv: ['sleep', '5'] });

    p.write('\x03');
    const back = await waitFor(() => foreground(m), (f) => f?.pgid === p.pid);
    assert.equal(back, { ...bashHolds, via: 'addon' });
    everySourceSays(m, bashHolds);
  } finally {
    await killAll(p, groups);
  }
});

test('previous: the leader is read again only when the group changed, or after a while', async () => {
  const p = spawnBash();
  const groups: number[] = [];
  try {
    const m = { fd: ptyMasterFd(p), pid: p.pid };
    const bash = await waitFor(() => foreground(m), (f) => f?.name === 'bash' && f.argv.length > 0);
    assert.ok(bash);
    // the same group: the previous answer itself, its leader not read again
    assert.is(foreground(m, { previous: bash }), bash);
    if (process.platform === 'linux') {
      const proc = foreground(m, { via: 'proc' });
      assert.is(foreground(m, { via: 'proc', previous: proc }), proc);
      assert.is.not(foreground(m, { via: 'addon', previous: proc }), proc, 'another source');
    }
    // an answer foreground() did not give is no proof: read afresh
    const copy = { ...bash, argv: ['marker'] };
    assert.equal(foreground(m, { previous: copy })?.argv, BASH.argv);
    p.write('sleep 5\r');
    const sleep = await waitFor(
      () => foreground(m, { previous: bash }),
      (f) => f?.name === 'sleep' && f.argv.length > 0,
    );
    assert.ok(sleep);
    groups.push(sleep.pgid);
    assert.equal(sleep.argv, ['sleep', '5']);
    p.write('\x03');
    const back = await waitFor(() => foreground(m, { previous: sleep }), (f) => f?.pgid === p.pid);
    assert.equal(back, { pgid: p.pid, pid: p.pid, ...BASH, via: 'addon' });
    // the leader execs another program (same pid, same group): seen once LEADER_REREAD_MS
    // has passed, while every call passes its previous answer
    p.write('exec sleep 30\r');
    let last = back;
    const execd = await waitFor(
      () => (last = foreground(m, { previous: last }) ?? last),
      (f) => f?.name === 'sleep',
      LEADER_REREAD_MS + WAIT_MS,
    );
    assert.ok(execd);
    assert.is(execd.pgid, p.pid);
    assert.equal(execd.argv, ['sleep', '30']);
  } finally {
    await killAll(p, groups);
  }
});

test("previous: a shell's command string (bash -c 'a; b') is read every time, so the exec of its last command is seen at once", async () => {
  // bash execs the last command of a -c string in its own place: same pid, same group.
  const p = pty.spawn('bash', ['-c', 'read -r _; sleep 30'], { cols: 80, rows: 24 });
  try {
    const m = { fd: ptyMasterFd(p), pid: p.pid };
    const shell = await waitFor(
      () => foreground(m),
      (f) => f?.name === 'bash' && f.argv.length > 0,
    );
    assert.equal(shell?.argv, ['bash', '-c', 'read -r _; sleep 30']);
    p.write('\r');
    // a fresh read (no previous answer) sees the exec
    await waitFor(() => foreground(m), (f) => f?.name === 'sleep');
    const after = foreground(m, { previous: shell });
    assert.equal([after?.name, after?.argv], ['sleep', ['sleep', '30']]);
    assert.is(after?.pgid, p.pid);
  } finally {
    await killAll(p, []);
  }
});

test("previous: a shell leading its own group under the PTY's shell (its fork for a command, not exec'd yet) is read every time", async () => {
  // `( read; exec sleep 30 )`: bash forks a subshell into a group of its own, in front; it
  // stays a shell until Enter, then execs sleep in its own place (same pid, same group), as a
  // fork read before its exec would.
  const p = spawnBash();
  const groups: number[] = [];
  try {
    const m = { fd: ptyMasterFd(p), pid: p.pid };
    await waitFor(() => foreground(m), (f) => f?.name === 'bash' && f.argv.length > 0);
    p.write('( read -r _; exec sleep 30 )\r');
    const sub = await waitFor(
      () => foreground(m),
      (f) => f !== null && f.pgid !== p.pid && f.name === 'bash' && f.argv.length > 0,
    );
    assert.ok(sub && sub.pgid !== p.pid, `the subshell in front: ${JSON.stringify(sub)}`);
    groups.push(sub.pgid);
    p.write('\r');
    await waitFor(() => foreground(m), (f) => f?.name === 'sleep');
    const after = foreground(m, { previous: sub });
    assert.equal([after?.name, after?.pgid], ['sleep', sub.pgid]);
  } finally {
    await killAll(p, groups);
  }
});

test('AGENTWATCH_NO_ADDON=1 and a missing fd fall back to /proc (Linux) or ps', async () => {
  const p = spawnBash();
  const fallback = process.platform === 'linux' ? 'proc' : 'ps';
  try {
    const m = { fd: ptyMasterFd(p), pid: p.pid };
    const before = process.env.AGENTWATCH_NO_ADDON;
    process.env.AGENTWATCH_NO_ADDON = '1';
    try {
      // During execve the kernel names the process before its new argv is readable
      // (/proc/PID/cmdline is empty for a moment): wait for both.
      const f = await waitFor(() => foreground(m), (v) => v?.name === 'bash' && v.argv.length > 0);
      assert.equal(f, { pgid: p.pid, pid: p.pid, ...BASH, via: fallback });
      assert.is(foregroundDiagnostics().addon, 'disabled');
      assert.throws(() => foreground(m, { via: 'addon' }), /AGENTWATCH_NO_ADDON/);
    } finally {
      if (before === undefined) delete process.env.AGENTWATCH_NO_ADDON;
      else process.env.AGENTWATCH_NO_ADDON = before;
    }
    assert.is(foreground({ pid: p.pid })?.via, fallback);
  } finally {
    await killAll(p, []);
  }
});

test('an fd that is not the master: the addon throws naming errno, the default falls back', async () => {
  const p = spawnBash();
  try {
    const bad = { fd: 1_000_000, pid: p.pid };
    assert.throws(() => foreground(bad, { via: 'addon' }), /tcgetpgrp\(1000000\).*EBADF/);
    const f = await waitFor(() => foreground(bad), (v) => v?.name === 'bash');
    assert.is(f?.via, process.platform === 'linux' ? 'proc' : 'ps');
    assert.is(f?.pgid, p.pid);
  } finally {
    await killAll(p, []);
  }
});

test('a dead PTY child gives null from every source, not a throw', async () => {
  const p = spawnBash();
  const m = { fd: ptyMasterFd(p), pid: p.pid };
  const alive = await waitFor(() => foreground(m), (f) => f?.name === 'bash' && f.argv.length > 0);
  await killAll(p, []);
  assert.is(await waitFor(() => foreground(m), (f) => f === null), null);
  for (const via of SOURCES) {
    assert.is(foreground(m, { via }), null, via);
    // the last answer of a live child is no answer for a dead one
    assert.is(foreground(m, { via, previous: alive }), null, `${via} with previous`);
  }
});

test('a missing addon path is reported, never thrown', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'aw-addon-'));
  const missing = path.join(dir, 'no-such-dir', 'agentwatch_foreground.node');
  const notAnAddon = path.join(dir, 'not-an-addon.node');
  try {
    writeFileSync(notAnAddon, 'not a shared object\n');

    const load = loadForegroundAddon([missing, notAnAddon]);
    assert.is(load.addon, undefined);
    assert.equal(load.tried.map((t) => t.path), [missing, notAnAddon]);
    for (const t of load.tried) assert.ok(t.error.length > 0, t.path);

    setAddonPath(missing);
    try {
      const d = foregroundDiagnostics();
      assert.is(d.tried[0].path, missing);
      assert.match(d.tried[0].error, /No such file|cannot open|not found/i);
      assert.is(d.addon, 'loaded', 'the build folder is still tried after the explicit path');
    } finally {
      setAddonPath(undefined);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('executableName: basename, no .exe, a 15-byte comm completed from argv[0]', () => {
  const claude = ['node_modules/@anthropic-ai/claude-code/bin/claude.exe', '--version'];
  assert.is(executableName('claude.exe', claude), 'claude');
  assert.is(executableName('claude', ['node_modules/.bin/claude']), 'claude');
  assert.is(executableName('bash', ['-bash']), 'bash');
  assert.is(
    executableName('agentwatch-fore', ['/usr/bin/agentwatch-foreground']),
    'agentwatch-foreground',
  );
  assert.is(executableName('agentwatch-fore', ['something-else']), 'agentwatch-fore');
  assert.is(executableName('/Applications/Foo.app/Contents/MacOS/Foo', []), 'Foo');
  assert.is(executableName('', ['/opt/bin/codex']), 'codex');
});

test.run();
