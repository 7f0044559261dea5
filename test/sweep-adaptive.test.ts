/**
 * The adaptive sweep's scheduling, on a virtual clock (src/eval/clock.ts) with in-memory
 * sessions (our Terminal, no PTY): one timer serves every session's adaptive look, a session
 * is looked at soon after its output (within ADAPTIVE_MIN_MS + ADAPTIVE_SLOT_MS of its last
 * look) but never twice within ADAPTIVE_MIN_MS (SPINNER_LOOK_MS while only a working
 * session's spinner row changes, and at once again when anything else does), a pending working -> idle confirmation is
 * taken without new output, and a removed session is not looked at again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VirtualClock } from '../src/eval/clock.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { IDLE_CONFIRM_MS } from '../src/runtime/signals.ts';
import {
  ADAPTIVE_MIN_MS,
  ADAPTIVE_SLOT_MS,
  SPINNER_LOOK_MS,
  Sweep,
  type SweptSession,
} from '../src/runtime/sweep.ts';
import { type ScreenPane, SPINNER_STREAK } from '../src/runtime/screen-pane.ts';
import { Terminal } from '../src/vt/terminal.ts';

const manifests = loadBundledManifests();
const enc = new TextEncoder();

/** A session without a PTY: output goes to its Terminal and its listeners. */
class MemorySession implements SweptSession {
  readonly spec = { agent: 'claude', command: 'claude', args: [] as string[] };
  readonly terminal = new Terminal(32, 120);
  inputsVersion = 0;
  exit = null;
  report = null;
  readonly #listeners: ((d: Uint8Array) => void)[] = [];
  constructor(readonly id: string) {}
  onOutput(l: (d: Uint8Array) => void) {
    this.#listeners.push(l);
    return () => {};
  }
  onExit() {
    return () => {};
  }
  output(text: string): void {
    const data = enc.encode(text);
    this.terminal.write(data);
    for (const l of this.#listeners) l(data);
  }
}

/** A sweep on `clock` counting the timers it holds at once. */
function setup(clock: VirtualClock) {
  let live = 0;
  let most = 0;
  const timers = {
    setTimeout: (f: () => void, ms: number) => {
      live++;
      most = Math.max(most, live);
      return clock.setTimeout(() => {
        live--;
        f();
      }, ms);
    },
    clearTimeout: (h: unknown) => {
      live--;
      clock.clearTimeout(h);
    },
    setInterval: clock.setInterval,
    clearInterval: clock.clearInterval,
  };
  const looks = new Map<string, number[]>();
  const sweep = new Sweep<MemorySession>({
    adaptive: true,
    manifests: () => manifests,
    foreground: () => ({ pgid: 1, name: 'claude', argv: ['claude'] }),
    onTransition: () => {},
    onEvaluated: (w: ScreenPane<MemorySession>) => {
      const l = looks.get(w.session.id) ?? [];
      l.push(clock.now());
      looks.set(w.session.id, l);
    },
    now: clock.now,
    timers,
  });
  return { sweep, looks, mostTimers: () => most };
}

const SPINNER = (frame: number) =>
  `\x1b[5;1H\x1b[2K${'·✢✳✶✻✽'[frame % 6]} Churning… (${frame}s · esc to interrupt)`;

test('one timer serves 200 spinning sessions; each looked at within its bounds', () => {
  const clock = new VirtualClock(1_000_000);
  const { sweep, looks, mostTimers } = setup(clock);
  const sessions = Array.from({ length: 200 }, (_, i) => new MemorySession(`s${i}`));
  for (const s of sessions) sweep.add(s);
  // every session draws a spinner frame every 100 ms, each at its own phase, for 3 s
  for (let t = 0; t < 3000; t += 10) {
    clock.advanceTo(1_000_000 + t);
    for (let i = 0; i < sessions.length; i++) {
      if ((t + i * 10) % 100 === 0) sessions[i].output(SPINNER(Math.floor(t / 100)));
    }
  }
  clock.advanceTo(1_000_000 + 3500);
  assert.is(mostTimers(), 1, 'one timer at a time');
  for (const s of sessions) {
    const at = looks.get(s.id) ?? [];
    assert.ok(at.length >= 9, `${s.id}: ${at.length} looks in 3 s`);
    for (let k = 1; k < at.length; k++) {
      const gap = at[k] - at[k - 1];
      assert.ok(gap >= ADAPTIVE_MIN_MS, `${s.id}: looks ${gap} ms apart`);
      // the spinner's row taken for a spinner after SPINNER_STREAK looks: then looked at less
      const most = k <= SPINNER_STREAK ? 2 * ADAPTIVE_MIN_MS : SPINNER_LOOK_MS;
      assert.ok(gap <= most + ADAPTIVE_SLOT_MS, `${s.id}: a gap of ${gap} ms (look ${k})`);
      if (k > SPINNER_STREAK + 1) {
        assert.ok(gap >= SPINNER_LOOK_MS, `${s.id}: ${gap} ms (look ${k})`);
      }
    }
  }
  sweep.stop();
});

/** Output of a session that works with a spinner on row 5 until its spinner is taken for one. */
function spinning(clock: VirtualClock, s: MemorySession, w: ScreenPane<MemorySession>) {
  for (let f = 0; w.spinnerChange < 0; f++) {
    assert.ok(f < 20, 'the spinner was never taken for one');
    s.output(SPINNER(f));
    clock.advanceTo(clock.now() + 100);
  }
  assert.is(w.record.state, 'working', w.record.reason);
}

test('while only its spinner changes a working session is looked at every SPINNER_LOOK_MS; a dialog is seen at once', () => {
  for (const round of [1, 2]) {
    const clock = new VirtualClock(round * 20_000_000);
    const { sweep, looks } = setup(clock);
    const s = new MemorySession(`d${round}`);
    const w = sweep.add(s);
    spinning(clock, s, w);
    const before = looks.get(s.id)!.length;
    // two more spinner frames in 200 ms: not looked at before SPINNER_LOOK_MS
    const last = looks.get(s.id)!.at(-1)!;
    s.output(SPINNER(50));
    clock.advanceTo(clock.now() + 100);
    s.output(SPINNER(51));
    clock.advanceTo(last + SPINNER_LOOK_MS - 1);
    assert.is(looks.get(s.id)!.length, before, 'a spinner frame is not news');
    clock.advanceTo(last + SPINNER_LOOK_MS + ADAPTIVE_SLOT_MS);
    assert.is(looks.get(s.id)!.length, before + 1, 'looked at after SPINNER_LOOK_MS');
    // a spinner frame, then the dialog in place of the spinner (as Claude Code draws it)
    s.output(SPINNER(52));
    clock.advanceTo(clock.now() + 10);
    s.output(
      '\x1b[5;1H\x1b[2K\x1b[20;1H ❯ 1. Yes\r\n   2. No\r\n Do you want to proceed?\r\n Esc to cancel · Tab to amend',
    );
    const shown = clock.now();
    clock.advanceTo(shown + ADAPTIVE_MIN_MS + ADAPTIVE_SLOT_MS);
    assert.is(w.record.state, 'blocked', `round ${round}: ${w.record.reason}`);
    sweep.stop();
  }
});

test('a change beside the spinner row, or of the title alone, is looked at after ADAPTIVE_MIN_MS', () => {
  const clock = new VirtualClock(40_000_000);
  const { sweep, looks } = setup(clock);
  const s = new MemorySession('t');
  const w = sweep.add(s);
  spinning(clock, s, w);
  for (const change of ['\x1b[9;1Hone more line of output', '\x1b]0;✳ a new title\x07']) {
    const last = looks.get(s.id)!.at(-1)!;
    clock.advanceTo(last + 20);
    s.output(SPINNER(60) + change);
    clock.advanceTo(last + ADAPTIVE_MIN_MS + ADAPTIVE_SLOT_MS);
    assert.is(looks.get(s.id)!.at(-1), last + ADAPTIVE_MIN_MS, JSON.stringify(change));
    spinning(clock, s, w);
  }
  sweep.stop();
});

test('the first output is looked at within one slot; a prompt is seen without a tick', () => {
  const clock = new VirtualClock(5_000_000);
  const { sweep, looks } = setup(clock);
  const s = new MemorySession('p');
  const w = sweep.add(s);
  clock.advanceTo(5_000_000 + 1000);
  s.output(
    '\x1b[20;1H ❯ 1. Yes\r\n   2. No\r\n Do you want to proceed?\r\n Esc to cancel · Tab to amend',
  );
  const shown = clock.now();
  clock.advanceTo(shown + ADAPTIVE_SLOT_MS);
  assert.is(looks.get('p')?.length, 1);
  assert.ok(looks.get('p')![0] - shown <= ADAPTIVE_SLOT_MS);
  assert.is(w.record.state, 'blocked', w.record.reason);
  sweep.stop();
});

test('a working -> idle confirmation is taken without new output', () => {
  const clock = new VirtualClock(9_000_000);
  const { sweep } = setup(clock);
  const s = new MemorySession('i');
  const w = sweep.add(s);
  s.output(SPINNER(1));
  clock.advanceTo(clock.now() + 200);
  assert.is(w.record.state, 'working', w.record.reason);
  // the spinner row is erased and the idle footer drawn: no more output after this
  s.output(
    '\x1b[5;1H\x1b[2K\x1b[30;1H────────────────\r\n❯\r\n────────────────\r\n  ? for shortcuts',
  );
  clock.advanceTo(clock.now() + ADAPTIVE_MIN_MS + IDLE_CONFIRM_MS + 3 * ADAPTIVE_SLOT_MS);
  assert.is(w.record.state, 'idle', w.record.reason);
  sweep.stop();
});

test('a removed session is not looked at again; stop() leaves no timer', () => {
  const clock = new VirtualClock(0);
  const { sweep, looks } = setup(clock);
  const a = new MemorySession('a');
  const b = new MemorySession('b');
  sweep.add(a);
  sweep.add(b);
  clock.advanceTo(1000);
  a.output(SPINNER(1));
  b.output(SPINNER(1));
  sweep.remove('a');
  clock.advanceTo(1200);
  assert.is(looks.get('a'), undefined);
  assert.is(looks.get('b')?.length, 1);
  b.output(SPINNER(2));
  sweep.stop();
  assert.is(clock.pending, 0);
});

test.run();
