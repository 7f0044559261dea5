import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide, IDLE_CONFIRM_MS, initialState, type StateRecord } from '../src/runtime/signals.ts';
import type { Evaluation } from '../src/detect/types.ts';
import { ByteRing } from '../src/runtime/ring.ts';
import { terminalNotice } from '../src/runtime/notify.ts';
import { notice } from '../src/runtime/notify-gate.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { readPrompt } from '../src/detect/prompt.ts';
import { strippedTail } from '../src/eval/tail-baseline.ts';

const ev = (state: Evaluation['state']): Evaluation => ({
  state,
  rule: state === 'idle' ? null : 0,
  pattern: null,
  match: null,
  region: null,
  reason: `test ${state}`,
});
const input = (
  now: number,
  state: Evaluation['state'] | null,
  extra: Partial<Parameters<typeof decide>[1]> = {},
) => ({
  now,
  evaluation: state ? ev(state) : null,
  foreground: 'agent' as const,
  foregroundName: 'claude',
  exit: null,
  report: null,
  ...extra,
});

test('decide: a session that has only started is idle', () => {
  const r = initialState(0);
  assert.is(r.state, 'idle');
  assert.is(decide(r, input(10, 'idle')).state, 'idle');
});

test('decide: working -> idle waits for a second evaluation, blocked never waits', () => {
  let r: StateRecord = decide(initialState(0), input(0, 'working'));
  assert.is(r.state, 'working');
  r = decide(r, input(100, 'idle'));
  assert.is(r.state, 'working', 'first idle read is not trusted (spinner flicker)');
  assert.is(r.idleSeenAt, 100);
  r = decide(r, input(100 + IDLE_CONFIRM_MS - 1, 'idle'));
  assert.is(r.state, 'working');
  r = decide(r, input(100 + IDLE_CONFIRM_MS, 'idle'));
  assert.is(r.state, 'idle');
  assert.is(r.since, 100 + IDLE_CONFIRM_MS);
  // flicker: idle read once, then working again: no transition at all
  let f: StateRecord = decide(initialState(0), input(0, 'working'));
  f = decide(f, input(50, 'idle'));
  f = decide(f, input(60, 'working'));
  assert.is(f.state, 'working');
  assert.is(f.idleSeenAt, undefined);
  assert.is(f.since, 0);
  // blocked at once from working and from idle
  assert.is(
    decide(decide(initialState(0), input(0, 'working')), input(1, 'blocked')).state,
    'blocked',
  );
  assert.is(decide(initialState(0), input(1, 'blocked')).state, 'blocked');
});

test('decide: shell in the foreground means exited whatever the screen shows; exit code wins', () => {
  const r = decide(
    decide(initialState(0), input(1, 'working')),
    input(5, 'blocked', { foreground: 'shell', foregroundName: 'bash' }),
  );
  assert.is(r.state, 'exited');
  assert.is(r.by, 'foreground');
  assert.match(r.reason, /bash/);
  const e = decide(initialState(0), input(5, 'working', { exit: { code: 3 } }));
  assert.is(e.state, 'exited');
  assert.match(e.reason, /code 3/);
});

