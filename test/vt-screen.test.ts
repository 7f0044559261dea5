/**
 * The VT core step by step: readable input (escapes written as `\x1b`) and the exact screen
 * after each step, for the behaviours detection depends on (deferred autowrap, wide and
 * zero-width characters, Claude Code's cursor-placed words, Ink's erase, scroll regions,
 * the alternate screen, OSC metadata), plus the API's bounds: memory per pane, version,
 * unknown-sequence counter, resize. Each golden was checked against @xterm/headless.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Terminal } from '../src/vt/terminal.ts';
import { xtermRender } from './support/xterm-oracle.ts';

const enc = new TextEncoder();

/** Writes `input` to `t` and returns the screen rows. */
function step(t: Terminal, input: string): string[] {
  t.write(enc.encode(input));
  return t.snapshot().rows;
}

/** Runs `steps` on a fresh rows x cols terminal, checking each expected screen (and xterm's). */
function golden(rows: number, cols: number, steps: [string, string[]][]): Terminal {
  const t = new Terminal(rows, cols);
  let all = '';
  for (const [input, expected] of steps) {
    all += input;
    const got = step(t, input);
    const padded = [...expected, ...Array(rows - expected.length).fill('')];
    assert.equal(got, padded, `after ${JSON.stringify(input)}`);
    assert.equal(xtermRender(enc.encode(all), rows, cols).rows, padded, `xterm: ${all}`);
  }
  return t;
}

test('deferred autowrap: the cursor waits in the last column until the next character', () => {
  const t = golden(3, 10, [
    ['0123456789', ['0123456789']],
    ['\r', ['0123456789']],
    ['ab', ['ab23456789']],
    ['\x1b[1;10HZ', ['ab2345678Z']],
    ['!', ['ab2345678Z', '!']],
  ]);
  assert.ok(t.isWrapped(0));
  assert.not.ok(t.isWrapped(1));
  assert.equal(t.cursor, { row: 1, col: 1 });
});

test('pending wrap: CR, LF and cursor moves cancel it', () => {
  const t = golden(3, 5, [
    ['abcde', ['abcde']],
    ['\r\nx', ['abcde', 'x']],
  ]);
  assert.not.ok(t.isWrapped(0));
  golden(2, 5, [['abcde\x1b[1Gz', ['zbcde']]]);
  golden(2, 5, [['abcde\x1b[Dz', ['abczz'.slice(0, 3) + 'ze']]]);
});

test('wide characters take two cells; one that does not fit wraps and leaves a blank', () => {
  const t = golden(3, 6, [
    ['ab中', ['ab中']],
    ['cd🚀', ['ab中cd', '🚀']],
  ]);
  assert.ok(t.isWrapped(0));
  golden(2, 6, [['中文字\x1b[1;2Hx', [' x文字']]]); // writing on the right half blanks the left
  golden(2, 6, [['中文字\x1b[1;3H\x1b[X', ['中  字']]]);
});

test('zero-width characters join the preceding cell; alone after a control they stand alone', () => {
  const t = golden(2, 10, [
    ['e\u0301x', ['e\u0301x']],
    ['\u200b', ['e\u0301x\u200b']],
    ['y', ['e\u0301x\u200by']],
  ]);
  assert.equal(t.cursor, { row: 0, col: 3 });
  // After a CSI the join state is reset: Qwen Code's U+200B then takes a cell of its own.
  golden(2, 10, [['ab\x1b[0m\u200bc', ['ab\u200bc']]]);
  golden(2, 10, [['👍\ufe0f.', ['👍\ufe0f.']]]);
});

test("Claude Code's cell diffs: words placed with CSI n G, rows reached with CR + CSI 1 B", () => {
  golden(4, 40, [
    ['\x1b[H\r\x1b[1BDo\x1b[4Gyou\x1b[8Gwant', ['', 'Do you want']],
    ['\r\x1b[1B\x1b[3G❯ 1. Yes', ['', 'Do you want', '  ❯ 1. Yes']],
  ]);
});

test("Ink's erase: cursor up and CSI J forget an answered prompt", () => {
  golden(5, 20, [
    ['> task\r\nDo you want?\r\n1. Yes\r\n', ['> task', 'Do you want?', '1. Yes']],
    ['\x1b[2A\x1b[J', ['> task']],
    ['working…', ['> task', 'working…']],
  ]);
});

test('scroll region: LF at its bottom scrolls only the region; RI at its top scrolls it down', () => {
  golden(5, 10, [
    ['top\r\n1\r\n2\r\n3\r\nbottom', ['top', '1', '2', '3', 'bottom']],
    ['\x1b[2;4r\x1b[4;1H\n', ['top', '2', '3', '', 'bottom']],
    ['\x1b[2;1H\x1bM', ['top', '', '2', '3', 'bottom']],
    ['\x1b[r\x1b[5;1H\nnew', ['', '2', '3', 'bottom', 'new']],
  ]);
});

