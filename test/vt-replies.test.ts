/**
 * Replies to terminal queries: the bytes agents wait for at start-up when no real terminal
 * is attached (DSR, DA, OSC colour queries, kitty keyboard query, DECRQM, ...). Where
 * xterm.js answers too, our bytes must equal its `onData` output.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Terminal } from '../src/vt/terminal.ts';
import { makeXterm } from './support/xterm-oracle.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();

function ask(query: string, setup = '', rows = 32, cols = 120): string | null {
  const t = new Terminal(rows, cols);
  t.write(enc.encode(setup));
  t.takeReplies();
  t.write(enc.encode(query));
  const r = t.takeReplies();
  return r === null ? null : dec.decode(r);
}

/** What xterm.js sends back for `query` after `setup`. */
function xtermAnswer(query: string, setup = ''): string {
  const x = makeXterm(32, 120);
  x.writeSync(enc.encode(setup));
  let out = '';
  x.term.onData((d: string) => {
    out += d;
  });
  x.writeSync(enc.encode(query));
  x.dispose();
  return out;
}

test('DSR: status and cursor position reports (1-based)', () => {
  assert.is(ask('\x1b[5n'), '\x1b[0n');
  assert.is(ask('\x1b[6n'), '\x1b[1;1R');
  assert.is(ask('\x1b[6n', '\x1b[5;17Hab'), '\x1b[5;19R');
  assert.is(ask('\x1b[?6n', '\x1b[3;4H'), '\x1b[?3;4R');
  for (const setup of ['', '\x1b[5;17Hab', '\x1b[31;2Hxyz\r\n\n']) {
    assert.is(ask('\x1b[6n', setup), xtermAnswer('\x1b[6n', setup), JSON.stringify(setup));
  }
});

test('DSR at a pending wrap reports the last column (xterm.js would say cols + 1)', () => {
  assert.is(ask('\x1b[6n', 'x'.repeat(10), 4, 10), '\x1b[1;10R');
});

test('DA1, DA2 and XTVERSION', () => {
  assert.is(ask('\x1b[c'), '\x1b[?1;2c');
  assert.is(ask('\x1b[0c'), '\x1b[?1;2c');
  assert.is(ask('\x1b[1c'), null);
  assert.is(ask('\x1b[>c'), '\x1b[>0;276;0c');
  assert.is(ask('\x1b[>0c'), '\x1b[>0;276;0c');
  for (const q of ['\x1b[c', '\x1b[0c', '\x1b[>c', '\x1b[>0c']) {
    assert.is(ask(q), xtermAnswer(q), JSON.stringify(q));
  }
  assert.is(ask('\x1b[>q'), '\x1bP>|agentwatch\x1b\\');
});

test('OSC 10/11/12 colour queries answer with the terminator of the query', () => {
  assert.is(ask('\x1b]11;?\x07'), '\x1b]11;rgb:0000/0000/0000\x07');
  assert.is(ask('\x1b]11;?\x1b\\'), '\x1b]11;rgb:0000/0000/0000\x1b\\');
  assert.is(ask('\x1b]10;?\x1b\\'), '\x1b]10;rgb:ffff/ffff/ffff\x1b\\');
  assert.is(
    ask('\x1b]10;?;?\x07'),
    '\x1b]10;rgb:ffff/ffff/ffff\x07\x1b]11;rgb:0000/0000/0000\x07',
  );
  assert.is(ask('\x1b]4;1;?\x07'), '\x1b]4;1;rgb:cccc/0000/0000\x07');
  assert.is(ask('\x1b]4;196;?\x07'), '\x1b]4;196;rgb:ffff/0000/0000\x07');
  assert.is(ask('\x1b]11;rgb:1111/2222/3333\x07'), null); // setting is not a query
});

test("OSC 13..19 (pointer, Tektronix, highlight colours) are answered: opencode's start-up asks all", () => {
  // opencode 1.18.33 (opentui) sends these nine queries in one write and waits for each
  const q = [10, 11, 12, 13, 14, 15, 16, 17, 19].map((n) => `\x1b]${n};?\x07`).join('');
  const r = ask(q)!;
  for (const n of [10, 11, 12, 13, 14, 15, 16, 17, 19]) {
    assert.match(
      r,
      new RegExp(`\\x1b\\]${n};rgb:[0-9a-f]{4}/[0-9a-f]{4}/[0-9a-f]{4}\\x07`),
      String(n),
    );
  }
  assert.is(ask('\x1b]17;?\x1b\\'), '\x1b]17;rgb:ffff/ffff/ffff\x1b\\'); // highlight: reverse video
  assert.is(ask('\x1b]19;?\x07'), '\x1b]19;rgb:0000/0000/0000\x07');
  assert.is(ask('\x1b]18;?;?\x07'), '\x1b]18;rgb:ffff/ffff/ffff\x07\x1b]19;rgb:0000/0000/0000\x07');
  assert.is(ask('\x1b]19;?;?\x07'), '\x1b]19;rgb:0000/0000/0000\x07'); // no OSC 20 colour
});

