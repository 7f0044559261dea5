/**
 * Evaluation: first match wins, any/all/none semantics, and every region kind (wrapped rows,
 * bottom N, below_last_rule, title, OSC).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, NO_RULE_MATCHED } from '../src/detect/evaluate.ts';
import { parseManifest } from '../src/detect/manifest.ts';
import { isRuleLine, logicalLines, RegionTexts } from '../src/detect/regions.ts';
import type { ScreenInput } from '../src/detect/types.ts';

const HEAD = `schema = 1\nid = "t"\nname = "t"\nversion = "1"\nprocess = ["t"]\n`;

/** A manifest from `[[rules]]` TOML. */
function manifest(rules: string) {
  return parseManifest(HEAD + rules, 't.toml');
}

/** A screen from rows; `wrapped` lists the rows that soft-wrap onto the next one. */
function screen(
  rows: string[],
  opts: { wrapped?: number[]; title?: string; osc?: Record<number, string> } = {},
): ScreenInput {
  return {
    rows,
    wrapped: rows.map((_, i) => opts.wrapped?.includes(i) ?? false),
    title: opts.title ?? '',
    osc: new Map(Object.entries(opts.osc ?? {}).map(([k, v]) => [Number(k), v])),
  };
}

test('first matching rule wins, in manifest order', () => {
  const m = manifest(`
[[rules]]
name = "first"
state = "blocked"
any = ['Do you want']
[[rules]]
state = "working"
any = ['esc to interrupt']
`);
  const both = screen(['Do you want to proceed?', 'esc to interrupt']);
  const e = evaluate(both, m);
  assert.is(e.state, 'blocked');
  assert.is(e.rule, 0);
  assert.is(e.pattern, 'Do you want');
  assert.is(e.match, 'Do you want');
  assert.is(e.region, 'screen');
  assert.is(e.reason, "rule 0 'first' (blocked): any[0] matched in screen");
  const swapped = manifest(`
[[rules]]
state = "working"
any = ['esc to interrupt']
[[rules]]
state = "blocked"
any = ['Do you want']
`);
  assert.is(evaluate(both, swapped).state, 'working');
  assert.is(evaluate(both, swapped).rule, 0);
  assert.is(evaluate(screen(['Do you want to proceed?']), swapped).rule, 1);
});

test('no rule matching gives idle, never blocked', () => {
  const m = manifest(`[[rules]]\nstate = "blocked"\nany = ['Allow']\n`);
  assert.equal(evaluate(screen(['nothing here']), m), {
    state: 'idle',
    rule: null,
    pattern: null,
    match: null,
    region: null,
    reason: NO_RULE_MATCHED,
  });
});

test('any: one suffices; all: every one; none: vetoes', () => {
  const m = manifest(`
[[rules]]
state = "blocked"
all = ['^❯ 1\\.', 'Esc to cancel']
any = ['proceed', 'create']
none = ['esc to interrupt']
`);
  const cases: Array<[string[], string]> = [
    [['Do you want to proceed?', '❯ 1. Yes', 'Esc to cancel'], 'blocked'],
    [['Do you want to create x?', '❯ 1. Yes', 'Esc to cancel'], 'blocked'], // any[1]
    [['Do you want to go?', '❯ 1. Yes', 'Esc to cancel'], 'idle'], // no any
    [['Do you want to proceed?', '❯ 1. Yes'], 'idle'], // all[1] missing
    [['Do you want to proceed?', '  ❯ 1. Yes', 'Esc to cancel'], 'idle'], // all[0] anchored at ^
    [['Do you want to proceed?', '❯ 1. Yes', 'Esc to cancel', 'esc to interrupt'], 'idle'], // none
  ];
  for (const [rows, want] of cases) {
    assert.is(evaluate(screen(rows), m).state, want, rows.join(' | '));
  }
  const e = evaluate(screen(['Do you want to create x?', '❯ 1. Yes', 'Esc to cancel']), m);
  assert.is(e.pattern, 'create');
  assert.is(
    e.reason,
    'rule 0 (blocked): any[1] matched, all 2 matched, none of 1 matched in screen',
  );
});

