/**
 * width.ts against its source: @xterm/addon-unicode11's own `wcwidth`, for every code point
 * 0..0x10FFFF, plus the characters the agents actually print.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { wcwidth } from '../src/vt/width.ts';
import { makeXterm } from './support/xterm-oracle.ts';

test('wcwidth equals the unicode11 addon for every code point', () => {
  const x = makeXterm(2, 10);
  // deno-lint-ignore no-explicit-any
  const unicode = (x.term as any)._core.unicodeService;
  assert.is(unicode.activeVersion, '11');
  let mismatches = 0;
  let first = -1;
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (wcwidth(cp) !== unicode.wcwidth(cp)) {
      if (first < 0) first = cp;
      mismatches++;
    }
  }
  x.dispose();
  assert.is(mismatches, 0, `first mismatch at U+${first.toString(16)}`);
});

test('widths of characters the agents print', () => {
  assert.is(wcwidth(0x61), 1); // a
  assert.is(wcwidth(0x2500), 1); // ─ box drawing
  assert.is(wcwidth(0x276f), 1); // ❯ Claude Code's prompt marker
  assert.is(wcwidth(0x270b), 2); // ✋ Gemini CLI's "Action Required"
  assert.is(wcwidth(0x1f680), 2); // 🚀 emoji presentation
  assert.is(wcwidth(0x4e2d), 2); // 中 CJK
  assert.is(wcwidth(0x200b), 0); // zero-width space (Qwen Code)
  assert.is(wcwidth(0x0301), 0); // combining acute accent
  assert.is(wcwidth(0xfe0f), 0); // variation selector 16
  assert.is(wcwidth(0x200d), 0); // zero-width joiner
  assert.is(wcwidth(0x1f), 0); // control
});

test.run();
