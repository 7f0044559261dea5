/**
 * The hold on the person's input while agentwatch types (src/runtime/input-hold.ts), on its
 * own: what is held and in which order it goes, what passes at once (terminal reports;
 * Ctrl-C, which ends the hold), and the bounds (bytes, time). The real path (a PTY, Gemini
 * CLI, `run`'s terminal, an attached one) is test/send-hold.test.ts and
 * test/send-hold-run.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HOLD_MAX_BYTES, InputHolder, isInterrupt } from '../src/runtime/input-hold.ts';
import { until } from './support/until.ts';

const b = (s: string) => Buffer.from(s, 'latin1');

/** A holder whose writes are collected; `take` writes what is not held, as Session.write does. */
function holder() {
  const written: string[] = [];
  const log: string[] = [];
  const h = new InputHolder((bytes) => written.push(bytes.toString('latin1')), (l) => log.push(l));
  const type = (s: string) => {
    if (!h.take(b(s))) written.push(s);
  };
  return { h, written, log, type };
}

test('no hold: nothing is held', () => {
  const { h, written, type } = holder();
  type('abc');
  assert.equal(written, ['abc']);
  assert.is(h.held, 0);
});

test('held in order, written once released; release twice is once', () => {
  const { h, written, log, type } = holder();
  const hold = h.hold(60_000);
  type('ab');
  type('c');
  type('\x1b[A');
  assert.equal(written, []);
  assert.is(h.held, 6);
  hold.release();
  assert.equal(written, ['abc\x1b[A']);
  assert.is(hold.broken, null);
  hold.release();
  type('d');
  assert.equal(written, ['abc\x1b[A', 'd']);
  assert.match(log.join('\n'), /6 bytes/);
});

test('two holds: the input goes once both are released', () => {
  const { h, written, type } = holder();
  const one = h.hold(60_000);
  const two = h.hold(60_000);
  type('x');
  one.release();
  assert.equal(written, []);
  assert.ok(h.holding);
  two.release();
  assert.equal(written, ['x']);
});

test('terminal reports pass at once; keys stay held', () => {
  const { h, written, type } = holder();
  const hold = h.hold(60_000);
  type('a');
  type('\x1b[12;40R');
  type('\x1b]11;rgb:0000/0000/0000\x1b\\');
  assert.equal(written, ['\x1b[12;40R', '\x1b]11;rgb:0000/0000/0000\x1b\\']);
  hold.release();
  assert.equal(written.at(-1), 'a');
});

test('Ctrl-C ends every hold: what was held goes first, then the Ctrl-C', () => {
  for (const ctrlC of ['\x03', '\x1b[99;5u', '\x1b[99;5:1u', '\x1b[27;5;99~']) {
    const { h, written, type } = holder();
    const one = h.hold(60_000);
    const two = h.hold(60_000);
    type('ab');
    type(ctrlC);
    assert.equal(written, ['ab', ctrlC], JSON.stringify(ctrlC));
    assert.is(one.broken, 'interrupt');
    assert.is(two.broken, 'interrupt');
    type('c');
    assert.equal(written, ['ab', ctrlC, 'c'], 'no longer held');
  }
});

test('isInterrupt: Ctrl-C only', () => {
  for (const s of ['c', '\x1b[99u', '\x1b[99;2u', '\x1b[3~', '\x1b[27;5;100~', 'abc']) {
    assert.not.ok(isInterrupt(b(s)), JSON.stringify(s));
  }
  for (const s of ['\x03', 'ab\x03', '\x1b[99;5u', '\x1b[99;5:1u', '\x1b[27;5;99~']) {
    assert.ok(isInterrupt(b(s)), JSON.stringify(s));
  }
});

test('more than 64 KiB held ends the hold: all of it goes, in order', () => {
  const { h, written, type } = holder();
  const hold = h.hold(60_000);
  const chunk = 'k'.repeat(1024);
  for (let i = 0; i < HOLD_MAX_BYTES / 1024; i++) type(chunk);
  assert.equal(written, []);
  type('last');
  assert.is(hold.broken, 'full');
  assert.equal(written, [chunk.repeat(HOLD_MAX_BYTES / 1024), 'last']);
});

test("a hold's time bound ends it and writes what it held", async () => {
  const { h, written, type } = holder();
  const hold = h.hold(1);
  type('late');
  await until('the hold ended by its bound', () => hold.broken === 'time');
  assert.equal(written, ['late']);
  hold.release();
  assert.equal(written, ['late']);
});

test('the agent exited: the holds end', () => {
  const { h, type } = holder();
  const hold = h.hold(60_000);
  type('x');
  h.end('exit');
  assert.is(hold.broken, 'exit');
  assert.not.ok(h.holding);
});

test.run();
