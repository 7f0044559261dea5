/**
 * The board's answer flow (src/cli/board/answering.ts) against a stub session socket (a real
 * Unix socket speaking the control protocol's `prompt` and `answer` lines:
 * test/support/fake-session.ts's promptStub): the status line
 * says `answered` only for an answer the session confirmed, `refused` for the guard's exit 3
 * (nothing typed), and `answer not taken` for exit 5 (typed, but the prompt stayed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnswerFlow } from '../src/cli/board/answering.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { promptStub } from './support/fake-session.ts';
import { until } from './support/until.ts';

const PROMPT = {
  question: 'Do you want to proceed?',
  options: ['1. Yes', '2. No'],
  selected: 0,
  details: ['Bash command', 'touch hello.txt'],
  episode: 1,
};

async function statusAfterYes(reply: Record<string, unknown>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-flow-'));
  const socket = join(dir, 's.sock');
  const server = await promptStub(socket, () => PROMPT, [], () => reply);
  try {
    const info = {
      id: 'web-0001',
      name: 'web',
      state: 'blocked',
      socket,
    } as SessionInfo;
    let status = '';
    const flow = new AnswerFlow({
      latest: () => ({ ...info, ...PROMPT }),
      closed: (m) => (status = m),
      render: () => {},
    });
    assert.is(flow.open(info), undefined);
    await until('the prompt read', () => flow.panel?.phase === 'choosing');
    flow.key('y');
    await until('the answer sent', () => status);
    return status;
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('answered: the session confirmed it', async () => {
  assert.is(await statusAfterYes({ ok: true, answered: '1. Yes' }), "answered web: '1. Yes'");
});

test('answered, and the session then ended (its agent exited after reading the key): said', async () => {
  // tester t10 M3: Gemini CLI's folder trust with GEMINI_CLI_NO_RELAUNCH=true
  assert.is(
    await statusAfterYes({ ok: true, answered: '1. Yes', ended: { code: 199 } }),
    "answered web: '1. Yes'; web then ended (exit code 199)",
  );
});

test('refused (exit 3): nothing typed', async () => {
  const s = await statusAfterYes({
    ok: false,
    error: 'web is not waiting for an answer (it is idle)',
    code: 3,
  });
  assert.is(s, 'web: refused: web is not waiting for an answer (it is idle)');
});

test('answer not taken (exit 5): typed, the prompt stayed', async () => {
  const s = await statusAfterYes({
    ok: false,
    error: `typed '1' for "1. Yes", but the prompt is still showing; look at its pane before ` +
      'answering again (a slow agent may still take it)',
    code: 5,
  });
  assert.match(s, /^web: answer not taken: typed '1' for "1\. Yes", but the prompt is still/);
});

test('the prompt left the screen while the panel waited: it closes, saying so', () => {
  const info = { id: 'web-0001', name: 'web', state: 'blocked', socket: '/nowhere' } as SessionInfo;
  let status = '';
  const flow = new AnswerFlow({
    latest: () => undefined,
    closed: (m) => (status = m),
    render: () => {},
  });
  // The panel as it waits for y/n (reading replaced by what the prompt op gave).
  flow.open(info);
  Object.assign(flow.panel!, { phase: 'choosing', ...PROMPT });
  flow.follow([{ ...info, ...PROMPT }]);
  assert.ok(flow.panel, 'still blocked: stays open');
  flow.follow([{ ...info, state: 'working' }]);
  assert.is(flow.panel, null);
  assert.is(status, 'web: answered elsewhere (working now); nothing typed');
  flow.open(info);
  Object.assign(flow.panel!, { phase: 'choosing', ...PROMPT });
  flow.follow([]);
  assert.is(status, 'web is gone; nothing typed');
});

test('y on a prompt that now shows other details (its pane made taller): shown, then y again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-flow-'));
  const socket = join(dir, 's.sock');
  const taller = ['Bash command', 'cd /tmp/proj &&', 'touch hello.txt'];
  let prompt: Record<string, unknown> = { ...PROMPT, details: ['touch hello.txt'], episode: 1 };
  const answers: Record<string, unknown>[] = [];
  const server = await promptStub(socket, () => prompt, [], (req) => {
    answers.push(req.expect as Record<string, unknown>);
    return { ok: true, answered: '1. Yes' };
  });
  try {
    const info = { id: 'web-0001', name: 'web', state: 'blocked', socket } as SessionInfo;
    let status = '';
    const flow = new AnswerFlow({
      latest: () => ({ ...info, ...PROMPT }),
      closed: (m) => (status = m),
      render: () => {},
    });
    flow.open(info);
    await until('the prompt read', () => flow.panel?.phase === 'choosing');
    prompt = { ...PROMPT, details: taller, episode: 2 }; // the pane made taller
    flow.key('y');
    await until('the prompt read again', () => flow.panel?.phase === 'choosing');
    assert.equal(flow.panel!.details, taller);
    assert.match(flow.panel!.note!, /now shows other details .*nothing typed: read them, then y/);
    assert.equal(answers, [], 'nothing sent on the first y');
    assert.is(status, '');
    flow.key('y');
    await until('the answer sent', () => status);
    assert.is(status, "answered web: '1. Yes'");
    assert.equal(answers, [
      { question: PROMPT.question, options: PROMPT.options, details: taller, episode: 2 },
    ]);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('y on a prompt that now shows other options (its pane resized): shown, then y again; an option gone: closed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-flow-'));
  const socket = join(dir, 's.sock');
  // Claude Code 2.1.332 in 30x8 shows "1. Yes" alone, in 120x32 all its options (tester7).
  const narrow = { ...PROMPT, options: ['1. Yes'], episode: 1 };
  const wide = { ...PROMPT, options: ['1. Yes', '2. Yes, and always allow', '3. No'], episode: 2 };
  let prompt: Record<string, unknown> = narrow;
  const answers: Record<string, unknown>[] = [];
  const server = await promptStub(socket, () => prompt, [], (req) => {
    answers.push(req.expect as Record<string, unknown>);
    return { ok: true, answered: '1. Yes' };
  });
  try {
    const info = { id: 'web-0001', name: 'web', state: 'blocked', socket } as SessionInfo;
    let status = '';
    const flow = new AnswerFlow({
      latest: () => ({ ...info, ...PROMPT }),
      closed: (m) => (status = m),
      render: () => {},
    });
    flow.open(info);
    await until('the prompt read', () => flow.panel?.options?.length === 1);
    prompt = wide;
    flow.key('y');
    await until('the prompt read again', () => flow.panel?.options?.length === 3);
    assert.match(flow.panel!.note!, /now shows other options .*nothing typed: read them, then y/);
    assert.equal(answers, [], 'nothing sent on the first y');
    flow.key('y');
    await until('the answer sent', () => status);
    assert.is(status, "answered web: '1. Yes'");
    assert.equal(answers, [
      { question: PROMPT.question, options: wide.options, details: PROMPT.details, episode: 2 },
    ]);
    // Option 3 chosen in the wide pane, then the pane made narrow: closed, nothing sent.
    status = '';
    prompt = wide;
    flow.open(info, 2);
    await until('the wide prompt read', () => flow.panel?.phase === 'choosing');
    prompt = narrow;
    flow.key('y');
    await until('closed', () => status);
    assert.match(
      status,
      /not answered: its prompt now shows 1 option\(s\) .*not option 3; nothing typed/,
    );
    assert.is(answers.length, 1, 'nothing more sent');
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
