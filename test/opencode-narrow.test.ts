/**
 * opencode 1.18.33's permission panel in narrow panes: the recorded session
 * fixtures/opencode/marked/ocnarrow (agentwatch record in a tmux pane; a bash permission panel
 * shown while the pane went 120x32 -> 70x24 -> 60x20 -> 50x20 -> 45x20 -> 40x12 -> 30x10 -> 40x32,
 * allowed with Enter; then a second prompt asked while the pane was 40x12, the pane widened to
 * 60x20, rejected) replayed into a ScreenPane as the sweep looks at it
 * (test/support/recording-pane.ts). At 70 columns or fewer opencode puts the key hints on a row
 * of their own under the buttons, cut at the pane's edge below 46 columns (`enter con`, `enter`):
 * tester4 saw the panel read idle under 50 columns (a prompt asked at 40x12 never announced) and
 * blocked with an empty question and no options at 50-70. Each prompt reads blocked from its
 * first frame to its answer, with its question and its three buttons as options at every size
 * that shows them; at 30x10 (the buttons below the pane's edge) it still reads blocked.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inputBox } from '../src/detect/evaluate.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { promptOn } from '../src/runtime/typing-guard.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { keyTimes, replayRecording } from './support/recording-pane.ts';

const BASE = join(REPO_ROOT, 'fixtures', 'opencode', 'marked', 'ocnarrow');
const OPTIONS = ['1. Allow once', '2. Allow always', '3. Reject'];

test('opencode in narrow panes: each prompt blocked to its answer, its question and options read at every size that shows them', () => {
  const tasks = keyTimes(BASE, 'task-bash');
  const enters = keyTimes(BASE, '\r');
  assert.is(tasks.length, 2);
  // each prompt: from its task's Enter to the Enter that answered it
  const spells = tasks.map((task) => {
    const asked = enters.find((t) => t > task)!;
    return { asked, answered: enters.find((t) => t > asked)! };
  });
  const seen = spells.map(() => ({
    blockedAt: Infinity,
    states: new Set<string>(),
    sizes: new Map<string, string>(),
  }));
  replayRecording(BASE, 'opencode', ({ t, state, rows, cols, terminal }) => {
    spells.forEach((s, k) => {
      if (t <= s.asked || t >= s.answered) return;
      const spell = seen[k];
      if (state === 'blocked') spell.blockedAt = Math.min(spell.blockedAt, t);
      if (t < spell.blockedAt) return; // the agent still working on the task
      spell.states.add(state);
      if (state !== 'blocked' || cols < 40) return;
      // the last read at each size: the panel as opencode redrew it (a look right after a
      // resize sees the old frame cut to the new size; the published prompt keeps the spell's)
      const p = promptOn(terminal);
      spell.sizes.set(`${rows}x${cols}`, `${p.question} | ${p.options.join(', ')}`);
    });
  });
  for (const [k, spell] of seen.entries()) {
    assert.ok(spell.blockedAt < Infinity, `prompt ${k + 1} read blocked`);
    assert.equal([...spell.states], ['blocked'], `prompt ${k + 1}`);
  }
  const read = `Permission required | ${OPTIONS.join(', ')}`;
  const at = (sizes: string[]) => new Map(sizes.map((size) => [size, read]));
  assert.equal(
    seen[0].sizes,
    at(['32x120', '24x70', '20x60', '20x50', '20x45', '12x40', '32x40']),
  );
  assert.equal(seen[1].sizes, at(['12x40', '20x60']), 'the second prompt asked at 40x12');
});

test("opencode's start screen in a narrow pane: the placeholder wrapped over two rows is an empty box, a draft is not", () => {
  // fixtures/opencode/marked/ocplaceholder: opencode started at 40x20 (its placeholder `Ask
  // anything… "Fix a TODO in` / `the codebase"` over two rows), widened to 45, 50, 60, 70, back
  // to 40, then `draft x` typed and cleared with Ctrl-C (tester5: send refused "holds text
  // someone typed" at 40-60 columns, nothing typed).
  const base = join(REPO_ROOT, 'fixtures', 'opencode', 'marked', 'ocplaceholder');
  const manifest = loadBundledManifests().get('opencode')!;
  const draftAt = keyTimes(base, 'draft x')[0];
  // the box at the last look of each stretch (a size, before or after the draft): the screen
  // as opencode drew it, not the old frame cut to a new size right after a resize
  const boxes = new Map<string, string>();
  const segments: string[] = [];
  replayRecording(base, 'opencode', ({ t, cols, terminal }) => {
    const key = `${cols} ${t < draftAt ? 'before' : t < draftAt + 1.5 ? 'draft' : 'after'}`;
    if (segments.at(-1) !== key) segments.push(key);
    boxes.set(`${segments.length} ${key}`, inputBox(terminal.snapshot(), manifest) ?? 'none');
  });
  const at = (key: string) => [...boxes].filter(([k]) => k.endsWith(` ${key}`)).map(([, v]) => v);
  for (const cols of [40, 45, 50, 60, 70]) {
    assert.ok(at(`${cols} before`).length, `${cols} columns shown`);
    for (const box of at(`${cols} before`)) assert.is(box, 'empty', `${cols} columns`);
  }
  assert.equal(at('40 draft'), ['text']);
});

test("opencode's question dialog in narrow panes: blocked at 50, 45 and 40 columns, its question and options read", () => {
  // fixtures/opencode/marked/ocqnarrow: `task-ask` (opencode's question tool) at 50x24, the
  // pane narrowed to 45x24 (hints closed up: `↑↓ select enter submit  esc dismiss`), 40x24 and
  // 40x12 (hints on two rows: `↑↓       enter       esc` / `select   submit      dismiss`),
  // back to 45x20, 50x24, then 40x20, where Down and Enter picked SQLite (tester5: idle under
  // 50 columns, never announced; shrinking a blocked one turned it idle).
  const base = join(REPO_ROOT, 'fixtures', 'opencode', 'marked', 'ocqnarrow');
  const [asked] = keyTimes(base, '\r');
  const answered = keyTimes(base, '\r').at(-1)!;
  const states = new Set<string>();
  const last = new Map<string, string>(); // size -> the prompt read at its last look
  let blockedAt = Infinity;
  replayRecording(base, 'opencode', ({ t, state, rows, cols, terminal }) => {
    if (t <= asked || t >= answered) return;
    if (state === 'blocked') blockedAt = Math.min(blockedAt, t);
    if (t < blockedAt) return;
    states.add(state);
    const p = promptOn(terminal, true);
    last.set(`${rows}x${cols}`, `${p.question} | ${p.options.join(', ')}`);
  });
  assert.equal([...states], ['blocked']);
  const read = 'Which database should I use? | 1. Postgres (Recommended), 2. SQLite, ' +
    '3. Type your own answer';
  assert.equal(
    last,
    new Map(['24x50', '24x45', '24x40', '12x40', '20x45', '20x40'].map((size) => [size, read])),
  );
});

test('opencode in a 40x10 pane: the key hints below the edge, the buttons on the last row are still its options', () => {
  // fixtures/opencode/marked/ocshort: opencode started at 40x10, `task-bash`, the panel's
  // button row on the screen's last row (its hints below the edge), rejected with Right, Right,
  // Enter (tester5: blocked, but the notice had no question and no options, and `answer` said
  // the pane was too small though the buttons showed).
  const base = join(REPO_ROOT, 'fixtures', 'opencode', 'marked', 'ocshort');
  const [, answered] = keyTimes(base, '\r');
  const read = new Set<string>();
  const selected: number[] = [];
  replayRecording(base, 'opencode', ({ t, state, terminal }) => {
    if (state !== 'blocked' || t >= answered) return;
    const p = promptOn(terminal, true);
    read.add(`${p.question} | ${p.options.join(', ')} | ${p.details.join(' / ')}`);
    if (selected.at(-1) !== p.selected) selected.push(p.selected);
  });
  // the command wrapped over two rows (`$ touch ran_tests_21.txt &&` / `echo tests passed`) is
  // one detail: the notice's action names all of it (tester5: it said `touch ... &&`)
  assert.equal([...read], [
    `Permission required | ${OPTIONS.join(', ')} | # Shell command / ` +
    '$ touch ran_tests_21.txt && echo tests passed',
  ]);
  assert.equal(selected, [0, 2], 'Right, Right (one write) moved the selection to Reject');
});

test.run();
