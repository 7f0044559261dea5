/**
 * `agentwatch wait` as scripts use it: a session started after wait is waited for, several
 * states and several sessions, --all and --any, and the exit codes 0 / 1 / 2 / 4. Fake session
 * sockets (no PTY): the CLI is a real process, the point being its exit code.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { agentwatchArgv, cli } from './support/cli.ts';
import { until } from './support/until.ts';
import { fakeInfo, type FakeSession, fakeSession } from './support/fake-session.ts';

const dir = mkdtempSync(join(tmpdir(), 'aw-wait-'));
const env = { ...process.env, AGENTWATCH_DIR: dir };
const open: FakeSession[] = [];

/** A fake session named `name` (in `where`) whose state is whatever `state.now` says when asked. */
async function session(name: string, first: string, where = dir) {
  const state = { now: first };
  const socket = join(where, `${name}.sock`);
  const info = () => fakeInfo(name, socket, { state: state.now });
  const s = await fakeSession(socket, info);
  open.push(s);
  return {
    subscribers: () => s.subscribers(),
    set(next: string) {
      state.now = next;
      s.push(info());
    },
    close: () => s.close(),
  };
}

test.after(async () => {
  for (const s of open) await s.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

test('a session that does not exist yet is waited for; it reaches blocked: exit 0', async () => {
  const waiting = cli(['wait', 'late', '--until', 'blocked', '--timeout', '30'], env);
  const late = await session('late', 'working');
  late.set('blocked');
  const r = await waiting;
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'late blocked\n');
  await late.close();
});

test('a session that never appears: exit 4 after the timeout', async () => {
  const r = await cli(['wait', 'nobody', '--until', 'idle', '--timeout', '0.6'], env);
  assert.is(r.code, 4);
  assert.match(r.stderr, /no session 'nobody'/);
  assert.not.match(r.stderr, /waiting for it/, 'a script with a timeout is not told it waits');
});

/** A socket folder of its own (for a wait whose looks at it are counted), removed at the end. */
async function ownFolder<T>(body: (where: string, env: NodeJS.ProcessEnv) => Promise<T>) {
  const where = mkdtempSync(join(tmpdir(), 'aw-wait-'));
  try {
    return await body(where, { ...process.env, AGENTWATCH_DIR: where });
  } finally {
    rmSync(where, { recursive: true, force: true });
  }
}

test('without --timeout, a session that does not exist yet: stderr says once that wait waits', () =>
  ownFolder(async (where, env) => {
    // the run's bundle, as cli() runs it: tsx compiling the sources took over 30 s at load 42
    const child = spawn(process.execPath, agentwatchArgv(['wait', 'late3', '--until', 'idle']), {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    try {
      await until(
        'wait to say it waits',
        () => /no session 'late3' yet; waiting/.test(stderr),
        30_000,
      );
      const late = await session('late3', 'working', where);
      await until('wait following it', () => late.subscribers() > 0, 30_000);
      late.set('idle');
      assert.is(await exited, 0, stderr);
      assert.is(stdout, 'late3 idle\n');
      assert.is(stderr.match(/waiting for it/g)?.length, 1, stderr);
    } finally {
      child.kill();
    }
  }));

/**
 * `wait seen1 later1 --until UNTIL` in a folder of its own: seen1 is there, later1 not yet;
 * once this wait has asked seen1, seen1's socket is removed (as `kill` leaves it), then later1
 * comes and reads `exited`. Resolves with the wait's run.
 */
const seenThenGone = (until_: string) =>
  ownFolder(async (where, env) => {
    const socket = join(where, 'seen1.sock');
    let asked = 0;
    const seen = await fakeSession(socket, () => {
      asked++;
      return fakeInfo('seen1', socket, { state: 'working' });
    });
    open.push(seen);
    const run = cli(['wait', 'seen1', 'later1', '--until', until_, '--timeout', '60'], env);
    await until('the wait to see seen1', () => asked > 0, 60_000);
    await seen.close();
    const later = await session('later1', 'working', where);
    if (until_ === 'exited') {
      await until('the wait following later1', () => later.subscribers() > 0, 60_000);
      later.set('exited');
    }
    return await run;
  });

test('a session this wait saw that then went away has exited: --until exited is reached', async () => {
  const [e, i] = await Promise.all([seenThenGone('exited'), seenThenGone('idle')]);
  assert.is(e.code, 0, e.stderr);
  assert.equal(e.stdout.split('\n').filter(Boolean).sort(), ['later1 exited', 'seen1 exited']);
  assert.is(i.code, 1, `gone before it was idle: ${i.stderr}`);
  assert.match(i.stderr, /session seen1 went away/);
});

test('several states, several sessions: all by default, the first with --any', async () => {
  const a = await session('a1', 'working');
  const b = await session('b1', 'working');
  const anyRun = cli(
    ['wait', 'a1', 'b1', '--until', 'blocked,idle', '--any', '--timeout', '30'],
    env,
  );
  const allRun = cli(['wait', '--all', '--until', 'blocked,idle', '--timeout', '30'], env);
  a.set('idle');
  const any = await anyRun;
  assert.is(any.code, 0, any.stderr);
  assert.is(any.stdout, 'a1 idle\n');
  b.set('blocked');
  const all = await allRun;
  assert.is(all.code, 0, all.stderr);
  assert.equal(all.stdout.split('\n').filter(Boolean).sort(), ['a1 idle', 'b1 blocked']);
  // a state not reached in time: exit 1, naming the sessions
  const late = await cli(['wait', 'a1', '--until', 'working', '--timeout', '0.5'], env);
  assert.is(late.code, 1);
  assert.match(late.stderr, /a1 did not reach working within 0.5 s/);
  // a session that goes away before its state: 1, unless exited is awaited
  const gone = cli(['wait', 'b1', '--until', 'working', '--timeout', '30'], env);
  const ended = cli(['wait', 'a1', '--until', 'working,exited', '--timeout', '30'], env);
  await until('both waits following', () => b.subscribers() > 0 && a.subscribers() > 0, 30_000);
  await b.close();
  await a.close();
  const g = await gone;
  assert.is(g.code, 1);
  assert.match(g.stderr, /b1 went away/);
  const e = await ended;
  assert.is(e.code, 0, e.stderr);
});

test('a plain shell is not exited: --until exited times out on it, --until shell,running is reached', async () => {
  const sh = await session('sh1', 'shell');
  const no = await cli(['wait', 'sh1', '--until', 'exited', '--timeout', '0.6'], env);
  assert.is(no.code, 1, no.stderr);
  const yes = cli(['wait', 'sh1', '--until', 'running', '--timeout', '30'], env);
  await until('wait following', () => sh.subscribers() > 0, 30_000);
  sh.set('running');
  const r = await yes;
  assert.is(r.code, 0, r.stderr);
  const s2 = await cli(['wait', 'sh1', '--until', 'shell,running', '--timeout', '30'], env);
  assert.is(s2.code, 0, s2.stderr);
});

test('usage: exit 2', async () => {
  for (
    const args of [['wait', 'x', '--until', 'sleeping'], ['wait', '--until', 'idle'], [
      'wait',
      'x',
      '--all',
      '--until',
      'idle',
    ]]
  ) {
    const r = await cli(args, env);
    assert.is(r.code, 2, args.join(' '));
  }
});

test.run();
