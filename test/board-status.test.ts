/**
 * The board's status line and answer panel over time (a BoardUi on a fake terminal, sessions
 * from a stub host, the prompt from a real Unix socket): a panel whose prompt was answered
 * elsewhere closes by itself and says so (a `y` there could only be refused), and an old status
 * goes away by itself (on a short terminal it took the rows of sessions).
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BoardUi, STATUS_MS } from '../src/cli/board/ui.ts';
import type { SessionHost } from '../src/runtime/host.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { SessionDirectory } from '../src/runtime/session-directory.ts';
import { fakeInfo, promptStub } from './support/fake-session.ts';
import { until } from './support/until.ts';

/** A host serving the infos of `infos` (by id). */
function fakeHost(infos: Map<string, SessionInfo>): SessionHost {
  return {
    onTransition: () => () => {},
    classifyNow: () => {},
    info: (id: string) => {
      const i = infos.get(id);
      if (!i) throw new Error(`no session ${id}`);
      return i;
    },
    forget: (id: string) => Promise.resolve(void infos.delete(id)),
  } as unknown as SessionHost;
}

/** A terminal for a BoardUi: keys in with `type`; `frame()` is what was painted since `clear`. */
function fakeTerminal(rows = 20, columns = 100) {
  const stdin = Object.assign(new EventEmitter(), {
    setRawMode: () => {},
    resume: () => {},
    pause: () => {},
  });
  let out = '';
  const stdout = Object.assign(new EventEmitter(), {
    columns,
    rows,
    write: (s: string | Uint8Array) => {
      out += typeof s === 'string' ? s : Buffer.from(s).toString('utf8');
      return true;
    },
  });
  return {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    type: (keys: string) => stdin.emit('data', Buffer.from(keys, 'utf8')),
    text: () => out.replace(/\x1b\[\d+;1H/g, '\n').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''),
    clear: () => (out = ''),
  };
}

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

test.run();
