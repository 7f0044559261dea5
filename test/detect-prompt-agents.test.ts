/**
 * readPrompt on the newest agents' dialogs. Qwen Code 0.24.4's has no box: the details stop at
 * its own header row (`? Shell ...`), not the transcript above it, and a flashing scrollbar in
 * the last column stays out of the text. opencode 1.18's permission panel is a row of buttons whose selection is drawn
 * with a background colour only (fixtures/opencode): the options, the heading as the question,
 * the panel's other rows as details, and the selected button from the cells' background tags
 * (src/vt grid `bg`); replayed over the recorded session, the selection follows the driver's
 * two Right keys of the denial (Allow once -> Allow always -> Reject). Claude Code 2.1.332's
 * Bash dialog carries a `Tip: auto mode ...` line under its header: never a detail, never what
 * the board's, `ls`'s or a notice's row says the prompt is about.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readPrompt } from '../src/detect/prompt.ts';
import { detailOf } from '../src/cli/board/rows.ts';
import { promptAction } from '../src/runtime/notify-gate.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { REPO_ROOT } from './support/claude-home.ts';

const DIR = join(REPO_ROOT, 'fixtures', 'opencode');

function prompt(t: Terminal, withBackgrounds = true) {
  const rows = t.snapshot().rows;
  return readPrompt(rows, withBackgrounds ? rows.map((_, y) => t.rowBackgrounds(y)) : undefined);
}

function render(file: string): Terminal {
  const t = new Terminal(32, 120);
  t.write(new Uint8Array(readFileSync(join(DIR, file))));
  return t;
}

test('every opencode permission panel: three buttons, the first selected, heading and details', () => {
  for (
    const file of [
      'opencode.blocked.raw',
      'opencode.blocked.edit.raw',
      'opencode.blocked.slowtool.raw',
    ]
  ) {
    const p = prompt(render(file));
    assert.equal(p.options, ['1. Allow once', '2. Allow always', '3. Reject'], file);
    assert.is(p.selected, 0, file);
    assert.is(p.layout, 'horizontal');
    assert.is(p.question, 'Permission required');
    assert.ok(p.details.length >= 1 && p.details.length <= 8, `${file}: ${p.details}`);
  }
  assert.equal(prompt(render('opencode.blocked.raw')).details, [
    '# Shell command',
    '$ touch ran_tests.txt && echo tests passed',
  ]);
  assert.equal(prompt(render('opencode.blocked.edit.raw')).details[0], '→ Edit hello.txt');
});

test('without background tags the selection is unknown (answer then refuses), never guessed', () => {
  const p = prompt(render('opencode.blocked.raw'), false);
  assert.is(p.options.length, 3);
  assert.is(p.selected, -1);
});

test('idle and working opencode screens show no prompt; a numbered list stays vertical', () => {
  for (const file of ['opencode.idle.raw', 'opencode.working.raw', 'opencode.idle.denied.raw']) {
    assert.equal(prompt(render(file)).options, [], file);
  }
  const claude = new Terminal(32, 120);
  claude.write(new TextEncoder().encode(' Do you want to proceed?\r\n ❯ 1. Yes\r\n   2. No\r\n'));
  assert.is(prompt(claude).layout, 'vertical');
  assert.is(prompt(claude).selected, 0);
});

test('replaying the recorded denial: the selection moves Allow once -> Allow always -> Reject', () => {
  const lines = readFileSync(join(DIR, 'recordings', 'opencode.bytes.jsonl'), 'utf8').trim().split(
    '\n',
  );
  const t = new Terminal(32, 120);
  const seen: number[] = [];
  for (const line of lines) {
    const { t: at, b64 } = JSON.parse(line) as { t: number; b64: string };
    t.write(new Uint8Array(Buffer.from(b64, 'base64')));
    if (at < 64.9) continue; // the denial's turn starts at 64.8 s (recordings/opencode.input.jsonl)
    const p = prompt(t);
    if (p.options.length === 3 && seen.at(-1) !== p.selected) seen.push(p.selected);
  }
  assert.equal(seen, [0, 1, 2]);
});

test('background tags: SGR 48;2, 48;5, 4x, inverse video and resets', () => {
  const t = new Terminal(2, 40);
  t.write(
    new TextEncoder().encode(
      'a\x1b[48;2;245;167;66mb\x1b[49mc\x1b[48;5;22md\x1b[0me\x1b[7mf\x1b[27mg\x1b[44mh\x1b[mi',
    ),
  );
  const tags = t.rowBackgrounds(0);
  assert.is(tags.length, 9);
  assert.is(tags[0], 0);
  assert.ok(tags[1] > 0 && tags[1] < 255);
  assert.is(tags[2], 0);
  assert.ok(tags[3] > 0 && tags[3] < 255 && tags[3] !== tags[1]);
  assert.is(tags[4], 0);
  assert.is(tags[5], 255);
  assert.is(tags[6], 0);
  assert.ok(tags[7] > 0 && tags[7] < 255);
  assert.is(tags[8], 0);
});

test("Qwen Code 0.24: the boxless dialog's question, options and details, scrollbar or not", () => {
  const dir = join(REPO_ROOT, 'fixtures', 'qwen-code');
  for (
    const file of ['qwen-code.blocked.v24-classifier.raw', 'qwen-code.blocked.v24-scrollbar.raw']
  ) {
    const t = new Terminal(32, 120);
    t.write(new Uint8Array(readFileSync(join(dir, file))));
    const p = prompt(t);
    assert.is(p.question, "Allow execution of: 'touch'?", file);
    assert.equal(p.options, [
      '1. Yes, allow once',
      '2. Switch to Default Mode and allow once (recommended)',
      '3. No, suggest changes (esc)',
    ], file);
    assert.is(p.selected, 0);
    assert.is(p.details[0], '? Shell touch hello.txt (Create an empty hello.txt) ←', file);
    assert.is(p.details.at(-1), 'touch hello.txt', file);
    assert.not.ok(p.details.some((d) => d.startsWith('>') || d.startsWith('◆')), `${p.details}`);
  }
});

test("Claude Code 2.1.332's Bash dialog: its Tip line is no detail, and never the row's action", () => {
  const dir = join(REPO_ROOT, 'fixtures', 'claude-code');
  const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'));
  const cases = [
    ['claude.blocked.raw', 'Bash: touch hello.txt'],
    [
      'claude.blocked.bashlong.raw',
      'Bash: for i in $(seq 1 80); do echo line $i; sleep 0.25; done; touch long.log',
    ],
  ];
  for (const [file, action] of cases) {
    const t = new Terminal(32, 120);
    t.write(new Uint8Array(readFileSync(join(dir, file))));
    assert.is(labels[file], 'blocked');
    assert.match(t.snapshot().rows.join('\n'), /^ Tip: auto mode handles these prompts/m, file);
    const p = prompt(t);
    assert.is(p.details[0], 'Bash command', file);
    assert.not.ok(p.details.some((d) => /Tip/.test(d)), `${file}: ${p.details}`);
    const info = { state: 'blocked', question: p.question, options: p.options, details: p.details };
    assert.is(detailOf(info as SessionInfo), `${action} · Do you want to proceed?`, file);
    assert.is(promptAction(p.details), action, file);
    // details read by an older reader, with the tip in them: still not the action
    assert.is(
      promptAction([p.details[0], 'Tip: auto mode handles these', ...p.details.slice(1)]),
      action,
    );
  }
});

test("Claude Code 2.1.332's security notes: one answer, Enter; its notes are no options and its art no detail", () => {
  const dir = join(REPO_ROOT, 'fixtures', 'claude-code');
  const file = 'claude.blocked.onboarding.security.raw';
  const t = new Terminal(32, 120);
  t.write(new Uint8Array(readFileSync(join(dir, file))));
  assert.match(t.snapshot().rows.join('\n'), /^ Press Enter to continue$/m);
  const p = prompt(t);
  assert.is(p.question, 'Security notes');
  assert.equal(p.options, ['Continue']);
  assert.is(p.selected, 0);
  assert.is(p.details[0], '1. Claude can make mistakes.');
  assert.ok(
    p.details.some((d) => d.startsWith('2. Due to prompt injection risks')),
    `${p.details}`,
  );
  assert.not.ok(p.details.some((d) => /[▓░█]/.test(d)), `${p.details}`);
  const info = { state: 'blocked', question: p.question, options: p.options, details: p.details };
  assert.not.match(detailOf(info as SessionInfo), /[▓░█]/);
  assert.not.match(promptAction(p.details) ?? '', /[▓░█]/);
});

test("Qwen Code 0.24.4's first-run provider dialog: its heading and its entries, not their descriptions", () => {
  const t = new Terminal(32, 120);
  t.write(
    new Uint8Array(
      readFileSync(join(REPO_ROOT, 'fixtures', 'qwen-code', 'qwen-code.blocked.v24-provider.raw')),
    ),
  );
  const p = prompt(t);
  assert.is(p.question, 'Connect a Provider');
  assert.equal(p.options, ['Alibaba ModelStudio', 'Third-party Providers', 'Custom Provider']);
  assert.is(p.selected, 0);
  assert.is(p.layout, 'vertical');
  // the person moved the selection to the last entry
  const rows = t.snapshot().rows.map((r) =>
    r.replace('│ › Alibaba', '│   Alibaba').replace('│   Custom Provider', '│ › Custom Provider')
  );
  assert.is(readPrompt(rows).selected, 2);
});

test("Claude Code 2.1.332's onboarding theme picker: its welcome art is no detail", () => {
  const t = new Terminal(32, 120);
  t.write(
    new Uint8Array(
      readFileSync(
        join(REPO_ROOT, 'fixtures', 'claude-code', 'claude.blocked.onboarding.theme.raw'),
      ),
    ),
  );
  const p = prompt(t);
  assert.is(p.options[1], '✔ Dark mode');
  assert.equal(p.details, [
    "Let's get started.",
    'Choose the text style that looks best with your terminal',
    'To change this later, run /theme',
  ]);
});

test.run();
