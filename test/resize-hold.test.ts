/**
 * A resized screen is not read until its program redraws it (src/runtime/screen-pane.ts,
 * RESIZE_HOLD_MS): the recorded session fixtures/opencode/marked/ocresize (agentwatch record,
 * opencode-ai 1.18.33, its edit permission panel shown while the pane went 120x32 -> 100x30 ->
 * 80x24 -> 60x20 -> 120x32 -> 90x28 -> 120x32, 3 s apart, then rejected) replayed one PTY read
 * at a time into a {@link ScreenPane}, looked at as the sweep does: at each resize (it bumps the
 * inputs), every 100 ms while the screen is still, just before each read and after it. Right after the resize
 * to 80 columns, the old 120-column button row cut at column 80 lost its `enter confirm`, and
 * that frame read idle until opencode redrew the panel (its first output after the resize is
 * `CSI 14 t`, a query that draws nothing; the redraw comes 50-150 ms later) (tester4: blocked -> idle -> blocked and a
 * second notice for one prompt). Held, the spell stays blocked from the panel's first frame to
 * the person's Enter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { ScreenPane, type SweptSession } from '../src/runtime/screen-pane.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { REPO_ROOT } from './support/claude-home.ts';

const BASE = join(REPO_ROOT, 'fixtures', 'opencode', 'marked', 'ocresize');

/**
 * The states a pane reads over the replay, each with the recording time (s) it began; `hold`:
 * the session tells its resize and output times (as a PTY session does), so a resized screen
 * waits for its redraw.
 */
function replay(hold: boolean): Array<{ t: number; state: string }> {
  const meta = JSON.parse(readFileSync(`${BASE}.meta.json`, 'utf8'));
  const manifests = loadBundledManifests();
  const term = new Terminal(meta.rows, meta.cols);
  const start = Date.parse(meta.started);
  let clock = start;
  const session: SweptSession & { resizedAt: number; lastOutput: number; resizedVersion: number } =
    {
      id: 'oc',
      spec: { agent: 'opencode', command: 'opencode', args: [] },
      terminal: term,
      inputsVersion: 0,
      exit: null,
      report: null,
      resizedAt: 0,
      lastOutput: 0,
      resizedVersion: -1,
      onOutput: () => () => {},
      onExit: () => () => {},
    };
  const pane = new ScreenPane(session, {
    manifests: () => manifests,
    foreground: () => null,
    now: () => clock,
  });
  const states: Array<{ t: number; state: string }> = [];
  const look = () => {
    pane.classifyNow();
    const state = pane.record.state;
    if (states.at(-1)?.state !== state) states.push({ t: (clock - start) / 1000, state });
  };
  /** The sweep's looks while the screen is still: every 100 ms until recording time `t` (s). */
  const ticks = (t: number) => {
    for (let at = clock + 100; at < start + t * 1000; at += 100) {
      clock = at;
      look();
    }
  };
  const resizes: Array<{ t: number; rows: number; cols: number }> = [...meta.resizes];
  for (const line of readFileSync(`${BASE}.bytes.jsonl`, 'utf8').split('\n')) {
    if (!line) continue;
    const { t, b64 } = JSON.parse(line) as { t: number; b64: string };
    while (resizes.length && resizes[0].t <= t) {
      const r = resizes.shift()!;
      ticks(r.t);
      clock = start + r.t * 1000;
      term.resize(r.rows, r.cols);
      if (hold) session.resizedAt = clock;
      if (hold) session.resizedVersion = term.version;
      session.inputsVersion++;
      look();
    }
    ticks(t);
    clock = start + t * 1000;
    look(); // the screen as it stood just before the read
    if (hold) session.lastOutput = clock;
    term.write(Buffer.from(b64, 'base64'));
    look();
  }
  return states;
}

/** The recording time (s) of the person's Enter that rejected the panel. */
function answeredAt(): number {
  const keys = readFileSync(`${BASE}.input.jsonl`, 'utf8').trim().split('\n').map((l) =>
    JSON.parse(l) as { t: number; keys: string }
  );
  return keys.filter((k) => k.keys === '\r').at(-1)!.t;
}

test('opencode resized while its permission panel shows: blocked throughout, not idle for a cut frame', () => {
  const answered = answeredAt();
  const spell = (states: Array<{ t: number; state: string }>) => {
    const from = states.findIndex((s) => s.state === 'blocked');
    assert.ok(from >= 0, 'the panel read blocked');
    return states.slice(from).filter((s) => s.t < answered);
  };
  const held = spell(replay(true));
  assert.equal(held.map((s) => s.state), ['blocked'], JSON.stringify(held));
  // The same replay without the resize times reads the cut frame: the check above can fail.
  const unheld = spell(replay(false));
  assert.ok(unheld.some((s) => s.state === 'idle'), JSON.stringify(unheld));
  // After the answer it works and ends idle, as recorded.
  const all = replay(true);
  assert.is(all.at(-1)!.state, 'idle', JSON.stringify(all));
});

test.run();
