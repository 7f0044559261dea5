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
  assert.equal([...seen[0].sizes.keys()], [
    '32x120',
    '24x70',
    '20x60',
    '20x50',
    '20x45',
    '12x40',
    '32x40',
  ]);
  assert.equal([...seen[1].sizes.keys()], ['12x40', '20x60'], 'the second prompt asked at 40x12');
});

test.run();