test('kitty keyboard protocol: query, push, pop', () => {
  assert.is(ask('\x1b[?u'), '\x1b[?0u');
  assert.is(ask('\x1b[?u', '\x1b[>7u'), '\x1b[?7u');
  assert.is(ask('\x1b[?u', '\x1b[>7u\x1b[>1u\x1b[<u'), '\x1b[?7u');
  assert.is(ask('\x1b[?u', '\x1b[>7u\x1b[<u'), '\x1b[?0u');
  const t = new Terminal();
  t.write(enc.encode('\x1b[>7u'));
  assert.is(t.keyboardFlags, 7);
});

test('DECRQM reports modes like xterm.js', () => {
  assert.is(ask('\x1b[?2026$p'), '\x1b[?2026;2$y');
  assert.is(ask('\x1b[?2026$p', '\x1b[?2026h'), '\x1b[?2026;1$y');
  assert.is(ask('\x1b[?2027$p'), '\x1b[?2027;0$y');
  assert.is(ask('\x1b[?1049$p', '\x1b[?1049h'), '\x1b[?1049;1$y');
  assert.is(ask('\x1b[4$p', '\x1b[4h'), '\x1b[4;1$y');
  for (
    const [q, setup] of [
      ['\x1b[?2004$p', '\x1b[?2004h'],
      ['\x1b[?1004$p', ''],
      ['\x1b[?1016$p', ''],
      ['\x1b[?1006$p', '\x1b[?1006h'],
      ['\x1b[?1000$p', '\x1b[?1003h'],
      ['\x1b[?7$p', '\x1b[?7l'],
      ['\x1b[?25$p', '\x1b[?25l'],
      ['\x1b[?1047$p', '\x1b[?47h'],
      ['\x1b[20$p', '\x1b[20h'],
      ['\x1b[12$p', ''],
    ]
  ) {
    assert.is(ask(q, setup), xtermAnswer(q, setup), JSON.stringify([q, setup]));
  }
});

test('DCS queries: DECRQSS and XTGETTCAP (opencode)', () => {
  assert.is(ask('\x1bP$qm\x1b\\'), '\x1bP1$r0m\x1b\\');
  assert.is(ask('\x1bP$qr\x1b\\', '\x1b[3;20r'), '\x1bP1$r3;20r\x1b\\');
  assert.is(ask('\x1bP$qzz\x1b\\'), '\x1bP0$r\x1b\\');
  assert.is(ask('\x1bP+q4d73\x1b\\'), '\x1bP0+r4d73\x1b\\');
});

test('window size reports in cells and pixels (XTWINOPS 14, 16, 18, 19), and no reply without a query', () => {
  assert.is(ask('\x1b[18t', '', 24, 80), '\x1b[8;24;80t');
  assert.is(ask('\x1b[19t', '', 24, 80), '\x1b[9;24;80t');
  assert.is(ask('\x1b[14t', '', 24, 80), '\x1b[4;384;640t'); // 16x8-pixel cells
  assert.is(ask('\x1b[16t', '', 24, 80), '\x1b[6;16;8t');
  assert.is(ask('\x1b[1t'), null); // de-iconify: no report
  assert.is(ask('\x1b[8;40;100t'), null); // a resize request: no report
  assert.is(ask('hello \x1b[31mworld\x1b[0m\r\n'), null);
});

test('queries split across chunks are answered once; takeReplies empties the queue', () => {
  const t = new Terminal();
  const q = enc.encode('\x1b[6n\x1b]11;?\x1b\\\x1b[?u');
  for (let i = 0; i < q.length; i++) t.write(q.subarray(i, i + 1));
  assert.is(
    dec.decode(t.takeReplies()!),
    '\x1b[1;1R\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[?0u',
  );
  assert.is(t.takeReplies(), null);
});

test('a flood of queries holds at most 4 KB of replies', () => {
  const t = new Terminal();
  t.write(enc.encode('\x1b[5n'.repeat(10_000)));
  const r = t.takeReplies()!;
  assert.ok(r.length <= 4096 && r.length >= 4000, String(r.length));
});

test("Codex's and opencode's start-up queries from real captures all get answers", () => {
  const fixtures = join(import.meta.dirname, '..', 'fixtures');
  const codex = new Terminal();
  codex.write(new Uint8Array(readFileSync(join(fixtures, 'codex', 'codex.idle.initial.raw'))));
  const c = dec.decode(codex.takeReplies()!);
  // Codex pushes kitty flags 7 (`CSI > 7 u`) before it asks.
  for (const part of ['\x1b[?7u', '\x1b[?1;2c', '\x1b[1;1R', '\x1b]10;rgb:', '\x1b]11;rgb:']) {
    assert.ok(c.includes(part), JSON.stringify([part, c]));
  }
  const opencode = new Terminal();
  opencode.write(
    new Uint8Array(readFileSync(join(fixtures, 'opencode', 'opencode.idle.initial.raw'))),
  );
  const o = dec.decode(opencode.takeReplies()!);
  for (
    const part of [
      '\x1b[?2026;2$y',
      '\x1bP0+r4d73',
      '\x1b]4;0;rgb:2e2e/3434/3636',
      '[?1;2c',
      '\x1b[4;',
    ]
  ) {
    assert.ok(o.includes(part), JSON.stringify([part, o]));
  }
});

test.run();
