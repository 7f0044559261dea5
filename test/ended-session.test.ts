/**
 * A detached session whose agent exits at once (a missing key, a bad flag) can still say why:
 * its host keeps its last screen and how it ended (src/runtime/ended-sessions.ts), `ls` shows
 * its last line, `explain NAME` its last screen, the board its last line and, on Enter, its
 * last screen; the board's `x` forgets it. A `run` session in a terminal is kept the same
 * when it ends (killed, or its command exits): `wait --until exited` is reached. Real processes in PTYs and a real background host
 * in a temporary AGENTWATCH_DIR; readiness is awaited.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentwatchArgv, runCli } from './support/agentwatch-e2e.ts';
import { startPty } from './support/pty-driver.ts';
import { sandbox } from './support/sandbox.ts';
import { until } from './support/until.ts';
import {
  ENDED_KEEP_MS,
  findEnded,
  listEnded,
  MAX_ENDED,
  saveEnded,
} from '../src/runtime/ended-sessions.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { ensureSocketDir } from '../src/runtime/paths.ts';
import { BoardUi } from '../src/cli/board/ui.ts';
import { SessionDirectory } from '../src/runtime/session-directory.ts';
import type { SessionHost } from '../src/runtime/host.ts';
import { fakeTerminal } from './support/fake-session.ts';

/** A record's info: session `id` (its name before the '-') that exited with `exit`. */
const info = (id: string, exit: SessionInfo['exit'] = { code: 1 }): SessionInfo => ({
  id,
  name: id.split('-')[0],
  agent: '',
  state: 'exited',
  since: 0,
  reason: 'exited',
  by: 'exit',
  pid: 1,
  command: ['x'],
  foreground: '',
  rows: 2,
  cols: 10,
  startedAt: 0,
  lastOutput: 0,
  exit,
  host: 1,
  socket: '/x.sock',
});

/** An agent that fails at once, as one without its API key does. */
const FAILING = [
  'bash',
  '--norc',
  '-c',
  'printf "fake-agent 1.0 starting\\nError: no API key found (set FAKE_API_KEY)\\n"; exit 1',
];