test('a rule with only all reports its first pattern as the decisive one', () => {
  const m = manifest(`[[rules]]\nstate = "working"\nall = ['Working', '\\(\\d+s']\n`);
  const e = evaluate(screen(['• Working (3s • esc to interrupt)']), m);
  assert.is(e.pattern, 'Working');
  assert.is(e.match, 'Working');
});

test('MULTILINE: ^ and $ anchor at every line; \\z at the end of the region', () => {
  const m = manifest(
    `[[rules]]\nstate = "blocked"\nany = ['^Esc to cancel$']\n[[rules]]\nstate = "working"\nany = ['^last\\z']\n`,
  );
  assert.is(evaluate(screen(['a', 'Esc to cancel', 'b']), m).state, 'blocked');
  assert.is(evaluate(screen(['a', 'x Esc to cancel', 'b']), m).state, 'idle');
  assert.is(evaluate(screen(['a', 'last']), m).state, 'working');
  assert.is(evaluate(screen(['last', 'a']), m).state, 'idle');
});

test('trailing blanks (and trailing blank rows) are trimmed, so $ and \\z work on padded rows', () => {
  const m = manifest(
    `[[rules]]\nstate = "blocked"\nany = ['^  Press enter to confirm or esc to cancel\\z']\n`,
  );
  // Codex pads its rows with written spaces; xterm keeps them; the screen ends with blank rows.
  const rows = [
    '› 1. Yes, proceed (y)' + ' '.repeat(99),
    '  Press enter to confirm or esc to cancel' + ' '.repeat(79),
    '',
    '   ',
  ];
  assert.is(evaluate(screen(rows), m).state, 'blocked');
});

test('screen region joins soft-wrapped rows into one logical line', () => {
  const m = manifest(`[[rules]]\nstate = "blocked"\nany = ['Do you want to proceed\\?']\n`);
  const rows = ['xxxxxxxx Do you wa', 'nt to proceed?'];
  assert.is(evaluate(screen(rows, { wrapped: [0] }), m).state, 'blocked');
  assert.is(evaluate(screen(rows), m).state, 'idle', 'two separate lines do not join');
  assert.equal(logicalLines(screen(['a', 'b', 'c', 'd'], { wrapped: [0, 1] })), ['abc', 'd']);
});

test('bottom N: the last N non-blank logical lines', () => {
  const m = manifest(
    `[[rules]]\nstate = "blocked"\nregion = { bottom = 2 }\nany = ['Allow once']\n`,
  );
  assert.is(
    evaluate(screen(['Allow once', 'footer 1', 'footer 2']), m).state,
    'idle',
    'third from the bottom',
  );
  assert.is(
    evaluate(screen(['Allow once', '', '  ', 'footer', '', '']), m).state,
    'blocked',
    'blank rows do not count',
  );
  // A long line wrapped over three rows is still one line from the bottom.
  const wrapped = screen(['Allow once', 'footer aaaa', 'aaaa', 'aaaa'], { wrapped: [1, 2] });
  assert.is(evaluate(wrapped, m).state, 'blocked');
  const e = evaluate(screen(['x', 'Allow once', 'y']), m);
  assert.is(e.region, 'bottom 2');
  assert.is(e.reason, 'rule 0 (blocked): any[0] matched in bottom 2');
  const texts = new RegionTexts(screen(['a', '', 'b', 'c', '']));
  assert.is(texts.text({ kind: 'bottom', lines: 2 }), 'b\nc');
  assert.is(texts.text({ kind: 'bottom', lines: 9 }), 'a\nb\nc');
});

test('bottom N cut from the widest bottom equals bottom N joined on its own', () => {
  const shapes = [
    ['a', '', 'b', 'c', ''],
    ['', '', ''],
    ['x'],
    ['one', 'two aaaa', 'aaaa', '', 'three', '  ', 'four', 'five', '', 'six'],
    Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? '' : `row ${i}`)),
  ];
  for (const rows of shapes) {
    const s = screen(rows, { wrapped: rows.length > 2 ? [1] : [] });
    for (const widest of [0, 1, 3, 8, 24, 50]) {
      const cut = new RegionTexts(s, widest);
      for (const n of [widest, 1, 2, 3, 5, 8, 16, 24, 50]) {
        if (n < 1) continue;
        const own = new RegionTexts(s).text({ kind: 'bottom', lines: n });
        assert.is(cut.text({ kind: 'bottom', lines: n }), own, `${rows}: bottom ${n} of ${widest}`);
      }
    }
  }
});

