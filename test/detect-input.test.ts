/** The `[input]` table: where an agent's input box is and what it looks like empty. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inputBox, inputHoldsText, inputShows } from '../src/detect/evaluate.ts';
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
    ['opencode', 'opencode-60'], // opencode's pickers at 24x60
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
      // a menu the person opened covers the input box or takes its keys (Claude Code's /model,
      // /config, rewind, a slash command's list; Gemini CLI's /theme, a slash command's
      // matches; Codex's /model and its slash matches); the person's own draft fills it (a
      // `typed` case: "1. Yes" typed, not sent), and so does a paste's stand-in
      const menu =
        /\.(?:menus|pickers)\.(?!typed)|\.v61-(?:theme|slash)\.|\.v171-(?:model|slash)\./;
      const holds = /[.-]typed\b/.test(file) || /[.-]pasted\b/.test(file);
      const inMenu = menu.test(file);
      const snap = terminal.snapshot();
      assert.is(inputHoldsText(snap, manifests.get(id)!), holds, `${dir}/${file}`);
      // Qwen Code 0.24.4 starting: no composer drawn yet; every other screen draws one
      const drawn = /initializing/.test(file)
        ? 'absent'
        : inMenu
        ? 'menu'
        : holds
        ? 'text'
        : 'empty';
      assert.is(inputBox(snap, manifests.get(id)!), drawn, `${dir}/${file}`);
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

/** A fixture's screen, as the rules read it. */
async function fixture(dir: string, file: string) {
  return (await renderFile(join(ROOT, 'fixtures', dir, file), 32, 120)).terminal.snapshot();
}

