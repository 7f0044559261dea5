/**
 * `agentwatch watch --json` as a real process, in a temporary AGENTWATCH_DIR:
 * * it hosts `-- <sim-agent>`; a task typed through the session socket's `attach` makes the
 *   transitions come out as JSON lines (idle -> ... -> blocked with the question -> ... -> idle,
 *   then exited when the agent ends);
 * * a session of a separate `agentwatch run` process appears in `ls` and in the watch's
 *   stream, and is reported exited when that process ends.
 * And the board (`agentwatch watch` in a real PTY, hosting the sim agent): `a` on an idle
 * session only says it is not waiting; on a blocked one it opens the answer panel, ↓ moves the
 * choice and `y` answers (the agent's truth file gets option 2); `a` then `n`, and `3` then
 * Esc, send nothing (the prompt stays).
 * Plus the pure helpers (typed command lines, the JSON shape).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type TransitionEvent, transitionEvent } from '../src/cli/watch.ts';
import { BoardUi, GONE_ROW_MS } from '../src/cli/board/ui.ts';
import type { SessionHost } from '../src/runtime/host.ts';
import { parseNewSession } from '../src/cli/new-session.ts';
import { lsCommand } from '../src/cli/ls.ts';
import { request } from '../src/runtime/control-client.ts';
import { listSessions, SessionDirectory } from '../src/runtime/session-directory.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import type { TruthEvent } from '../src/sim/user.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';
import { attachedTerminal } from './support/attached-terminal.ts';
import { sleep, until } from './support/until.ts';
import {
  fakeHost,
  fakeInfo,
  type FakeSession,
  fakeSession,
  fakeTerminal,
  promptStub,
} from './support/fake-session.ts';
import { agentwatchCommand } from './support/cli.ts';

/** The little of a SessionHost a directory of remote sessions uses. */
const NO_HOST = { onTransition: () => () => {} } as unknown as SessionHost;

