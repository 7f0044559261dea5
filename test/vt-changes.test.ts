/**
 * Terminal.changeMark / rowChangedSince: which visible rows changed after a mark (the adaptive
 * sweep tells an animation going on from news with it): a printed or erased row, a row that
 * scrolled, a wrap flag, a buffer switch and a resize; not a row left alone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Terminal } from '../src/vt/terminal.ts';

const enc = new TextEncoder();

/** The rows of `t` changed since `mark`. */
function changed(t: Terminal, mark: number): number[] {
  const out: number[] = [];
  for (let y = 0; y < t.rows; y++) if (t.rowChangedSince(y, mark)) out.push(y);
  return out;
}

test('a printed or erased row changed; the others did not', () => {
  const t = new Terminal(8, 20);
  t.write(enc.encode('one\r\ntwo\r\nthree'));
  let mark = t.changeMark();
  assert.equal(changed(t, mark), []);
  t.write(enc.encode('\x1b[2;1Hxyz'));
  assert.equal(changed(t, mark), [1]);
  mark = t.changeMark();
  t.write(enc.encode('\x1b[3;1H\x1b[2K'));
  assert.equal(changed(t, mark), [2]);
  mark = t.changeMark();
  t.write(enc.encode('\x1b[5;1H\x1b[J'));
  assert.equal(changed(t, mark), [4, 5, 6, 7], 'erase below: every row from the cursor');
  assert.is(t.rowChangedSince(-1, 0), false);
  assert.is(t.rowChangedSince(8, 0), false);
});

test('a scroll, a wrap, a buffer switch and a resize change the rows they move', () => {
  const t = new Terminal(4, 10);
  t.write(enc.encode('a\r\nb\r\nc\r\nd'));
  let mark = t.changeMark();
  t.write(enc.encode('\r\ne'));
  assert.equal(changed(t, mark), [0, 1, 2, 3], 'every row moved up');
  mark = t.changeMark();
  t.write(enc.encode('\x1b[2;1H\x1b[2;3r\x1b[3;1H\n\x1b[r'));
  assert.equal(changed(t, mark), [1, 2], 'a scroll inside the region moves its rows only');
  mark = t.changeMark();
  t.write(enc.encode('\x1b[1;1H0123456789X'));
  assert.equal(changed(t, mark), [0, 1], 'the wrapped row and the row it continues on');
  mark = t.changeMark();
  t.write(enc.encode('\x1b[?1049h'));
  assert.equal(changed(t, mark), [0, 1, 2, 3]);
  mark = t.changeMark();
  t.write(enc.encode('\x1b[?1049l'));
  assert.equal(changed(t, mark), [0, 1, 2, 3]);
  mark = t.changeMark();
  t.resize(5, 12);
  assert.equal(changed(t, mark), [0, 1, 2, 3, 4]);
  assert.ok(t.changeMark() > mark, 'marks only grow');
});

test('oscVersion grows with the title and OSC payloads, not with the cells', () => {
  const t = new Terminal(4, 10);
  const v = t.oscVersion;
  t.write(enc.encode('text'));
  assert.is(t.oscVersion, v);
  t.write(enc.encode('\x1b]0;title\x07'));
  assert.ok(t.oscVersion > v);
  const w = t.oscVersion;
  t.write(enc.encode('\x1b]7501;working\x07'));
  assert.ok(t.oscVersion > w);
});

test.run();