test('below_last_rule: the lines under the last horizontal rule row', () => {
  const m = manifest(
    `[[rules]]\nstate = "working"\nregion = "below_last_rule"\nany = ['esc to interrupt']\n`,
  );
  const rule = '─'.repeat(40);
  // Claude Code: the reply above the input box quotes the footer; the real footer is idle.
  const idle = screen([
    '● press esc to interrupt to stop me',
    rule,
    '❯ ',
    rule,
    '  ⏸ manual mode on · ? for shortcuts',
  ]);
  assert.is(evaluate(idle, m).state, 'idle');
  const working = screen(['● hello', rule, '❯ ', rule, '  ⏸ manual mode on · esc to interrupt']);
  assert.is(evaluate(working, m).state, 'working');
  assert.is(evaluate(screen(['esc to interrupt']), m).state, 'idle', 'no rule row: empty region');
  const texts = new RegionTexts(screen(['top', `  ╭${'─'.repeat(10)}╮`, 'one', '', 'two', '', '']));
  assert.is(texts.text({ kind: 'below_last_rule' }), 'one\n\ntwo');
});

test('what counts as a horizontal rule row', () => {
  assert.ok(isRuleLine('─'.repeat(8)));
  assert.ok(isRuleLine('  ' + '━'.repeat(20) + '  '));
  assert.ok(isRuleLine('╭' + '─'.repeat(30) + '╮'));
  assert.ok(isRuleLine('╰' + '─'.repeat(30) + '╯'));
  assert.not.ok(isRuleLine('─'.repeat(7)), 'fewer than 8');
  assert.not.ok(isRuleLine('│ ' + '─'.repeat(20)), 'a box side is not a corner');
  assert.not.ok(isRuleLine('── Worked for 4s ' + '─'.repeat(20)), 'text on the row');
  assert.not.ok(isRuleLine('╌'.repeat(40)), 'dashed lines are not rules');
  assert.not.ok(isRuleLine('▀'.repeat(40)));
});

test('title region matches the window title only', () => {
  const m = manifest(
    `[[rules]]\nstate = "blocked"\nregion = "title"\nany = ['^\\W*Action Required\\b']\n`,
  );
  assert.is(evaluate(screen([], { title: '✋  Action Required (proj)' }), m).state, 'blocked');
  assert.is(
    evaluate(screen(['✋  Action Required (proj)'], { title: '◇  Ready (proj)' }), m).state,
    'idle',
  );
  assert.is(evaluate(screen([], { title: '' }), m).state, 'idle');
});

test('osc region matches the latest payload of that OSC number only', () => {
  const m = manifest(
    `[[rules]]\nstate = "blocked"\nregion = { osc = 7501 }\nany = ['\\bstate=blocked\\b']\n`,
  );
  assert.is(
    evaluate(screen([], { osc: { 7501: 'state=blocked:app=codex:kind=permission' } }), m).state,
    'blocked',
  );
  assert.is(evaluate(screen([], { osc: { 7501: 'state=idle:app=codex' } }), m).state, 'idle');
  assert.is(
    evaluate(screen([], { osc: { 7502: 'state=blocked' } }), m).state,
    'idle',
    'other OSC number',
  );
  assert.is(evaluate(screen(['state=blocked']), m).state, 'idle', 'not on screen');
  const e = evaluate(screen([], { osc: { 7501: 'state=blocked:app=codex' } }), m);
  assert.is(e.region, 'osc 7501');
  assert.is(e.match, 'state=blocked');
});

test('region texts are computed once per evaluation and reused across rules', () => {
  const texts = new RegionTexts(screen(['a', 'b']));
  const first = texts.text({ kind: 'bottom', lines: 1 });
  assert.is(texts.text({ kind: 'bottom', lines: 1 }), first);
  assert.is(texts.lines(), texts.lines());
  assert.is(texts.text({ kind: 'screen' }), 'a\nb');
});

test.run();