test('insert, delete, erase, repeat and tab stops', () => {
  golden(3, 12, [
    ['abcdef\x1b[1;3H\x1b[2@', ['ab  cdef']],
    ['\x1b[3P', ['abdef']],
    ['\x1b[2X', ['ab  f']],
    ['\x1b[2;1H-\x1b[4b', ['ab  f', '-----']],
    ['\r\t|\t|', ['ab  f', '-----   |  |']],
    ['\x1b[1;1H\x1b[L', ['', 'ab  f', '-----   |  |']],
    ['\x1b[2M', ['-----   |  |']],
  ]);
});

test('alternate screen 1049: blank on entry, normal screen and cursor back on exit', () => {
  const t = golden(3, 10, [
    ['shell $ ', ['shell $']],
    ['\x1b[?1049h\x1b[HTUI', ['TUI']],
  ]);
  assert.ok(t.altScreen);
  step(t, '\x1b[?1049l');
  assert.not.ok(t.altScreen);
  assert.equal(t.snapshot().rows, ['shell $', '', '']);
  assert.equal(t.cursor, { row: 0, col: 8 });
});

test('DEC Special Graphics draws lines; RIS resets everything but the title', () => {
  const t = golden(2, 10, [['\x1b(0lqqk\x1b(B ok', ['┌──┐ ok']]]);
  step(t, '\x1b]2;kept\x07\x1bc');
  assert.equal(t.snapshot().rows, ['', '']);
  assert.is(t.title, 'kept');
});

test('OSC: title from OSC 0/2, every payload by number, bounded, version bumps', () => {
  const t = new Terminal(4, 20);
  const v0 = t.version;
  step(t, '\x1b]0;⠋ Working (proj)\x07');
  assert.is(t.title, '⠋ Working (proj)');
  assert.ok(t.version > v0);
  step(t, '\x1b]7501;state=blocked:app=codex\x1b\\\x1b]9;done\x07\x1b]777;notify;a;b\x07');
  assert.is(t.oscPayload(7501), 'state=blocked:app=codex');
  assert.is(t.oscPayload(9), 'done');
  assert.is(t.oscPayload(777), 'notify;a;b');
  assert.is(t.oscPayload(1), undefined);
  assert.equal([...t.snapshot().osc.keys()], [0, 7501, 9, 777]);
  step(t, '\x1b]2;🚀 ship it\x1b\\');
  assert.is(t.title, '🚀 ship it');
  step(t, '\x1b]2;' + 'x'.repeat(10_000) + '\x07after');
  assert.is(t.title.length, 4096 - 2);
  assert.is(t.rowText(0), 'after');
  for (let i = 0; i < 200; i++) step(t, `\x1b]${1000 + i};x\x07`);
  assert.ok(t.osc.size <= 64);
  assert.is(t.oscPayload(1199), 'x');
});

test('version changes with the screen, not with cursor moves or SGR', () => {
  const t = new Terminal(4, 20);
  step(t, 'hello');
  const v = t.version;
  step(t, '\x1b[2;3H\x1b[31m\x1b[0m\x1b[?25l');
  assert.is(t.version, v);
  step(t, 'x');
  assert.ok(t.version > v);
});

test('invalid UTF-8 is dropped like xterm; UTF-8 C1 controls act as controls', () => {
  const t = new Terminal(3, 10);
  t.write(new Uint8Array([0x61, 0xff, 0x62, 0xc3, 0x28, 0xe2, 0x82, 0x41]));
  assert.is(t.rowText(0), 'ab(A');
  t.write(new Uint8Array([0xc2, 0x85, 0x7a])); // U+0085 NEL
  assert.is(t.rowText(1), 'z');
  const raw = new Uint8Array([0x61, 0xff, 0x62, 0xc3, 0x28, 0xe2, 0x82, 0x41, 0xc2, 0x85, 0x7a]);
  assert.equal(t.snapshot().rows, xtermRender(raw, 3, 10).rows);
});

test('unknown sequences are counted, never printed', () => {
  const t = new Terminal(2, 20);
  step(t, 'a\x1b[5y\x1b[?99;1z\x1b%Xb\x1b]x;y\x07c');
  assert.is(t.rowText(0), 'abc');
  assert.is(t.unknownSequences, 4);
});