test('the text sent shows in the input box: its end, wrapped or not, or a new stand-in for a paste; not under a menu', async () => {
  const claude = manifests.get('claude')!;
  const gemini = manifests.get('gemini')!;
  const qwen = manifests.get('qwen')!;
  const thirty = Array.from({ length: 30 }, (_, i) => `line number ${i}`).join('\n');
  // Claude Code 2.1.332, Gemini CLI 0.61.0, Qwen Code 0.24.4: that 30-line paste, sent by `send`
  // (bracketed), shows as a stand-in
  const closed = await fixture('claude-code', 'claude.idle.after.raw');
  const pasted = await fixture('claude-code', 'claude.idle.pasted.raw'); // [Pasted text #1 +29 lines]
  assert.is(inputShows(pasted, claude, thirty, closed), 'pasted');
  assert.is(inputShows(pasted, claude, thirty), 'pasted');
  // a stand-in that was there before the text was typed is not ours
  assert.is(inputShows(pasted, claude, thirty, pasted), 'none');
  const gPasted = await fixture('gemini-cli', 'gemini-cli.idle.v61-pasted.raw'); // [Pasted Text: 30 lines]
  assert.is(inputShows(gPasted, gemini, thirty), 'pasted');
  const qPasted = await fixture('qwen-code', 'qwen-code.idle.v24-pasted.raw'); // [Pasted Content 439 chars]
  assert.is(inputShows(qPasted, qwen, thirty), 'pasted');
  // a menu took the text: the box is not there, nor the text; the screen is the menu's before
  // and after (a short text's letters are in its words: 'x' in "complex", only more of them
  // would count)
  for (
    const [id, dir, file] of [
      ['claude', 'claude-code', 'claude.idle.menus.model.raw'],
      ['claude', 'claude-code', 'claude.idle.pickers.rewind.raw'],
      ['gemini', 'gemini-cli', 'gemini-cli.idle.v61-theme.raw'],
      ['codex', 'codex', 'codex.idle.v171-model.raw'],
    ] as const
  ) {
    const menu = await fixture(dir, file);
    assert.is(inputShows(menu, manifests.get(id)!, 'x', menu), 'none', file);
    assert.is(inputShows(menu, manifests.get(id)!, 'task-question hi', menu), 'none', file);
    assert.is(inputShows(menu, manifests.get(id)!, 'task-question hi'), 'none', file);
  }
  // the slash command typed into the box shows in it (the box is under a menu all the same)
  const slash = await fixture('claude-code', 'claude.idle.pickers.slash-model.raw');
  assert.is(inputShows(slash, claude, '/model'), 'text');
  assert.is(inputShows(slash, claude, 'something else'), 'none');
  // the end of a text the box wraps over rows (Claude Code 2.1.332 at 120 columns, its box's
  // top rows scrolled out of the region; rows as the real agent drew them)
  const rule = '─'.repeat(120);
  const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') + ' end-of-long';
  const wrapped = screen([
    '❯ word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12 word13',
    '  word14 word15 word16 word17 word18 word19 word20 word21 word22 word23 word24 word25 word26',
    '  word27 word28 word29 word30 word31 word32 word33 word34 word35 word36 word37 word38 word39',
    '  word40 word41 word42 word43 word44 word45 word46 word47 word48 word49 word50 word51 word52',
    '  word53 word54 word55 word56 word57 word58 word59 end-of-long',
    rule,
    '  ⏸ manual mode on',
  ]);
  assert.is(inputShows(wrapped, claude, words), 'text');
  // a wrap inside the last 20 characters, at a blank or not
  const split = screen([
    rule,
    '❯ please fix the flaky te',
    '  st in parser.ts',
    rule,
    '  ⏸ manual mode on',
  ]);
  assert.is(inputShows(split, claude, 'please fix the flaky test in parser.ts'), 'text');
  assert.is(inputShows(split, claude, 'please fix the flaky test in lexer.ts'), 'none');
  // the same words already in the region (the turn before, right above the box): one more
  const prior = screen(['❯ run it', '  ⎿  Done.', rule, '❯\u00a0', rule, '  ⏸ manual mode on']);
  const again = screen(['❯ run it', '  ⎿  Done.', rule, '❯ run it', rule, '  ⏸ manual mode on']);
  assert.is(inputShows(again, claude, 'run it', prior), 'text');
  assert.is(inputShows(prior, claude, 'run it', prior), 'none');
  // opencode 1.18.33 draws its border beside each row of its composer
  const opencode = manifests.get('opencode')!;
  const oc = screen([
    '  ┃',
    '  ┃  a long request that the composer wraps',
    '  ┃  onto a second row',
    '  ┃',
    '  ┃  Build · Fake Model Fake',
    '  ╹' + '▀'.repeat(60),
  ]);
  assert.is(
    inputShows(oc, opencode, 'a long request that the composer wraps onto a second row'),
    'text',
  );
  // blanks only show nothing; an agent with no [input] table: null
  assert.is(inputShows(split, claude, '  \n '), 'text');
  const bare = parseManifest(
    'schema = 1\nid = "t"\nname = "T"\nversion = "1"\nprocess = ["t"]\n[[rules]]\nstate = "idle"\nany = ["x"]\n',
    't.toml',
  );
  assert.is(inputShows(split, bare, 'x'), null);
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
      ['[input]\nempty = ["x"]\nmenu = ["(x"]\n', /input\.menu\[0\]: invalid regex/],
      ['[input]\nempty = ["x"]\npasted = []\n', /input\.pasted: empty pattern list/],
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

test("claude: the input box's top rule labelled with the session's name (claude --name myjob) is still an empty box", () => {
  // tester6: Claude Code 2.1.332 started with --name draws it on the rule above the box
  // (`──── myjob ─`); send was refused "holds text someone typed" for ever. The real idle
  // capture with that rule labelled as the tester saw it.
  const claude = manifests.get('claude')!;
  const rows = readFileSync(
    join(ROOT, 'fixtures', 'claude-code', 'claude.idle.after.screen.txt'),
    'utf8',
  )
    .split('\n');
  const box = rows.findIndex((r, i) => r.startsWith('❯') && /^─{8,}$/.test(rows[i - 1] ?? ''));
  assert.ok(box > 0, 'the box in the capture');
  const labelled = [...rows];
  labelled[box - 1] = '─'.repeat(rows[box - 1].length - 8) + ' myjob ─';
  assert.is(inputBox(screen(labelled), claude), 'empty');
  labelled[box] = '❯ draft number 1';
  assert.is(inputBox(screen(labelled), claude), 'text');
});

test.run();
