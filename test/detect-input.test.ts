/** The `[input]` table: where an agent's input box is and what it looks like empty. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inputBox, inputHoldsText } from '../src/detect/evaluate.ts';
import { parseManifest } from '../src/detect/manifest.ts';
import { ManifestError } from '../src/detect/errors.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { renderFile } from '../src/runtime/render-file.ts';

const ROOT = join(import.meta.dirname, '..');
const manifests = loadBundledManifests();
const screen = (rows: string[]) => ({
  rows,
  wrapped: rows.map(() => false),
  title: '',
  osc: new Map(),
});

test('every idle and working fixture shows an empty input box, a typed draft a full one (claude, codex, gemini, qwen, opencode)', async () => {
  const dirs: Array<[string, string]> = [
    ['claude', 'claude-code'],
    ['codex', 'codex'],
    ['gemini', 'gemini-cli'],
    ['qwen', 'qwen-code'],
    ['qwen', 'qwen-code-narrow'], // 8x30: the placeholder wraps onto two rows
    ['opencode', 'opencode'], // opencode-ai 1.18.33: drafts on the start screen and in a session
    ['opencode', 'opencode-90'], // the same at 28x90
  ];
  for (const [id, dir] of dirs) {
    const labels: Record<string, string | { state: string; size: string }> = JSON.parse(
      readFileSync(join(ROOT, 'fixtures', dir, 'labels.json'), 'utf8'),
    );
    for (const [file, entry] of Object.entries(labels)) {
      const state = typeof entry === 'string' ? entry : entry.state;
      const [rows, cols] = typeof entry === 'string'
        ? [32, 120]
        : entry.size.split('x').map(Number);
      if (state === 'blocked') continue;
      const { terminal } = await renderFile(join(ROOT, 'fixtures', dir, file), rows, cols);
      // a menu the person opened replaces the input box; the person's own draft fills it (a
      // `typed` case: "1. Yes" typed, not sent)
      const holds = /\.(?:menus|pickers)\./.test(file) || /[.-]typed\b/.test(file);
      assert.is(inputHoldsText(terminal.snapshot(), manifests.get(id)!), holds, `${dir}/${file}`);
      // Qwen Code 0.24.4 starting: no composer drawn yet; every other screen draws one
      const drawn = /initializing/.test(file) ? 'absent' : holds ? 'text' : 'empty';
      if (id === 'qwen' || id === 'opencode' || id === 'codex') {
        assert.is(inputBox(terminal.snapshot(), manifests.get(id)!), drawn, file);
      }
    }
  }
});

test('a draft in the input box holds text; an agent drawing no input box yet holds none', () => {
  const rule = '─'.repeat(40);
  const claude = manifests.get('claude')!;
  const empty = ['● Done.', '', rule, '❯\u00a0', rule, '  ⏸ manual mode on · ? for shortcuts'];
  const draft = [
    '● Done.',
    '',
    rule,
    '❯ half a thought',
    rule,
    '  ⏸ manual mode on · ? for shortcuts',
  ];
  assert.is(inputHoldsText(screen(empty), claude), false);
  assert.is(inputHoldsText(screen(draft), claude), true);
  assert.is(
    inputHoldsText(
      screen(['› Ask Codex to do anything', '', '  ? for shortcuts']),
      manifests.get('codex')!,
    ),
    false,
  );
  assert.is(
    inputHoldsText(screen(['› fix the bug', '', '  ? for shortcuts']), manifests.get('codex')!),
    true,
  );
  // opencode 1.18.33: a blank screen while it starts; its composer empty, then with a draft
  const opencode = manifests.get('opencode')!;
  const bar = '  ╹' + '▀'.repeat(60);
  const composer = (...text: string[]) =>
    screen([
      '     ▣  Build · Fake Model · 2.1s',
      '',
      '  ┃',
      ...text.map((t) => `  ┃  ${t}`.trimEnd()),
      '  ┃',
      '  ┃  Build · Fake Model Fake',
      bar,
      '   /proj    110  ctrl+p commands',
    ]);
  assert.is(inputBox(screen(['', '', '']), opencode), 'absent');
  assert.is(inputBox(composer(''), opencode), 'empty');
  assert.is(inputBox(composer('draft number 1'), opencode), 'text');
  assert.is(inputBox(composer('line one', '', 'line three'), opencode), 'text');
  // a transcript's bordered block right above the composer is not its text
  assert.is(
    inputBox(
      screen([
        '  ┃',
        '  ┃  task-question a1',
        '  ┃',
        '',
        '  ┃',
        '  ┃',
        '  ┃',
        '  ┃  Build · M',
        bar,
      ]),
      opencode,
    ),
    'empty',
  );
  // Codex 0.171 starting: its logo and `loading`, no composer yet (no draft either)
  const codex = manifests.get('codex')!;
  assert.is(
    inputBox(screen(['  >_ OpenAI Codex (v0.171.0)', 'loading', '  ⣀⣤⣤⣤⣀⣀', '  ⠈⠙⠛⠿⠿⠿⠿⠛⠉']), codex),
    'absent',
  );
  assert.is(
    inputBox(screen(['  ⠈⠙⠛⠿⠿⠿⠿⠛⠉', '› Ask Codex to do anything', '', '  ? for shortcuts']), codex),
    'empty',
  );
  assert.is(
    inputBox(screen(['› task-question q1', '', '', '  gpt-5-codex default · /p']), codex),
    'text',
  );
  // `box`: an agent that draws no input box yet holds no draft
  const qwen = manifests.get('qwen')!;
  const starting = ['  ➜ proj · fake-model', '  ⠋ Initializing...'];
  assert.is(inputBox(screen(starting), qwen), 'absent');
  assert.is(inputHoldsText(screen(starting), qwen), false);
  assert.is(inputBox(screen([rule, '> half a thought', rule, '  ➜ proj · m']), qwen), 'text');
  assert.is(inputBox(screen(starting), claude), 'text', 'no box patterns: taken as drawn');
});

test('[input] errors name the field', () => {
  const head = 'schema = 1\nid = "t"\nname = "T"\nversion = "1"\nprocess = ["t"]\n';
  const rules = '[[rules]]\nstate = "idle"\nany = ["x"]\n';
  for (
    const [body, want] of [
      ['[input]\nregion = "screen"\n', /input: an \[input\] table needs 'empty' patterns/],
      ['[input]\nempty = ["(x"]\n', /input\.empty\[0\]: invalid regex/],
      ['[input]\nempty = ["x"]\nregoin = "screen"\n', /input\.regoin: unknown key 'regoin'/],
      ['[input]\nempty = ["x"]\nbox = []\n', /input\.box: empty pattern list/],
    ] as const
  ) {
    try {
      parseManifest(head + body + rules, 't.toml');
      assert.unreachable(body);
    } catch (e) {
      assert.instance(e, ManifestError);
      assert.match((e as Error).message, want);
    }
  }
});

test.run();
