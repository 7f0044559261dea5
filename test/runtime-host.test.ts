/**
 * The live runtime with real PTYs and real processes, in a temporary AGENTWATCH_DIR:
 * * a SessionHost with the bundled manifests and the fake Claude Code of
 *   test/support/fake-claude.ts (a plain node script; each key it reads draws one screen): idle -> working -> blocked -> idle as seen on
 *   the control socket (`subscribe`), `info` and `screen` answers, the question and options of
 *   the blocked SessionInfo;
 * * working -> idle needs a second evaluation: a frame without the spinner between two with it
 *   does not flap (sweep ticks driven by hand);
 * * the foreground: an interactive bash, `sleep 30` typed into it, the shell back; a fake agent
 *   started from bash that leaves its blocked dialog on screen when it exits reads `exited`;
 * * `agentwatch run`, `ls` and `wait` as real processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import { request, subscribe } from '../src/runtime/control-client.ts';
import { listSessions } from '../src/runtime/session-directory.ts';
import { createHost } from '../src/runtime/default-host.ts';
import { makeSessionId, type SessionHost } from '../src/runtime/host.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import type { Session } from '../src/runtime/session.ts';
import { IDLE_CONFIRM_MS, NOTHING_DRAWN } from '../src/runtime/signals.ts';
import { sleep, until } from './support/until.ts';
import { agentwatchArgv, cli as runCli } from './support/cli.ts';
import { fakeClaudeDir, startShell } from './support/fake-claude.ts';

const cli = runCli;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A temporary socket directory and folder for the fake agent. */
const scratch = fakeClaudeDir;

/** Every state line a `subscribe` connection receives, in order. */
class Follower {
  readonly infos: SessionInfo[] = [];
  readonly socket: Socket;
  closed = false;

  constructor(path: string) {
    // (the fake agent's start-up, working while it has drawn nothing yet, is no step of these
    // tests: left out, as are the repeats it leaves on either side of it)
    this.socket = subscribe(path, (i) => {
      if (i.reason !== NOTHING_DRAWN) this.infos.push(i);
    }, () => (this.closed = true));
  }

  /** The states received so far, consecutive repeats folded. */
  get states(): string[] {
    return this.infos.map((i) => i.state).filter((s, k, all) => k === 0 || all[k - 1] !== s);
  }

