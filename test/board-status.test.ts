/**
 * The board's status line and answer panel over time (a BoardUi on a fake terminal, sessions
 * from a stub host, the prompt from a real Unix socket): a panel whose prompt was answered
 * elsewhere closes by itself and says so (a `y` there could only be refused), and an old status
 * goes away by itself (on a short terminal it took the rows of sessions). Attaching (Enter):
 * keys typed before the session's screen has been shown for a moment are dropped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ATTACH_SETTLE_MS, BoardUi, STATUS_MS } from '../src/cli/board/ui.ts';
import { SessionDirectory } from '../src/runtime/session-directory.ts';
import { fakeHost, fakeInfo, fakeTerminal, promptStub } from './support/fake-session.ts';
import { until } from './support/until.ts';

const PROMPT = {
  question: 'Do you want to proceed?',
  options: ['1. Yes', '2. No'],
  selected: 0,
  details: ['Bash command', 'touch hello.txt'],
  episode: 1,
};

test('board: the answer panel closes when its prompt is answered elsewhere, and says so', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-elsewhere-'));
  const path = join(dir, 'bd1-0001.sock');
  const ops: string[] = [];
  const server = await promptStub(path, () => PROMPT, ops);
  const blocked = fakeInfo('bd1-0001', path, {
    name: 'bd1',
    state: 'blocked',
    question: PROMPT.question,
    options: PROMPT.options,
    details: PROMPT.details,
  });
  const hosted = new Map([['bd1-0001', blocked]]);
  const book = new SessionDirectory({
    host: fakeHost(hosted),
    dir,
    onChange: () => {},
    remote: false,
  });
  book.addLocal('bd1-0001');
  const term = fakeTerminal();
  const ui = new BoardUi({ directory: book, stdin: term.stdin, stdout: term.stdout });
  try {
    ui.start();
    term.type('a');
    await until('the panel', () => /Answer '1\. Yes'\? y\/N/.test(term.text()));
    // Answered in its pane: the session is idle now.
    hosted.set('bd1-0001', { ...blocked, state: 'idle', question: undefined, options: undefined });
    term.clear();
    ui.render();
    assert.match(term.text(), /bd1: answered elsewhere \(idle now\); nothing typed/);
    assert.not.match(term.text(), /Answer '1\. Yes'/);
    assert.match(term.text(), /↑\/↓ select/, 'the board keys again');
    term.type('y'); // a y meant for the panel does nothing on the board
    assert.equal(ops, ['prompt'], 'no answer sent');
  } finally {
    ui.restore();
    book.close();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('board: keys typed for a panel that closed by itself do not open and confirm the next prompt', async () => {
  // tester5: A's panel open, A answered from another terminal, the panel closed; the person's
  // '2' then 'y' (meant for A) opened B's panel with option 2 and confirmed it.
  const dir = mkdtempSync(join(tmpdir(), 'aw-closed-'));
  const ops: Record<string, string[]> = { a: [], b: [] };
  const servers = [];
  const hosted = new Map<string, ReturnType<typeof fakeInfo>>();
  for (const [n, since] of [['a', Date.now() - 3000], ['b', Date.now() - 2000]] as const) {
    const path = join(dir, `${n}-0001.sock`);
    servers.push(await promptStub(path, () => PROMPT, ops[n]));
    hosted.set(
      `${n}-0001`,
      fakeInfo(`${n}-0001`, path, {
        name: n,
        state: 'blocked',
        since,
        question: PROMPT.question,
        options: PROMPT.options,
        details: PROMPT.details,
      }),
    );
  }
  const book = new SessionDirectory({
    host: fakeHost(hosted),
    dir,
    onChange: () => {},
    remote: false,
  });
  for (const id of hosted.keys()) book.addLocal(id);
  const term = fakeTerminal(20, 100);
  const ui = new BoardUi({ directory: book, stdin: term.stdin, stdout: term.stdout });
  try {
    ui.start();
    term.type('a');
    await until(
      "A's panel",
      () => /── answer a \(a-0001\)[\s\S]*Answer '1\. Yes'\? y\/N/.test(term.text()),
    );
    hosted.set('a-0001', { ...hosted.get('a-0001')!, state: 'working', question: undefined });
    term.clear();
    ui.render();
    assert.match(
      term.text(),
      /a: answered elsewhere \(working now\); nothing typed \(the next key only clears this\)/,
    );
    term.type('2'); // meant for A's panel: only clears the status
    term.clear();
    ui.render(true);
    assert.not.match(term.text(), /answered elsewhere/, 'the key that was swallowed cleared it');
    term.type('y');
    term.clear();
    ui.render(true);
    assert.not.match(term.text(), /── answer b/, "B's panel was not opened");
    assert.equal(ops.b, [], 'nothing asked of B, nothing answered');
    // A key after that is the board's again: '2' opens B's panel, as always.
    term.type('2');
    await until("B's panel", () => /── answer b \(b-0001\)/.test(term.text()));
  } finally {
    ui.restore();
    book.close();
    for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test("board: Enter pressed twice on a blocked row attaches, and the second Enter never reaches the session's dialog", async () => {
  // tester6: the second Enter of a double tap answered the dialog with option 1 (5 of 5).
  const dir = mkdtempSync(join(tmpdir(), 'aw-attach-'));
  const path = join(dir, 'dbl-0001.sock');
  /** The bytes the session got from the attached terminal. */
  let got = '';
  const server = createServer((c) => {
    c.on('error', () => {});
    c.once('data', (d) => {
      const [line, ...rest] = d.toString('latin1').split('\n');
      assert.is(JSON.parse(line).op, 'attach');
      got += rest.join('\n');
      c.on('data', (more) => (got += more.toString('latin1')));
      // the session's answer, then its screen (the host's redraw)
      c.write('{"ok":true,"op":"attach"}\n');
      c.write(' Do you want to proceed?\r\n ❯ 1. Yes\r\n   2. No\r\n');
    });
  });
  await new Promise<void>((r) => server.listen(path, r));
  const hosted = new Map([[
    'dbl-0001',
    fakeInfo('dbl-0001', path, {
      name: 'dbl',
      state: 'blocked',
      question: PROMPT.question,
      options: PROMPT.options,
    }),
  ]]);
  const book = new SessionDirectory({
    host: fakeHost(hosted),
    dir,
    onChange: () => {},
    remote: false,
  });
  book.addLocal('dbl-0001');
  const term = fakeTerminal(20, 100);
  // when the session's screen reached the terminal (the board writes it as it comes)
  let shownAt = 0;
  const write = term.stdout.write.bind(term.stdout);
  term.stdout.write = ((s: string | Uint8Array) => {
    if (!shownAt && String(s).includes('Do you want to proceed?') && /❯ 1\. Yes/.test(String(s))) {
      shownAt = Date.now();
    }
    return write(s);
  }) as typeof term.stdout.write;
  const ui = new BoardUi({ directory: book, stdin: term.stdin, stdout: term.stdout });
  try {
    ui.start();
    term.clear();
    term.type('\r\r'); // a double tap in one read: attach, then an Enter for the session
    await until("the session's screen", () => shownAt);
    const typedAt = Date.now();
    term.type('\r'); // and one more, as soon as the screen shows
    if (typedAt - shownAt < ATTACH_SETTLE_MS) {
      assert.ok(term.text().includes('\x07'), 'a bell says the keys were dropped');
    } else console.log(`board-status: the third Enter came ${typedAt - shownAt} ms late`);
    // Once the screen has been up for a moment, keys go to the session.
    await until('the settle', () => Date.now() - shownAt >= ATTACH_SETTLE_MS, 5_000, 20);
    term.type('2');
    await until('the 2 at the session', () => got.includes('2'));
    assert.is(got, '2', 'no Enter reached the dialog');
    term.type('\x1d'); // Ctrl-] detaches
    await until('the board again', () => /dbl\s+claude\s+blocked/.test(term.text()));
  } finally {
    ui.restore();
    book.close();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('board: a status goes away by itself after a while', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-status-'));
  const book = new SessionDirectory({
    host: fakeHost(new Map()),
    dir,
    onChange: () => {},
    remote: false,
  });
  const term = fakeTerminal(7, 60);
  const ui = new BoardUi({ directory: book, stdin: term.stdin, stdout: term.stdout });
  const realNow = Date.now;
  let now = realNow();
  Date.now = () => now;
  try {
    ui.start();
    term.type('x'); // says there was nothing to clear
    assert.match(term.text(), /no exited session to clear/);
    now += STATUS_MS - 1000;
    term.clear();
    ui.render(true);
    assert.match(term.text(), /no exited session to clear/, 'still there');
    now += 1000;
    term.clear();
    ui.render();
    assert.not.match(term.text(), /no exited session to clear/);
    assert.match(term.text(), /no sessions yet/);
  } finally {
    Date.now = realNow;
    ui.restore();
    book.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('board: the cursor starts on the top row, and stays in place when its row is answered', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-cursor-'));
  const now = Date.now();
  const info = (id: string, state: string, since: number, startedAt: number) =>
    fakeInfo(id, join(dir, `${id}.sock`), { state, since, startedAt });
  // At first only an exited session is known; the others come in the next frames.
  const hosted = new Map([['e1-0001', info('e1-0001', 'exited', now - 9000, now - 20_000)]]);
  const book = new SessionDirectory({
    host: fakeHost(hosted),
    dir,
    onChange: () => {},
    remote: false,
  });
  book.addLocal('e1-0001');
  const term = fakeTerminal(20, 100);
  const ui = new BoardUi({ directory: book, stdin: term.stdin, stdout: term.stdout });
  /** The name on the row the cursor marks in the last frame painted. */
  const cursorOn = () => {
    const rows = term.text().split('\n').filter((l) => / > \S/.test(l));
    return / > (\S+)/.exec(rows.at(-1) ?? '')?.[1];
  };
  const frame = () => {
    term.clear();
    ui.render(true);
  };
  try {
    ui.start();
    assert.is(cursorOn(), 'e1-0001');
    hosted.set('b1-0001', info('b1-0001', 'blocked', now - 3000, now - 15_000));
    hosted.set('b2-0001', info('b2-0001', 'blocked', now - 2000, now - 14_000));
    hosted.set('w1-0001', info('w1-0001', 'working', now - 1000, now - 13_000));
    for (const id of ['b1-0001', 'b2-0001', 'w1-0001']) book.addLocal(id);
    frame();
    assert.is(cursorOn(), 'b1-0001', 'the longest-waiting blocked session, not the first row seen');
    term.type('j');
    term.type('k'); // the person moved the cursor: back on b1
    assert.is(cursorOn(), 'b1-0001');
    // b1 answered: it sorts down among the live rows; the cursor stays on the top row (b2).
    hosted.set('b1-0001', info('b1-0001', 'working', now, now - 15_000));
    frame();
    assert.is(cursorOn(), 'b2-0001');
    // A row that keeps its group is followed as other rows move about.
    term.type('j');
    term.type('j');
    assert.is(cursorOn(), 'w1-0001');
    hosted.set('b2-0001', info('b2-0001', 'working', now, now - 14_000));
    frame();
    assert.is(cursorOn(), 'w1-0001');
  } finally {
    ui.restore();
    book.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