test('a detached session that exits at once: ls, explain and the board show why; x forgets it', async () => {
  const { dir, env } = sandbox('aw-end-');
  const board = await startPty({
    command: process.execPath,
    args: agentwatchArgv(['watch', '--no-desktop']),
    env,
    cwd: dir,
    rows: 24,
    cols: 140,
  });
  try {
    await board.waitForScreen(/no sessions yet/, 30_000);
    const started = await runCli(['run', '--detach', '--name', 'fresh', '--', ...FAILING], env);
    assert.is(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    // ls: the session is gone, its end and last line are kept.
    const ls = await until('ls to show the ended session', async () => {
      const r = await runCli(['ls'], env);
      return r.stdout.includes(id) && r.stdout;
    }, 30_000);
    assert.match(ls, /^no sessions/m);
    assert.match(
      ls,
      new RegExp(
        `^${id} +- +ended +\\S+ ago +exited with code 1 · last screen: "Error: no API key found`,
        'm',
      ),
    );
    // explain NAME: how it ended, its command, its last screen; also from a folder holding a
    // directory of that name (a directory is never a capture file).
    mkdirSync(join(dir, 'fresh'));
    const x = await runCli(['explain', 'fresh'], env, 30_000, { cwd: dir });
    assert.is(x.code, 0, x.stderr);
    assert.match(x.stdout, new RegExp(`^fresh \\(${id}\\): exited with code 1 \\d`, 'm'));
    assert.match(x.stdout, /^command: bash --norc -c/m);
    assert.match(x.stdout, /^ {2}1 │fake-agent 1\.0 starting$/m);
    assert.match(x.stdout, /^ {2}2 │Error: no API key found \(set FAKE_API_KEY\)$/m);
    // wait for it, with no timeout: it waits (a new 'fresh' may come), saying this one ended.
    const waiter = spawn(
      process.execPath,
      agentwatchArgv(['wait', 'fresh', '--until', 'blocked']),
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let waitErr = '';
    waiter.stderr.on('data', (d: Buffer) => (waitErr += d.toString()));
    const waitEnded = new Promise((r) => waiter.on('close', r));
    await until('wait to say the session ended', () => /shows why/.test(waitErr), 30_000);
    waiter.kill();
    await waitEnded;
    assert.match(
      waitErr,
      new RegExp(
        `no session 'fresh' yet; waiting for it \\(Ctrl-C to stop\\); a session 'fresh' \\(${id}\\) ended \\S+ ago, exited with code 1: 'agentwatch explain ${id}' shows why`,
      ),
    );
    // --until exited: it has (tester6: `kill w1` then `wait w1 --until exited` said no session).
    const exited = await runCli(['wait', 'fresh', '--until', 'exited', '--timeout', '30'], env);
    assert.is(exited.code, 0, exited.stderr);
    assert.is(exited.stdout, 'fresh exited\n');
    // The board saw it end: its row says how, with the last line; Enter shows the screen.
    await board.waitForScreen(
      /fresh .*exited with code 1 · last screen: "Error: no API key found \(set FAKE_API_KEY\)"/,
      30_000,
    );
    board.send('\r');
    await board.waitForScreen(
      /fresh \(.*\) ended .* ago: exited with code 1 · its last screen[\s\S]*fake-agent 1\.0 starting\nError: no API key found[\s\S]*any key returns to the board/,
      15_000,
    );
    board.send(' ');
    await board.waitForScreen(/fresh .*exited with code 1 ·/, 15_000, { not: /its last screen/ });
    // x clears the row and forgets the record: ls and explain no longer show it.
    board.send('x');
    await board.waitForScreen(/cleared 1 exited session/, 15_000);
    const after = await runCli(['ls'], env);
    assert.not.match(after.stdout, new RegExp(id));
    const gone = await runCli(['explain', 'fresh'], env);
    assert.is(gone.code, 4, gone.stdout);
    assert.match(gone.stderr, /no session 'fresh'/);
    board.send('q');
    await board.exited;
  } finally {
    await board.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Starts `agentwatch run --name NAME -- CMD...` in a real PTY in `dir` with `env`, and resolves
 * once `ls` lists its session (its socket is served): the id.
 */
async function startRunSession(
  name: string,
  command: string[],
  env: Record<string, string>,
  dir: string,
): Promise<{ pty: Awaited<ReturnType<typeof startPty>>; id: string }> {
  const pty = await startPty({
    command: process.execPath,
    args: agentwatchArgv(['run', '--no-desktop', '--name', name, '--', ...command]),
    env,
    cwd: dir,
    rows: 12,
    cols: 100,
  });
  try {
    const id = await until(`ls to list ${name}`, async () => {
      const r = await runCli(['ls', '--json'], env);
      const found = (JSON.parse(r.stdout || '[]') as SessionInfo[]).find((s) => s.name === name);
      return found?.id;
    }, 30_000);
    return { pty, id };
  } catch (e) {
    await pty.close();
    throw e;
  }
}

test('a run session that ends (kill, or its command exits) is kept as ended: wait --until exited, ls, explain', async () => {
  const { dir, env } = sandbox('aw-end-run-');
  try {
    // tester7: `kill q1; wait q1 --until exited --timeout 5` said "no session 'q1'" (exit 4)
    // for a `run` session; tester9: the person's terminal closed (`run` reads and writes EIO
    // and gets SIGHUP) and `run` crashed on a write to it, leaving no ended record. Each twice,
    // with the same name: the newest of that name is the one.
    for (const [round, how] of [[1, 'kill'], [2, 'kill'], [1, 'hangup'], [2, 'hangup']] as const) {
      const name = how === 'kill' ? 'q1' : 'q3';
      const line = `${how} ${round} ready`;
      const { pty, id } = await startRunSession(
        name,
        ['bash', '--norc', '-c', `echo '${line}'; exec sleep 600`],
        env,
        dir,
      );
      try {
        await pty.waitForScreen(new RegExp(line), 30_000);
        if (how === 'kill') {
          const killed = await runCli(['kill', name], env);
          assert.is(killed.code, 0, killed.stderr);
          assert.is(killed.stdout, `ended ${id}\n`);
        } else pty.hangUp();
        const waited = await runCli(['wait', name, '--until', 'exited', '--timeout', '5'], env);
        assert.is(waited.code, 0, `${how} ${round}: ${waited.stderr}`);
        assert.is(waited.stdout, `${name} exited\n`);
        await pty.exited;
        const ls = await runCli(['ls'], env);
        assert.match(ls.stdout, /^no sessions/m);
        assert.match(
          ls.stdout,
          new RegExp(
            `^${id} +- +ended +\\S+ ago +ended by SIGHUP \\(signal 1\\) · last screen: "${line}"$`,
            'm',
          ),
          ls.stdout,
        );
        const x = await runCli(['explain', id], env);
        assert.is(x.code, 0, x.stderr);
        assert.match(
          x.stdout,
          new RegExp(`^${name} \\(${id}\\): ended by SIGHUP \\(signal 1\\) \\d`, 'm'),
        );
        assert.match(x.stdout, new RegExp(`^ {2}1 │${line}$`, 'm'));
      } finally {
        await pty.close();
      }
    }
    // Its command exits by itself: `run` returns its code, and the session is kept as ended.
    const { pty, id } = await startRunSession(
      'q2',
      ['bash', '--norc', '-c', 'echo "waiting for go"; read -r _; echo "bye now"; exit 3'],
      env,
      dir,
    );
    try {
      await pty.waitForScreen(/waiting for go/, 30_000);
      pty.send('\r');
      assert.is((await pty.exited).exitCode, 3);
      const waited = await runCli(['wait', 'q2', '--until', 'exited', '--timeout', '5'], env);
      assert.is(waited.code, 0, waited.stderr);
      assert.is(waited.stdout, 'q2 exited\n');
      const ls = await runCli(['ls'], env);
      assert.match(
        ls.stdout,
        new RegExp(`^${id} +- +ended +\\S+ ago +exited with code 3 · last screen: "bye now"$`, 'm'),
      );
    } finally {
      await pty.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the board keeps an ended session after lunch, quotes its last row, and says when its record was dropped', async () => {
  const { dir, env } = sandbox('aw-end-later-');
  const sdir = ensureSocketDir(env);
  // A broken rule file: the board's notice line speaks of it (and must not hide what follows).
  const rules = join(env.XDG_CONFIG_HOME, 'agentwatch', 'agent-detection');
  mkdirSync(rules, { recursive: true });
  writeFileSync(join(rules, 'broken.toml'), 'this is [ broken\n'.repeat(20));
  // Ended 3 hours ago (tester: the board dropped ended sessions after about 20 minutes), its
  // last row a key hint padded across the screen (tester: 'ended by signal 1 · Esc to cancel').
  saveEnded({
    info: info('lunch-0001', { code: 0, signal: 1 }),
    screen:
      'working on it\n\n  Esc to cancel                                ctrl+t to show todos  \n\n',
    events: [],
    endedAt: Date.now() - 3 * 3_600_000,
  }, sdir);
  const board = await startPty({
    command: process.execPath,
    args: agentwatchArgv(['watch', '--no-desktop']),
    env,
    cwd: dir,
    rows: 24,
    cols: 140,
  });
  try {
    const row =
      /lunch +- +exited .*ended by SIGHUP \(signal 1\) · last screen: "Esc to cancel ctrl\+t to show todos"/;
    await board.waitForScreen(row, 30_000);
    const ls = await runCli(['ls'], env);
    assert.match(ls.stdout, /ended \(kept: the newest 50, for 24 h; /);
    assert.match(
      ls.stdout,
      /^lunch-0001 +- +ended +3h\S* ago +ended by SIGHUP \(signal 1\) · last screen: "Esc to cancel ctrl\+t to show todos"$/m,
    );
    // Newer ones push its record out: the board says a record it showed was dropped.
    for (let i = 0; i < MAX_ENDED; i++) {
      saveEnded({
        info: info(`n${i}-${String(i).padStart(4, '0')}`),
        screen: `line ${i}`,
        events: [],
        endedAt: Date.now() - 1000 + i,
      }, sdir);
    }
    assert.is(findEnded('lunch-0001', sdir), undefined, 'dropped: the newest 50 are kept');
    await board.waitForScreen(/rules refused: .*broken\.toml/, 30_000);
    await board.waitForScreen(
      /1 ended session no longer kept \(kept: the newest 50, for 24 h; x clears this\)/,
      30_000,
      { not: /lunch/ },
    );
    board.send('x');
    await board.waitForScreen(/cleared 50 exited sessions/, 15_000, { not: /no longer kept/ });
    board.send('q');
    await board.exited;
  } finally {
    await board.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a board of its own sessions only (the demo's) shows no one else's ended records; watch's does", () => {
  const { dir, env } = sandbox('aw-end-own-');
  const sdir = ensureSocketDir(env);
  saveEnded({ info: info('other-0001'), screen: 'bye', events: [], endedAt: Date.now() }, sdir);
  const host = { onTransition: () => () => {} } as unknown as SessionHost;
  try {
    for (const remote of [false, true]) {
      const book = new SessionDirectory({ host, dir: sdir, onChange: () => {}, remote });
      const term = fakeTerminal();
      const ui = new BoardUi({ directory: book, stdin: term.stdin, stdout: term.stdout });
      try {
        ui.start();
        if (remote) assert.match(term.text(), /other .*exited with code 1 · last screen: "bye"/);
        else assert.not.match(term.text(), /other/, 'the demo: its own sessions only');
      } finally {
        ui.restore();
        book.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ended sessions are bounded: expired and beyond the newest kept are removed', () => {
  const { dir, env } = sandbox('aw-end-');
  try {
    const sdir = ensureSocketDir(env);
    const now = Date.now();
    saveEnded(
      { info: info('old-0000'), screen: 'a', events: [], endedAt: now - ENDED_KEEP_MS - 1 },
      sdir,
    );
    for (let i = 0; i < MAX_ENDED + 3; i++) {
      saveEnded({
        info: info(`s-${String(i).padStart(4, '0')}`),
        screen: `line ${i}\n\n`,
        events: [],
        endedAt: now - 1000 + i,
      }, sdir);
    }
    const all = listEnded(sdir);
    assert.is(all.length, MAX_ENDED);
    assert.is(all[0].info.id, 's-0003', 'the oldest went first');
    assert.is(findEnded('old-0000', sdir), undefined, 'expired');
    assert.is(findEnded('s-0010', sdir)?.screen, 'line 10');
    assert.throws(() => findEnded('s-00', sdir), /matches \d+ ended sessions/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