test('ByteRing keeps the last bytes in order across wraps', () => {
  const ring = new ByteRing(8);
  ring.push(new Uint8Array([1, 2, 3]));
  ring.push(new Uint8Array([4, 5, 6, 7, 8, 9]));
  assert.equal([...ring.bytes()], [2, 3, 4, 5, 6, 7, 8, 9]);
  ring.push(new Uint8Array([10]));
  assert.equal([...ring.bytes()], [3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal([...ring.bytes(3)], [8, 9, 10]);
  ring.push(new Uint8Array(20).map((_, i) => i));
  assert.equal([...ring.bytes()], [12, 13, 14, 15, 16, 17, 18, 19]);
  assert.is(ring.length, 8);
});

const info = (over: Partial<SessionInfo> = {}): SessionInfo => ({
  id: 's-1',
  name: 'claude',
  agent: 'claude',
  state: 'blocked',
  since: 0,
  reason: '',
  by: 'screen',
  question: 'Do you want to proceed?',
  options: ['1. Yes', '2. No'],
  pid: 1,
  command: ['claude'],
  foreground: 'claude',
  rows: 32,
  cols: 120,
  startedAt: 0,
  lastOutput: 0,
  host: 1,
  socket: '/tmp/x.sock',
  ...over,
});

test('terminalNotice: OSC 9, OSC 777 and BEL, with control characters removed', () => {
  const n = notice('blocked', info({ name: 'evil\x1b]0;x\x07' }), true);
  const s = terminalNotice(n);
  assert.ok(s.startsWith('\x1b]9;'));
  assert.ok(s.includes('\x1b]777;notify;'));
  assert.ok(s.endsWith('\x07'));
  assert.not.ok(s.slice(1).includes('\x1b]0'), 'no injected OSC');
});

test('readPrompt: question and options of Claude and Codex dialogs', () => {
  const claude = readPrompt([
    ' Bash command',
    '   touch hello.txt',
    ' Do you want to proceed?',
    ' ❯ 1. Yes',
    '   2. Yes, and always allow access to proj/ from this project',
    '   3. No',
    '',
    ' Esc to cancel · Tab to amend',
  ]);
  assert.is(claude.question, 'Do you want to proceed?');
  assert.equal(claude.options, [
    '1. Yes',
    '2. Yes, and always allow access to proj/ from this project',
    '3. No',
  ]);
  const codex = readPrompt([
    '  Would you like to run the following command?',
    '',
    '  $ touch ran_tests.txt',
    '› 1. Yes, proceed (y)',
    "  2. Yes, and don't ask again (p)",
    '  3. No, and tell Codex what to do differently (esc)',
  ]);
  assert.is(codex.question, 'Would you like to run the following command?');
  assert.is(codex.options.length, 3);
  assert.is(claude.selected, 0);
  assert.equal(readPrompt(['hello', '']), {
    question: '',
    options: [],
    selected: -1,
    layout: 'vertical',
    details: [],
  });
});

test('readPrompt: details, an option wrapped in a narrow pane, a wrapped question', () => {
  const p = readPrompt([
    '────────────────────────────────────────',
    ' Bash command',
    '   touch hello.txt',
    '╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌',
    ' Do you want to',
    ' proceed?',
    ' ❯ 1. Yes',
    '   2. Yes, and always allow access to /',
    '      tmp/x/proj from this project',
    '   3. No',
    '',
    ' Esc to cancel · Tab to amend',
  ]);
  assert.is(p.question, 'Do you want to proceed?');
  assert.equal(p.options, [
    '1. Yes',
    '2. Yes, and always allow access to /tmp/x/proj from this project',
    '3. No',
  ], 'a path broken at the right edge is joined without a blank');
  assert.equal(p.details, ['Bash command', 'touch hello.txt']);
  // Broken between words (the row ends short of the edge): the blank stays, even after a '/'.
  const words = readPrompt([
    '────────────────────────────────────────',
    ' Do you want to proceed?',
    ' ❯ 1. Yes',
    '   2. Yes, and always allow access to',
    '      proj/ from this project',
    '   3. Yes, and allow access to proj/',
    '      from this project',
    '   4. No',
  ]);
  assert.equal(words.options.slice(1, 3), [
    '2. Yes, and always allow access to proj/ from this project',
    '3. Yes, and allow access to proj/ from this project',
  ]);
});

test('strippedTail: escapes gone, text after the last CR per line (the seed baseline)', () => {
  const bytes = new TextEncoder().encode(
    '\x1b[1mhello\x1b[0m\r\x1b[1Cworld\n\x1b]0;title\x07a\x1b[5Gb',
  );
  assert.is(strippedTail(bytes), 'world\nab');
  // CRLF ends a line; it does not erase it.
  assert.is(strippedTail(new TextEncoder().encode('one\r\ntwo\rTWO\r\n')), 'one\nTWO\n');
});

test.run();
