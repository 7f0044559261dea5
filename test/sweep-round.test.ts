/**
 * The periodic sweep's round on a virtual clock (src/eval/clock.ts) with in-memory sessions:
 * every pane's foreground is read once per interval, whatever the number of panes; past
 * PANES_PER_TICK_PART panes the round is spread over the interval in parts, none holding more
 * than its share; a few panes are swept in one go, at the interval; a pane removed mid-round
 * is not visited; a late round first finishes the one before.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VirtualClock } from '../src/eval/clock.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import {
  DEFAULT_INTERVAL_MS,
  MAX_TICK_PARTS,
  PANES_PER_TICK_PART,
  Sweep,
  type SweptSession,
} from '../src/runtime/sweep.ts';
import { Terminal } from '../src/vt/terminal.ts';

const manifests = loadBundledManifests();
const T0 = 1_000_000;

/** A session without a PTY or output. */
function session(id: string): SweptSession {
  return {
    id,
    spec: { agent: 'claude', command: 'claude', args: [] },
    terminal: new Terminal(32, 120),
    inputsVersion: 0,
    exit: null,
    report: null,
    onOutput: () => () => {},
    onExit: () => () => {},
  };
}

/** A started sweep of `n` sessions on `clock`, noting when each session's foreground is read. */
function setup(clock: VirtualClock, n: number) {
  const reads = new Map<string, number[]>();
  const sweep = new Sweep<SweptSession>({
    manifests: () => manifests,
    foreground: (s) => {
      reads.set(s.id, [...(reads.get(s.id) ?? []), clock.now()]);
      return { pgid: 1, name: 'claude', argv: ['claude'] };
    },
    now: clock.now,
    timers: clock,
  });
  for (let i = 0; i < n; i++) sweep.add(session(`s${i}`));
  sweep.start();
  return { sweep, reads };
}

test('1000 panes: each read once per interval, the round spread in parts', () => {
  const clock = new VirtualClock(T0);
  const { sweep, reads } = setup(clock, 1000);
  clock.advanceTo(T0 + 4 * DEFAULT_INTERVAL_MS - 1); // three whole rounds
  const byTime = new Map<number, number>();
  for (let i = 0; i < 1000; i++) {
    const at = reads.get(`s${i}`) ?? [];
    assert.is(at.length, 3, `s${i} read ${at.length} times in three rounds`);
    for (let k = 1; k < at.length; k++) assert.is(at[k] - at[k - 1], DEFAULT_INTERVAL_MS);
    for (const t of at) byTime.set(t, (byTime.get(t) ?? 0) + 1);
  }
  // in parts: at most the share of one part at once, over the whole interval
  const parts = Math.min(MAX_TICK_PARTS, Math.ceil(1000 / PANES_PER_TICK_PART));
  assert.ok(Math.max(...byTime.values()) <= Math.ceil(1000 / parts), 'one part at a time');
  const first = [...byTime.keys()].filter((t) => t < T0 + 2 * DEFAULT_INTERVAL_MS);
  assert.is(first.length, parts, 'parts in the first round');
  assert.ok(Math.max(...first) - Math.min(...first) < DEFAULT_INTERVAL_MS);
  sweep.stop();
});

test('a few panes are swept in one go, at the interval', () => {
  const clock = new VirtualClock(T0);
  const { sweep, reads } = setup(clock, PANES_PER_TICK_PART);
  clock.advanceTo(T0 + 2 * DEFAULT_INTERVAL_MS);
  for (const at of reads.values()) {
    assert.equal(at, [T0 + DEFAULT_INTERVAL_MS, T0 + 2 * DEFAULT_INTERVAL_MS]);
  }
  assert.is(reads.size, PANES_PER_TICK_PART);
  sweep.stop();
});

test('a pane removed mid-round is not visited; stop ends the round', () => {
  const clock = new VirtualClock(T0);
  const { sweep, reads } = setup(clock, 200);
  clock.advanceTo(T0 + DEFAULT_INTERVAL_MS); // the first part of the first round
  assert.ok(!reads.has('s199'));
  sweep.remove('s199');
  clock.advanceTo(T0 + 2 * DEFAULT_INTERVAL_MS - 1);
  assert.ok(!reads.has('s199'), 'removed');
  assert.is(reads.get('s198')?.length, 1);
  sweep.stop();
  const before = reads.get('s100')!.length;
  clock.advanceTo(T0 + 5 * DEFAULT_INTERVAL_MS);
  assert.is(reads.get('s100')!.length, before, 'stopped');
});

test('tick() sweeps every pane at once (tests and hosts drive it by hand)', () => {
  const clock = new VirtualClock(T0);
  const reads = new Map<string, number>();
  const sweep = new Sweep<SweptSession>({
    manifests: () => manifests,
    foreground: (s) => {
      reads.set(s.id, (reads.get(s.id) ?? 0) + 1);
      return null;
    },
    now: clock.now,
    timers: clock,
  });
  for (let i = 0; i < 500; i++) sweep.add(session(`s${i}`));
  sweep.tick();
  assert.is(reads.size, 500);
  assert.ok([...reads.values()].every((n) => n === 1));
});

test.run();
