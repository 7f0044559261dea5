/**
 * A resized screen is not read until its program redraws it (src/runtime/screen-pane.ts,
 * RESIZE_HOLD_MS): the recorded session fixtures/opencode/marked/ocresize (agentwatch record,
 * opencode-ai 1.18.33, its edit permission panel shown while the pane went 120x32 -> 100x30 ->
 * 80x24 -> 60x20 -> 120x32 -> 90x28 -> 120x32, 3 s apart, then rejected) replayed into a
 * ScreenPane as the sweep looks at it (test/support/recording-pane.ts). Right after the resize
 * to 80 columns, the old 120-column button row cut at column 80 lost its `enter confirm`, and
 * that frame read idle until opencode redrew the panel (its first output after the resize is
 * `CSI 14 t`, a query that draws nothing; the redraw comes 50-150 ms later): tester4 saw
 * blocked -> idle -> blocked and a second notice for one prompt. Held, the spell stays blocked
 * from the panel's first frame to the person's Enter.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { keyTimes, replayRecording } from './support/recording-pane.ts';

const BASE = join(REPO_ROOT, 'fixtures', 'opencode', 'marked', 'ocresize');

/**
 * opencode's manifest without the rule that reads a panel cut at the pane's bottom edge as
 * blocked (which also catches most cut frames): the hold must keep the spell blocked whatever
 * the rules make of a frame that is not the agent's.
 */
function withoutCutPanelRule() {
  const all = loadBundledManifests();
  const m = all.get('opencode')!;
  const rules = m.rules.filter((r) => !/below the pane's edge/.test(r.name ?? ''));
  assert.is(rules.length, m.rules.length - 1, 'the rule is there to leave out');
  return new Map([...all, ['opencode', { ...m, rules }]]);
}

/** The states read over the replay, each with the recording time (s) it began. */
function states(hold: boolean, manifests = loadBundledManifests()) {
  const out: Array<{ t: number; state: string }> = [];
  replayRecording(
    BASE,
    'opencode',
    ({ t, state }) => {
      if (out.at(-1)?.state !== state) out.push({ t, state });
    },
    hold,
    manifests,
  );
  return out;
}

test('opencode resized while its permission panel shows: blocked throughout, not idle for a cut frame', () => {
  const answered = keyTimes(BASE, '\r').at(-1)!;
  const spell = (all: Array<{ t: number; state: string }>) => {
    const from = all.findIndex((s) => s.state === 'blocked');
    assert.ok(from >= 0, 'the panel read blocked');
    return all.slice(from).filter((s) => s.t < answered);
  };
  for (const manifests of [loadBundledManifests(), withoutCutPanelRule()]) {
    const held = states(true, manifests);
    assert.equal(spell(held).map((s) => s.state), ['blocked'], JSON.stringify(held));
    // After the answer it works and ends idle, as recorded.
    assert.is(held.at(-1)!.state, 'idle', JSON.stringify(held));
  }
  // Without the resize times, the cut frame is read: the check above can fail.
  const unheld = spell(states(false, withoutCutPanelRule()));
  assert.ok(unheld.some((s) => s.state === 'idle'), JSON.stringify(unheld));
});

test.run();