  /** Waits for a state line with `state` after the first `from` lines. */
  next(state: string, from = 0, timeoutMs = 30_000): Promise<SessionInfo> {
    return until(
      `state ${state} on the socket (seen: ${this.states.join(' ')})`,
      () => this.infos.slice(from).find((i) => i.state === state),
      timeoutMs,
    );
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Starts the fake agent in `host` with agent `claude` forced. */
function startFake(host: SessionHost, agent: string, name = 'fake'): Promise<Session> {
  return host.start({
    command: agent,
    args: [],
    name,
    agent: 'claude',
    headless: true,
  });
}

/** Waits until the screen of `session` contains `text`. */
function screenShows(session: Session, text: string, timeoutMs = 30_000): Promise<true> {
  return until(
    `'${text}' on the screen of ${session.id}`,
    () => session.terminal.screenText().includes(text),
    timeoutMs,
  );
}

test('session ids: the name lower-cased, accents taken off, other characters one dash', () => {
  assert.match(makeSessionId('Ünï'), /^uni-[0-9a-f]{4}$/);
  assert.match(makeSessionId('Café Claude!'), /^cafe-claude-[0-9a-f]{4}$/);
  assert.match(makeSessionId('日本'), /^session-[0-9a-f]{4}$/);
  assert.match(makeSessionId(''), /^session-[0-9a-f]{4}$/);
});

test('host + sweep: idle -> working -> blocked -> idle on the control socket; info and screen answer', async () => {
  const { dir, agent, env } = scratch('aw-host-');
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const session = await startFake(host, agent);
    assert.ok(session.spec.socket.startsWith(dir + '/'), 'the socket is in AGENTWATCH_DIR');
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.sock')), [`${session.id}.sock`]);
    const f = new Follower(session.spec.socket);
    const first = await f.next('idle');
    assert.is(first.id, session.id);
    await screenShows(session, 'READY');

    session.write('w');
    const working = await f.next('working');
    assert.is(working.agent, 'claude');
    assert.is(working.by, 'screen');
    assert.match(working.reason, /working/);

    session.write('b');
    const blocked = await f.next('blocked');
    assert.is(blocked.question, 'Do you want to proceed?');
    assert.equal(blocked.options, [
      '1. Yes',
      "2. Yes, and don't ask again for touch commands in /home/dev/proj",
      '3. No',
    ]);
    assert.is(blocked.pid, session.pid);
    assert.is(blocked.host, process.pid);

    // info and screen answer on the same socket while blocked
    const info = await request<{ session: SessionInfo }>(session.spec.socket, { op: 'info' });
    assert.is(info.session.state, 'blocked');
    assert.is(info.session.question, 'Do you want to proceed?');
    assert.is(info.session.foreground, 'claude');
    assert.equal([info.session.rows, info.session.cols], [32, 120]);
    const screen = await request<{ text: string; rows: number; cols: number }>(
      session.spec.socket,
      { op: 'screen' },
    );
    assert.is(screen.text, session.terminal.screenText());
    assert.match(screen.text, /Do you want to proceed\?\n ❯ 1\. Yes/);
    assert.ok(screen.text.endsWith(' Esc to cancel · Tab to amend'), screen.text.slice(-80));

    // answered: blocked -> idle at once (no confirmation wait from blocked)
    session.write('i');
    const idle = await f.next('idle', f.infos.indexOf(blocked));
    assert.is(idle.question, undefined, 'no question once the prompt is gone');
    assert.equal(f.states, ['idle', 'working', 'blocked', 'idle']);

    // the agent exits: exited with its code, and the socket still answers for the record
    session.write('e');
    const exited = await f.next('exited');
    assert.equal(exited.exit, { code: 3 });
    assert.is(exited.by, 'exit');
    f.close();
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sweep: working -> idle waits for a second evaluation; a spinner-less frame between two spinner frames does not flap', async () => {
  const { dir, agent, env } = scratch('aw-flicker-');
  // The periodic timer never fires during the test: every evaluation here is a tick by hand.
  const host = createHost({ intervalMs: 3_600_000 }, env);
  try {
    const session = await startFake(host, agent);
    const w = host.ptyPane(session.id)!;
    const f = new Follower(session.spec.socket);
    // starting until a look (by hand here) sees it drawn
    await screenShows(session, 'READY');
    host.tick();
    await f.next('idle');
    const show = async (key: string, marker: string) => {
      session.write(key);
      await screenShows(session, marker);
    };
    await show('w', 'esc to interrupt');
    host.tick();
    assert.is(w.record.state, 'working');

    // flicker: one idle frame, seen by two evaluations inside the confirmation window
    await show('i', '? for shortcuts');
    host.tick();
    assert.is(w.record.state, 'working', 'the first idle read is not trusted');
    assert.type(w.record.idleSeenAt, 'number');
    host.tick(); // nothing changed on screen, but the pending confirmation makes it due
    assert.is(w.record.state, 'working', 'a second read inside IDLE_CONFIRM_MS is not enough');
    await show('w', 'esc to interrupt');
    host.tick();
    assert.is(w.record.state, 'working');
    assert.is(w.record.idleSeenAt, undefined, 'the spinner came back: the pending idle is dropped');

    // a real end of turn: idle confirmed on an evaluation IDLE_CONFIRM_MS after the first read
    await show('i', '? for shortcuts');
    host.tick();
    const firstRead = w.record.idleSeenAt!;
    assert.is(w.record.state, 'working');
    await sleep(IDLE_CONFIRM_MS + 30);
    const evaluations = w.evaluations;
    host.tick();
    assert.is(w.evaluations, evaluations + 1, 'due without a screen change');
    assert.is(w.record.state, 'idle');
    assert.ok(w.record.since - firstRead >= IDLE_CONFIRM_MS);
    await f.next('idle', 1);
    assert.equal(
      f.states.slice(f.states.indexOf('idle')),
      ['idle', 'working', 'idle'],
      'no flap on the socket',
    );
    f.close();
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('foreground: interactive bash reads shell, `sleep 30` running sleep, the shell back shell again; an agent that exits over its own blocked dialog reads exited, and a command after it running', async () => {
  const { dir, agent, env } = scratch('aw-fg-');
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const session = await startShell(host);
    const w = host.ptyPane(session.id)!;
    const f = new Follower(session.spec.socket);
    const shell = await f.next('shell');
    assert.is(shell.foreground, 'bash');
    assert.is(shell.by, 'foreground');
    assert.match(shell.reason, /bash/);
    assert.is(shell.exit, null, 'the PTY child still runs');

    session.write('sleep 30\r');
    await until('sleep in the foreground', () => w.foreground.name === 'sleep');
    const sleeping = await f.next('running', f.infos.indexOf(shell));
    assert.is(sleeping.foreground, 'sleep');
    assert.is(sleeping.reason, 'running sleep');

    session.write('\x03'); // Ctrl-C: sleep dies, bash takes the terminal back
    const back = await f.next('shell', f.infos.indexOf(sleeping));
    assert.is(back.foreground, 'bash');

    // a fake agent started from the shell: recognised by its process name, not forced
    session.write(`${agent}\r`);
    await screenShows(session, 'READY');
    const running = await f.next('idle', f.infos.indexOf(back));
    assert.is(running.agent, 'claude');
    assert.is(running.foreground, 'claude');
    session.write('b');
    const blocked = await f.next('blocked');
    assert.is(blocked.question, 'Do you want to proceed?');

    session.write('x'); // exits with the dialog still drawn on the main screen
    const gone = await f.next('exited', f.infos.indexOf(blocked));
    assert.is(gone.by, 'foreground');
    assert.is(gone.foreground, 'bash');
    const text = session.terminal.screenText();
    assert.ok(text.includes('Do you want to proceed?'), 'the dialog is still on screen');
    const claude = loadBundledManifests().get('claude')!;
    assert.is(
      evaluate(session.terminal.snapshot(), claude).state,
      'blocked',
      'the rules alone would still say blocked',
    );
    await sleep(300);
    assert.is(w.record.state, 'exited', 'and it stays exited');
    assert.is(session.exit, null, 'bash still runs');
    // a command after the agent: its rules no longer apply to what the screen still shows
    session.write('sleep 30\r');
    const after = await f.next('running', f.infos.indexOf(gone));
    assert.is(after.reason, 'running sleep');
    session.write('\x03');
    const again = await f.next('exited', f.infos.indexOf(after));
    assert.is(again.foreground, 'bash', 'the agent ran here: the shell back reads exited');
    f.close();
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('agentwatch run, ls and wait as real processes', async () => {
  const { dir, agent, env } = scratch('aw-cli-');
  const children: ChildProcess[] = [];
  try {
    const run = spawn(process.execPath, [
      ...agentwatchArgv([]),
      'run',
      '--agent',
      'claude',
      '--name',
      'fake-run',
      '--interval',
      '100',
      '--no-desktop',
      '--',
      agent,
    ], { env, cwd: ROOT, stdio: ['pipe', 'ignore', 'pipe'] });
    children.push(run);
    let runErr = '';
    run.stderr!.on('data', (d: Buffer) => (runErr += d.toString()));
    const runExit = new Promise<number | null>((r) => run.on('exit', (code) => r(code)));
    const listed = await until(
      'the run session in the socket dir',
      async () => (await listSessions(dir)).find((s) => s.name === 'fake-run'),
      60_000, // a run process took longer than 15 s to start under load 46-68
    );
    assert.is(listed.host, run.pid, 'hosted by the run process');
    assert.is(listed.agent, 'claude');

    // ls --json and wait --until blocked start together; the prompt comes once wait listens
    const ls = cli(['ls', '--json'], env);
    const wait = cli(['wait', 'fake-run', '--until', 'blocked', '--timeout', '60'], env);
    const lsOut = await ls;
    assert.is(lsOut.code, 0, lsOut.stderr);
    const all = JSON.parse(lsOut.stdout) as SessionInfo[];
    assert.equal(all.map((s) => [s.name, s.state]), [['fake-run', 'idle']]);
    // wait blocks: it has not finished after its start-up (whether or not it subscribed yet, it
    // ends on the blocked state: subscribe answers with the current state first)
    await sleep(2000);
    assert.is(
      await Promise.race([wait.then(() => 'ended'), sleep(0).then(() => 'waiting')]),
      'waiting',
    );
    run.stdin!.write('b'); // stdin is a pipe: `run` passes it to the agent
    const waited = await wait;
    assert.is(waited.code, 0, waited.stderr);
    // ls in text, and a wait that cannot be met (times out with exit 1), together
    const [lsText, late] = await Promise.all([
      cli(['ls'], env),
      cli(['wait', 'fake-run', '--until', 'working', '--timeout', '0.5'], env),
    ]);
    assert.match(lsText.stdout, /fake-run-[0-9a-f]{4} +claude +blocked .*Do you want to proceed\?/);
    assert.is(late.code, 1);
    assert.match(late.stderr, /did not reach working within 0.5 s/);

    run.stdin!.write('e'); // the agent exits with code 3: so does run
    assert.is(await runExit, 3, runErr);
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.sock')), [], 'run removed its socket');
    const none = await cli(['ls'], env);
    assert.match(none.stdout, /^no sessions/);
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