test('listSessions: a socket answering a malformed info is left out; the others are listed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-list-'));
  const fakes: FakeSession[] = [];
  try {
    const at = (n: string) => join(dir, `${n}.sock`);
    const withInfo = async (n: string, session: unknown) =>
      fakes.push(await fakeSession(at(n), () => session));
    const { socket: _, ...noSocket } = fakeInfo('nosocket', at('nosocket'));
    await withInfo('good', fakeInfo('good', at('good')));
    await withInfo('nosocket', noSocket);
    await withInfo('badstate', fakeInfo('badstate', at('badstate'), { state: 'asleep' }));
    await withInfo('badsince', fakeInfo('badsince', at('badsince'), { since: 'yesterday' }));
    await withInfo('noid', fakeInfo('', at('noid')));
    await withInfo('badexit', fakeInfo('badexit', at('badexit'), { exit: 0 }));
    await withInfo('nosession', undefined);
    await withInfo('notobject', 'hello');
    await withInfo('badquestion', fakeInfo('badquestion', at('badquestion'), { question: 7 }));
    const all = await listSessions(dir);
    assert.equal(all.map((s) => s.id).sort(), ['badquestion', 'good']);
    const bq = all.find((s) => s.id === 'badquestion')!;
    assert.is(bq.question, undefined, 'a wrong-typed optional field is left out');
  } finally {
    await Promise.all(fakes.map((f) => f.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SessionDirectory.poll: a session socket answering without a socket field crashes nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-book-'));
  const fakes: FakeSession[] = [];
  const book = new SessionDirectory({ host: NO_HOST, dir, onChange: () => {} });
  try {
    const { socket: _, ...bad } = fakeInfo('bad', join(dir, 'bad.sock'));
    fakes.push(await fakeSession(join(dir, 'bad.sock'), () => bad));
    fakes.push(
      await fakeSession(join(dir, 'good.sock'), () => fakeInfo('good', join(dir, 'good.sock'))),
    );
    await book.poll(); // rejected with ERR_MISSING_ARGS (from subscribe) before the fix
    assert.equal([...book.followed.keys()], ['good']);
    await until('the good session followed', () => book.followed.get('good')?.announced);
  } finally {
    book.close();
    await Promise.all(fakes.map((f) => f.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('board: a live shell that reads exited can be attached to, and q asks before ending it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-shell-'));
  const shellSock = join(dir, 'sh-0001.sock');
  const ops: string[] = [];
  const conns: Socket[] = [];
  const server = createServer((c) => {
    conns.push(c);
    c.on('error', () => {});
    c.once('data', (d) => {
      ops.push(JSON.parse(d.toString('utf8').split('\n')[0]).op);
      c.write('{"ok":true}\n');
    });
  });
  await new Promise<void>((r) => server.listen(shellSock, r));
  const infos = new Map<string, SessionInfo>([
    [
      'sh-0001',
      fakeInfo('sh-0001', shellSock, {
        name: 'sh',
        agent: '',
        state: 'exited',
        foreground: 'bash',
        reason: 'the agent ended: the shell (bash) is back in the foreground',
        by: 'foreground',
        exit: null,
      }),
    ],
    [
      'dead-0002',
      fakeInfo('dead-0002', join(dir, 'dead-0002.sock'), {
        name: 'dead',
        state: 'exited',
        by: 'exit',
        exit: { code: 0 },
      }),
    ],
  ]);
  const book = new SessionDirectory({
    host: fakeHost(infos),
    dir,
    onChange: () => {},
    remote: false,
  });
  book.addLocal('sh-0001');
  book.addLocal('dead-0002');
  const term = fakeTerminal();
  const ui = new BoardUi({ directory: book, stdin: term.stdin, stdout: term.stdout });
  try {
    assert.equal(book.liveLocal().map((i) => i.id), ['sh-0001']);
    ui.start();
    assert.match(term.text(), /sh\s+-\s+exited\s+\d+s\s+agent ended, shell \(bash\)/);
    assert.match(term.text(), /dead\s+claude\s+exited\s+\d+s\s+exited with code 0/);

    // q asks: the shell would end with the watch.
    term.type('q');
    assert.match(term.text(), /1 session started here will be ended \(sh\)\. Quit\? y\/n/);
    term.type('n');

    // Enter on the dead one says so; on the shell (selected first) it attaches.
    term.type('j\r');
    assert.match(term.text(), /session dead has ended/);
    term.type('k\r');
    await until('the attach request', () => ops.includes('attach'));
    // attached, the titles in force are pushed, and popped on detach: the agent's own title
    // does not stay on the board's terminal (tester6 F11)
    await until('the titles pushed', () => term.raw().includes('\x1b[22;0t'));
    term.clear();
    term.type('\x1d'); // Ctrl-] detaches
    await until('the board again', () => /shell \(bash\)/.test(term.text()));
    assert.is(term.raw().split('\x1b[23;0t').length, 2, 'popped once');
    // Attached again, the session ends: the board says which, never "agentwatch ended".
    const before = ops.length;
    term.type('\r');
    await until('attached again', () => ops.length > before);
    term.clear();
    for (const c of conns) c.end();
    await until('the board says the session ended', () => /session sh ended/.test(term.text()));
    assert.is(term.raw().split('\x1b[23;0t').length, 2, 'the session ended: popped once');
    term.clear();
    ui.restore();
    assert.not.ok(term.raw().includes('\x1b[23;0t'), 'nothing pushed: nothing popped');
  } finally {
    ui.restore();
    book.close();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SessionDirectory: a push that changes only the question (or reason) is shown at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-push-'));
  const path = join(dir, 'q-0001.sock');
  const updates: SessionInfo[] = [];
  const changes: string[] = [];
  const first = fakeInfo('q-0001', path, { state: 'blocked', question: 'Run ls?' });
  const fake = await fakeSession(path, () => first);
  const book = new SessionDirectory({
    host: NO_HOST,
    dir,
    onChange: (i, prev) => changes.push(`${prev}->${i.state}`),
    onUpdate: (i) => updates.push(i),
  });
  try {
    await book.poll();
    await until('the first push', () => updates.length);
    fake.push({ ...first, question: 'Run rm -rf build?', details: ['rm -rf build'] });
    await until('the second push', () => updates.length === 2);
    assert.is(updates[1].question, 'Run rm -rf build?');
    assert.is(book.infos()[0].question, 'Run rm -rf build?');
    assert.equal(book.infos()[0].details, ['rm -rf build']);
    assert.equal(changes, ['null->blocked'], 'no state change is made up');
  } finally {
    book.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('board: x clears the rows of sessions whose process is gone; they go by themselves after 10 minutes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-clear-'));
  const sock = (id: string) => join(dir, `${id}.sock`);
  const hosted = () =>
    new Map<string, SessionInfo>([
      [
        'dead-0001',
        fakeInfo('dead-0001', sock('dead-0001'), {
          name: 'dead',
          state: 'exited',
          by: 'exit',
          exit: { code: 0 },
        }),
      ],
      [
        'sh-0002',
        fakeInfo('sh-0002', sock('sh-0002'), {
          name: 'sh',
          state: 'exited',
          by: 'foreground',
          foreground: 'bash',
          exit: null,
        }),
      ],
      ['busy-0003', fakeInfo('busy-0003', sock('busy-0003'), { name: 'busy', state: 'working' })],
      [
        'hup-0004',
        fakeInfo('hup-0004', sock('hup-0004'), {
          name: 'hup',
          state: 'exited',
          by: 'exit',
          exit: { code: 0, signal: 1 },
        }),
      ],
    ]);
  const realNow = Date.now;
  const later = (ms: number) => (Date.now = () => realNow() + ms);
  const books: SessionDirectory[] = [];
  const uis: BoardUi[] = [];
  const fakes: FakeSession[] = [];
  try {
    // x: the dead ones go (their hosted sockets closed with forget), the shell and busy stay.
    const infos = hosted();
    const book = new SessionDirectory({
      host: fakeHost(infos),
      dir,
      onChange: () => {},
      remote: false,
    });
    books.push(book);
    for (const id of infos.keys()) book.addLocal(id);
    const term = fakeTerminal();
    const ui = new BoardUi({ directory: book, stdin: term.stdin, stdout: term.stdout });
    uis.push(ui);
    ui.start();
    assert.match(term.text(), /x clear exited/, 'the key help tells');
    later(GONE_ROW_MS / 2);
    ui.render(true);
    assert.is(book.followed.size, 4, 'kept for 10 minutes');
    term.type('x');
    assert.match(term.text(), /cleared 2 exited sessions \(1 with a shell still running stays\)/);
    assert.equal([...book.followed.keys()].sort(), ['busy-0003', 'sh-0002']);
    assert.equal([...infos.keys()].sort(), ['busy-0003', 'sh-0002'], 'forgotten by the host');
    assert.not.match(term.text().split('cleared')[1], /\bdead\b|\bhup\b/);
    term.type('x');
    assert.match(term.text(), /no exited session to clear/);

    // By themselves: 10 minutes after the board saw them gone.
    Date.now = realNow;
    const book2 = new SessionDirectory({
      host: fakeHost(hosted()),
      dir,
      onChange: () => {},
      remote: false,
    });
    books.push(book2);
    for (const id of hosted().keys()) book2.addLocal(id);
    const term2 = fakeTerminal();
    const ui2 = new BoardUi({ directory: book2, stdin: term2.stdin, stdout: term2.stdout });
    uis.push(ui2);
    ui2.start();
    later(GONE_ROW_MS - 5000);
    ui2.render(true);
    assert.is(book2.followed.size, 4);
    later(GONE_ROW_MS + 1000);
    ui2.render(true);
    assert.equal([...book2.followed.keys()].sort(), ['busy-0003', 'sh-0002']);
    Date.now = realNow;

    // A session hosted elsewhere, cleared, is not followed again while its socket answers.
    const remote = fakeInfo('far-0005', sock('far-0005'), {
      state: 'exited',
      by: 'exit',
      exit: { code: 0 },
    });
    fakes.push(await fakeSession(sock('far-0005'), () => remote));
    const book3 = new SessionDirectory({ host: NO_HOST, dir, onChange: () => {} });
    books.push(book3);
    await book3.poll();
    assert.equal([...book3.followed.keys()], ['far-0005']);
    assert.equal(book3.clearGone().map((i) => i.id), ['far-0005']);
    await book3.poll();
    assert.is(book3.followed.size, 0, 'not followed again');
  } finally {
    Date.now = realNow;
    for (const ui of uis) ui.restore();
    for (const b of books) b.close();
    await Promise.all(fakes.map((f) => f.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('board: the answer panel shows what is approved; y on a prompt now about something else shows it first', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-details-'));
  const path = join(dir, 'w-0001.sock');
  const ops: string[] = [];
  const prompt = {
    question: 'Do you want to proceed?',
    options: ['1. Yes', '2. No'],
    selected: 0,
    details: ['Bash command', 'touch hello.txt'],
    episode: 1,
  };
  const server = await promptStub(path, () => prompt, ops);
  const hosted = new Map<string, SessionInfo>([
    [
      'w-0001',
      fakeInfo('w-0001', path, {
        name: 'w',
        state: 'blocked',
        question: prompt.question,
        options: prompt.options,
        details: prompt.details,
      }),
    ],
  ]);
  const book = new SessionDirectory({
    host: fakeHost(hosted),
    dir,
    onChange: () => {},
    remote: false,
  });
  book.addLocal('w-0001');
  const term = fakeTerminal();
  const ui = new BoardUi({ directory: book, stdin: term.stdin, stdout: term.stdout });
  try {
    ui.start();
    term.type('a');
    await until('the panel', () => /Answer '1\. Yes'\? y\/N/.test(term.text()));
    assert.match(
      term.text(),
      /\n {3}Bash command\s*\n {3}touch hello\.txt\s*\n Do you want to proceed\?/,
    );
    // The same question and options, about another command now.
    prompt.details = ['Bash command', 'rm -rf ~'];
    hosted.set('w-0001', { ...hosted.get('w-0001')!, details: prompt.details });
    ui.render();
    assert.match(term.text(), /now shows other details: y shows it first/);
    term.type('y'); // reads the prompt again and shows it: nothing typed
    await until('the new details', () => /now shows other details \(its pane/.test(term.text()));
    assert.match(term.text(), /\n {3}Bash command\s*\n {3}rm -rf ~\s*\n Do you want to proceed\?/);
    assert.equal(ops, ['prompt', 'prompt'], 'no answer sent');
  } finally {
    ui.restore();
    book.close();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('board: n starts a session with the name, agent and folder typed before its command', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-new-'));
  const book = new SessionDirectory({
    host: fakeHost(new Map()),
    dir,
    onChange: () => {},
    remote: false,
  });
  const term = fakeTerminal();
  const started: unknown[] = [];
  const ui = new BoardUi({
    directory: book,
    stdin: term.stdin,
    stdout: term.stdout,
    startSession: (s) => {
      started.push(s);
      return Promise.resolve();
    },
  });
  try {
    ui.start();
    term.type('n');
    assert.match(term.text(), /new session \(\[--name N\] \[--agent ID\] \[--cwd DIR\] CMD\)/);
    term.type(`--name web --agent claude --cwd ${dir} npx claude\r`);
    await until('started', () => started.length > 0);
    assert.equal(started, [{ argv: ['npx', 'claude'], name: 'web', agent: 'claude', cwd: dir }]);
    await until('the message', () => /started web: npx claude/.test(term.text()));
    term.type('n');
    term.type('--nmae web claude\r');
    await until('the refusal', () => /cannot start: unknown option --nmae/.test(term.text()));
    assert.is(started.length, 1);
  } finally {
    ui.restore();
    book.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('parseNewSession: the board n takes a name, an agent and a folder before the command', () => {
  assert.equal(parseNewSession(['claude', '--resume']), { argv: ['claude', '--resume'] });
  assert.equal(
    parseNewSession(
      ['--name', 'api', '--agent=claude', '--cwd', '~/proj', 'npx', 'claude'],
      '/b',
      '/h',
    ),
    { argv: ['npx', 'claude'], name: 'api', agent: 'claude', cwd: '/h/proj' },
  );
  assert.equal(parseNewSession(['--cwd=sub', '--', '--weird'], '/b', '/h'), {
    argv: ['--weird'],
    cwd: '/b/sub',
  });
  assert.equal(parseNewSession([]), { argv: [] });
  for (
    const [words, message] of [
      [['--nmae', 'x', 'claude'], /unknown option --nmae/],
      [['--name'], /--name needs a value/],
      [['--name', 'a', '--name', 'b', 'claude'], /--name given twice/],
      [['--name', 'a'], /give the command/],
    ] as const
  ) {
    assert.throws(() => parseNewSession(words), (e: Error) => message.test(e.message));
  }
});

test('transitionEvent: the JSON shape', () => {
  const info = {
    id: 'a-1',
    name: 'a',
    agent: 'claude',
    state: 'blocked',
    since: 5,
    question: 'Do you want to proceed?',
  } as SessionInfo;
  assert.equal(transitionEvent(info, 'working', 9), {
    t: 9,
    id: 'a-1',
    name: 'a',
    agent: 'claude',
    state: 'blocked',
    prev: 'working',
    since: 5,
    question: 'Do you want to proceed?',
  });
  assert.is(transitionEvent({ ...info, state: 'idle' }, null, 9).question, null);
});

test('watch --json: hosted and run sessions come out as JSON lines; run sessions appear in ls', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-watch-'));
  const env = { ...process.env, AGENTWATCH_DIR: dir };
  const self = agentwatchCommand();
  const sim = [
    self.command,
    ...self.args,
    'sim-agent',
    '--seed',
    '3',
    '--speed',
    '4',
    '--tasks',
    '1',
  ];
  const children: ChildProcess[] = [];
  let person: PtyDriver | undefined;
  const events: TransitionEvent[] = [];
  let stderr = '';
  const oldDir = process.env.AGENTWATCH_DIR;
  try {
    const watch = spawn(self.command, [
      ...self.args,
      'watch',
      '--json',
      '--name',
      'api',
      '--agent',
      'claude',
      '--no-desktop',
      '--',
      ...sim,
    ], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(watch);
    let pending = '';
    watch.stdout!.on('data', (d: Buffer) => {
      pending += d.toString('utf8');
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        events.push(JSON.parse(pending.slice(0, nl)));
        pending = pending.slice(nl + 1);
      }
    });
    watch.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const watchExit = new Promise<number | null>((resolve) =>
      watch.on('exit', (code) => resolve(code))
    );

    // The hosted session is announced first, starting (working: nothing looked at yet).
    const first = await until('the hosted session', () => events[0]);
    assert.is(first.prev, null);
    assert.is(first.state, 'working');
    assert.is(first.agent, 'claude', 'named from --agent on the first line');
    assert.is(first.name, 'api', 'watch --name names the session');
    assert.match(first.id, /^api-[0-9a-f]{4}$/);
    const id = first.id;

    // Type a task through attach, as the board's Enter does, from a terminal of the person's
    // (a session refuses attach from a process without one); answer the prompt with '1'.
    person = await attachedTerminal(join(dir, `${id}.sock`), 32, 120);
    // The agent is up and idle once its footer arrives (as the redraw's text or the agent's own
    // frame, whose words are placed with CSI n G, hence one word).
    await person.waitForScreen(/shortcuts/, 30_000);
    for (const c of 'run the tests\r') {
      person.send(c);
      await sleep(15);
    }
    const blocked = await until(
      'blocked',
      () => events.find((e) => e.id === id && e.state === 'blocked'),
    );
    assert.is(blocked.question, 'Do you want to proceed?');
    assert.is(blocked.agent, 'claude');
    // Answer as a person would, a moment after the prompt shows (a key that arrives while the
    // dialog is still being drawn may be taken as typing, as Claude Code drops such keys too).
    await sleep(400);
    person.send('1');
    const back = await until(
      'idle again',
      () => events.find((e) => e.id === id && e.state === 'idle' && e.t > blocked.t),
      20_000,
    ).catch((e) => {
      throw new Error(
        `${(e as Error).message}; events: ${JSON.stringify(events)}; stderr: ${stderr}`,
      );
    });
    assert.ok(back.prev === 'working' || back.prev === 'blocked', JSON.stringify(back));
    await until(
      'the hosted agent exits after --tasks 1',
      () => events.find((e) => e.id === id && e.state === 'exited'),
    );
    await person.close();
    const mine = events.filter((e) => e.id === id);
    for (let i = 1; i < mine.length; i++) {
      assert.is(mine[i].prev, mine[i - 1].state, 'each line continues the previous one');
      assert.ok(mine[i].t >= mine[i - 1].t);
    }

    // A separate `run` process: its session is listed by ls and followed by the watch.
    const run = spawn(self.command, [
      ...self.args,
      'run',
      '--agent',
      'claude',
      '--name',
      'other',
      '--',
      ...sim,
    ], {
      env,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    children.push(run);
    const listed = await until('the run session in the socket dir', async () => {
      const all = await listSessions(dir);
      return all.find((s) => s.name === 'other');
    });
    assert.is(listed.host, run.pid);
    process.env.AGENTWATCH_DIR = dir;
    let lsOut = '';
    await lsCommand.run({ json: true }, [], { stdout: (t) => (lsOut += t), stderr: () => {} });
    assert.ok((JSON.parse(lsOut) as SessionInfo[]).some((s) => s.name === 'other'), lsOut);
    const seen = await until(
      'the watch follows the run session',
      () => events.find((e) => e.name === 'other'),
    );
    assert.is(seen.prev, null);
    run.kill('SIGTERM');
    await until(
      'the run session reported exited',
      () => events.find((e) => e.name === 'other' && e.state === 'exited'),
    );

    watch.kill('SIGTERM');
    assert.is(await watchExit, 0, stderr);
  } finally {
    if (oldDir === undefined) delete process.env.AGENTWATCH_DIR;
    else process.env.AGENTWATCH_DIR = oldDir;
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await person?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The sim agent's truth file so far ([] before it exists). */
function truth(path: string): TruthEvent[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

test('watch board: a, ↓, y answers the blocked session with option 2; a n and 3 Esc send nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-board-'));
  const truthPath = join(dir, 'truth.jsonl');
  const self = agentwatchCommand();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.AGENTWATCH_DIR = dir;
  // Seed 12: the first task asks about `touch hello.txt`, the second about `mkdir -p build/out`.
  const pty = await startPty({
    command: self.command,
    args: [
      ...self.args,
      'watch',
      '--agent',
      'claude',
      '--no-desktop',
      '--',
      self.command,
      ...self.args,
      'sim-agent',
      '--seed',
      '12',
      '--speed',
      '8',
      '--truth',
      truthPath,
    ],
    cwd: process.cwd(),
    env,
  });
  const last = () => truth(truthPath).at(-1);
  try {
    await until('the agent idle in its truth file', () => last()?.state === 'idle', 30_000);
    await pty.waitForScreen(/node\s+claude\s+idle/, 30_000);
    const [info] = await until('the hosted session in the socket dir', async () => {
      const all = await listSessions(dir);
      return all.length ? all : undefined;
    });

    // Not blocked: the key only says so.
    pty.send('a');
    await pty.waitForScreen(/node is not waiting for an answer \(it is idle\)/, 30_000);
    assert.not.match(pty.screen(), /y\/N/);

    // The first task asks; a opens the panel on option 1, ↓ chooses 2, y answers.
    await request(info.socket, { op: 'send', text: 'please create hello.txt' }, 5000);
    await until('blocked in the truth file', () => last()?.state === 'blocked');
    await pty.waitForScreen(/node\s+claude\s+blocked/, 30_000);
    pty.send('a');
    let screen = await pty.waitForScreen(/Answer '1\. Yes'\? y\/N/, 30_000);
    assert.match(screen, /── answer node \(node-[0-9a-f]{4}\) ─/);
    assert.match(
      screen,
      /\n Do you want to proceed\?\n +> 1\. Yes\n +2\. Yes, and don't ask again/,
    );
    pty.send('\x1b[B');
    screen = await pty.waitForScreen(/Answer '2\. Yes, and don't ask again[^']*'\? y\/N/, 30_000);
    assert.match(screen, /\n +> 2\. Yes, and don't ask again/);
    pty.send('y');
    const answered = await until(
      'the answer in the truth file',
      () => truth(truthPath).find((e) => e.answer !== undefined),
    );
    assert.is(answered.answer, 2, JSON.stringify(answered));
    await pty.waitForScreen(/answered node: '2\. Yes, and don't ask again/, 5000, {
      not: /y\/N/,
    });

    // The second task asks; a then n, and 3 then Esc, leave the prompt alone.
    await until('idle after the first task', () => last()?.state === 'idle', 30_000);
    await request(info.socket, { op: 'send', text: 'make the build dir' }, 5000);
    await until('blocked again', () => last()?.state === 'blocked', 30_000);
    const lines = truth(truthPath).length;
    await pty.waitForScreen(/node\s+claude\s+blocked/, 30_000);
    pty.send('a');
    await pty.waitForScreen(/Answer '1\. Yes'\? y\/N/, 30_000);
    pty.send('n');
    await pty.waitForScreen(/node: not answered/, 30_000, { not: /y\/N/ });
    pty.send('3');
    await pty.waitForScreen(/Answer '3\. No'\? y\/N/, 30_000);
    pty.send('\x1b');
    await pty.waitForScreen(/node: not answered/, 30_000, { not: /y\/N/ });
    await sleep(400);
    assert.is(truth(truthPath).length, lines, 'the agent got no key');
    assert.is(last()?.state, 'blocked');
    assert.match(pty.screen(), /node\s+claude\s+blocked/);

    // q quits with 0 at once: the agent runs in the background host and outlives the board.
    pty.send('q');
    const exit = await Promise.race([pty.exited, sleep(8000).then(() => null)]);
    assert.equal(exit?.exitCode, 0, 'the watch quits');
    assert.equal((await listSessions(dir)).map((s) => s.id), [info.id], 'the agent still runs');
    await request(info.socket, { op: 'kill' }, 5000);
    await until('the background host to end with it', () => !alive(info.host), 30_000);
  } finally {
    await pty.close();
    for (const s of await listSessions(dir).catch(() => [])) {
      if (alive(s.host)) process.kill(s.host);
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

/** True while process `pid` exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test.run();