test('resize keeps text at the top left and the cursor row on screen', () => {
  const t = new Terminal(4, 10);
  step(t, 'one\r\ntwo\r\nthree\r\nfour');
  t.resize(2, 4);
  assert.is(t.rows, 2);
  assert.is(t.cols, 4);
  assert.equal(t.snapshot().rows, ['thre', 'four']);
  assert.equal(t.cursor, { row: 1, col: 3 });
  t.resize(3, 6);
  assert.equal(t.snapshot().rows, ['thre', 'four', '']);
  step(t, '\r\nfive!!');
  assert.equal(t.snapshot().rows, ['thre', 'four', 'five!!']);
});

/** Sums the bytes of every typed array reachable from `root` (each buffer counted once). */
function typedArrayBytes(root: unknown): number {
  const seen = new Set<unknown>();
  const buffers = new Set<ArrayBufferLike>();
  let total = 0;
  const walk = (v: unknown) => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (ArrayBuffer.isView(v)) {
      if (!buffers.has(v.buffer)) {
        buffers.add(v.buffer);
        total += v.buffer.byteLength;
      }
      return;
    }
    if (v instanceof Map) {
      for (const [k, x] of v) {
        walk(k);
        walk(x);
      }
      return;
    }
    for (const k of Object.getOwnPropertyNames(v)) walk((v as Record<string, unknown>)[k]);
  };
  walk(root);
  return total;
}

test('a fresh 32x120 pane holds at most 24 KB of typed arrays', () => {
  const t = new Terminal(32, 120);
  const bytes = typedArrayBytes(t);
  assert.ok(bytes <= 24 * 1024, `${bytes} bytes`);
  assert.ok(bytes >= 32 * 120 * 4, `${bytes} bytes: the grid must be in there`);
  assert.is(t.byteSize(), bytes);
  // Drawing text, titles and OSC strings adds no typed arrays beyond the 4 KB payload buffer.
  step(t, '\x1b]0;title\x07' + 'text\r\n'.repeat(100));
  assert.ok(typedArrayBytes(t) <= 24 * 1024 + 4096);
});

test('bracketed paste (DECSET 2004) is tracked: set, reset, and cleared by RIS', () => {
  const t = new Terminal(3, 10);
  const enc = new TextEncoder();
  assert.is(t.bracketedPaste, false, 'off until the program enables it');
  t.write(enc.encode('\x1b[?2004h'));
  assert.is(t.bracketedPaste, true);
  t.write(enc.encode('\x1b[?2004l'));
  assert.is(t.bracketedPaste, false);
  t.write(enc.encode('\x1b[?1;2004h'));
  assert.is(t.bracketedPaste, true, 'among several modes');
  t.write(enc.encode('\x1bc'));
  assert.is(t.bracketedPaste, false, 'a full reset clears it');
});

/** The visible rows flagged changed, as their indices. */
function changed(t: Terminal): number[] {
  return [...t.changedRows.keys()].filter((y) => t.changedRows[y] === 1);
}

test('changed rows: what a frame touched since the last markSeen, and the title apart', () => {
  const t = new Terminal(6, 20);
  assert.equal(changed(t), [0, 1, 2, 3, 4, 5], 'a new screen: every row');
  t.markSeen();
  assert.is(t.changedRowCount, 0);
  step(t, '\x1b[3;1H\x1b[2K✻ Working… (1s)\x1b[6;1H'); // a spinner frame, the cursor moved
  assert.equal(changed(t), [2]);
  assert.is(t.changedRowCount, 1);
  assert.is(t.titleChanged, false);
  step(t, '\x1b]0;✳ Claude Code\x07');
  assert.ok(t.titleChanged);
  assert.is(t.otherOscChanged, false, 'the title is no other OSC');
  step(t, '\x1b]7501;state=working\x07');
  assert.ok(t.otherOscChanged);
  t.markSeen();
  assert.equal([changed(t), t.titleChanged, t.otherOscChanged], [[], false, false]);
  step(t, '\x1b[4;1H\x1b[K'); // erasing a row that reads '' changes nothing
  assert.equal(changed(t), []);
  step(t, '\x1b[2;5r\x1b[5;1H\n'); // a scroll in rows 2..5: each of them moved
  assert.equal(changed(t), [1, 2, 3, 4]);
  t.markSeen();
  step(t, 'é\u0301'); // a combining mark joins the cell: its row
  assert.equal(changed(t), [4]);
  t.markSeen();
  step(t, '\x1b[?1049h'); // the alternate screen: every row
  assert.equal(changed(t).length, 6);
  t.markSeen();
  step(t, '\x1b[?1049l');
  assert.equal(changed(t).length, 6, 'back to the normal screen: every row');
  t.markSeen();
  t.resize(8, 20);
  assert.equal(changed(t).length, 8, 'a resize: every row');
});

test.run();
