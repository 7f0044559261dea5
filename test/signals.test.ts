import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  decide,
  DEFAULT_REPORT_TTL_MS,
  IDLE_CONFIRM_MS,
  initialState,
  type Report,
  REPORT_GRACE_MS,
  type SignalInput,
  STARTING_STILL_MS,
  type StateRecord,
} from '../src/runtime/signals.ts';
import type { Evaluation, RuleState } from '../src/detect/types.ts';
import { NotifyGate } from '../src/runtime/notify-gate.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';

/** A screen evaluation: a matched rule of `state`, or no rule matched (null). */
const screen = (state: RuleState | null): Evaluation => ({
  state: state ?? 'idle',
  rule: state === null ? null : 0,
  pattern: null,
  match: null,
  region: null,
  reason: state === null ? 'no rule matched' : `screen ${state}`,
});
const rep = (state: RuleState, at: number, source = `report ${state}`): Report => ({
  state,
  at,
  source,
});
const at = (
  now: number,
  seen: RuleState | null,
  report: Report | null,
  extra: Partial<SignalInput> = {},
): SignalInput => ({
  now,
  evaluation: screen(seen),
  foreground: 'agent',
  foregroundName: 'claude',
  exit: null,
  report,
  ...extra,
});

/** Runs a sequence of inputs from the initial state; returns every record. */
function run(inputs: SignalInput[]): StateRecord[] {
  let r = initialState(0);
  return inputs.map((i) => (r = decide(r, i)));
}

test('a session that has only started (no prompt submitted) is idle, not working', () => {
  const [r] = run([at(10, null, null)]);
  assert.is(r.state, 'idle');
});

test('an agent that draws no input box yet is starting: working until it draws one, then idle', () => {
  // Qwen Code 0.24.4: blank, then its banner, then `Initializing...`, then the composer; its
  // manifest says what its input box looks like ([input] box)
  const states = run([
    at(10, null, null, { inputDrawn: false }),
    at(800, null, null, { inputDrawn: false }),
    at(4_000, null, null, { inputDrawn: true }),
    at(4_000 + IDLE_CONFIRM_MS, null, null, {}), // the box seen once: no longer asked
    at(9_000, null, null, {}),
  ]).map((r) => r.state);
  assert.equal(states, ['working', 'working', 'working', 'idle', 'idle']);
  // no box patterns in the manifest (inputDrawn absent): no rule matched reads idle as before
  assert.is(run([at(10, null, null)])[0].state, 'idle');
  // a rule that matches decides, box or not
  assert.is(run([at(10, 'idle', null, { inputDrawn: false })])[0].state, 'idle');
});

test('a starting screen still for STARTING_STILL_MS reads idle; started again in its shell, it starts again', () => {
  const still = { inputDrawn: false, screenChangedAt: 100 };
  let r = initialState(0, 'box');
  r = decide(r, at(100, null, null, still));
  assert.is(r.state, 'working');
  r = decide(r, at(100 + STARTING_STILL_MS - 1, null, null, still));
  assert.is(r.state, 'working', 'not yet');
  r = decide(r, at(100 + STARTING_STILL_MS, null, null, still));
  assert.is(r.state, 'idle', r.reason);
  assert.match(r.reason, /the screen still for 45 s: not starting any more/);
  // the screen moves (the person in an unknown dialog): it stays idle
  r = decide(r, at(60_000, null, null, { inputDrawn: false, screenChangedAt: 60_000 }));
  assert.is(r.state, 'idle', r.reason);
  // the agent ends, and is started again in the same shell: a new start-up
  r = decide(r, at(61_000, null, null, { foreground: 'shell', foregroundName: 'bash' }));
  assert.is(r.state, 'exited');
  r = decide(r, at(62_000, null, null, { inputDrawn: false, screenChangedAt: 62_000 }));
  assert.is(r.state, 'working', r.reason);
  assert.match(r.reason, /^starting/);
});

test('ready and worked: idle before any turn is ready (not done); a turn after it is work', () => {
  const claude = run([at(10, 'idle', null), at(800, 'idle', null), at(5_000, 'working', null)]);
  assert.equal(claude.map((r) => [r.state, !!r.worked]), [
    ['idle', false],
    ['idle', false],
    ['working', true],
  ]);
  // an agent starting (working from its start) is not at work until it was ready once
  let r = initialState(0, 'box');
  r = decide(r, at(10, 'working', null));
  assert.not.ok(r.worked);
  r = decide(r, at(4_000, 'idle', null));
  r = decide(r, at(4_000 + IDLE_CONFIRM_MS, 'idle', null));
  assert.is(r.state, 'idle');
  assert.not.ok(r.worked, 'its start-up is no turn');
  r = decide(r, at(9_000, 'blocked', null));
  assert.ok(r.worked);
});

test('ready and worked: a dialog before the agent was ready (trust, API key) is no task', () => {
  // Claude Code 2.1.332 in a new folder: a blank screen (no rule matched), the trust dialog,
  // then its idle screen
  const trust = run([at(10, null, null), at(900, 'blocked', null), at(5_000, 'idle', null)]);
  assert.equal(trust.map((r) => [r.state, !!r.worked]), [
    ['idle', false],
    ['blocked', false],
    ['idle', false],
  ]);
  // a fallback idle counts as ready once the agent's input box was seen (Qwen Code)
  const qwen = run([
    at(10, null, null, { inputDrawn: true }),
    at(800, null, null),
    at(5_000, 'blocked', null),
  ]);
  assert.ok(qwen[2].worked, 'its idle composer was drawn: the prompt after it is a turn');
});

test('ready and worked: the agent ended and started again in its shell is a new run', () => {
  const states = run([
    at(10, 'idle', null),
    at(800, 'working', null),
    at(5_000, 'idle', null),
    at(5_000 + IDLE_CONFIRM_MS, 'idle', null),
    at(9_000, 'idle', null, { foreground: 'shell', foregroundName: 'bash' }),
    at(12_000, 'idle', null),
  ]);
  assert.ok(states[3].worked);
  assert.is(states[4].state, 'exited');
  assert.is(states[5].state, 'idle');
  assert.not.ok(states[5].worked, 'the new run did no task yet');
  assert.ok(states[5].ready);
});

test('a report beats the working/idle screen rules and says which signal decided', () => {
  const r = rep('working', 100, 'hook UserPromptSubmit');
  const [a] = run([at(150, 'idle', r)]);
  assert.is(a.state, 'working');
  assert.is(a.by, 'report');
  assert.match(a.reason, /UserPromptSubmit/);
});

test('a blocked read from the screen always counts, over any report', () => {
  const [a] = run([at(100, 'blocked', rep('working', 90))]);
  assert.is(a.state, 'blocked');
  assert.is(a.by, 'screen');
});

test('a blocked report is cleared when the screen then shows a working or idle rule (Esc on the prompt)', () => {
  const r = rep('blocked', 1000, 'hook PermissionRequest');
  const seq = run([
    at(1050, 'working', r), // prompt not drawn yet (0.2 s later in Claude Code): the report counts
    at(1250, 'blocked', r), // drawn: screen agrees
    at(3000, 'idle', r), // the person pressed Esc: no hook fires, the screen shows the idle footer
  ]);
  assert.equal(seq.map((s) => s.state), ['blocked', 'blocked', 'idle']);
  assert.is(seq[0].by, 'report');
  assert.is(seq[2].by, 'screen');
  // and it stays cleared: the same report does not come back
  const later = decide(seq[2], at(3500, 'idle', r));
  assert.is(later.state, 'idle');
});

test('a blocked report is cleared after the grace even if the screen never showed the prompt', () => {
  const r = rep('blocked', 0);
  const seq = run([
    at(100, 'working', r),
    at(REPORT_GRACE_MS - 1, 'working', r),
    at(REPORT_GRACE_MS, 'working', r),
  ]);
  assert.equal(seq.map((s) => s.state), ['blocked', 'blocked', 'working']);
});

test('an approved prompt: the tool runs, the screen shows working, the blocked report stops counting', () => {
  const r = rep('blocked', 0);
  const seq = run([at(300, 'blocked', r), at(5000, 'working', r)]);
  assert.equal(seq.map((s) => s.state), ['blocked', 'working']);
});

/** An in-band state read by an OSC rule (Claude Code's OSC 7501). */
const osc = (state: RuleState): Evaluation => ({
  ...screen(state),
  region: 'osc 7501',
  reason: `OSC 7501 ${state}`,
});

test("an in-band state unchanged since a working or idle report came does not contradict it (Claude Code's OSC 7501 says working while its Stop hook runs)", () => {
  const done = rep('idle', 1000, 'report done');
  const seq = run([
    at(500, 'working', null, { evaluation: osc('working') }),
    // the Stop hook's report: OSC 7501 still says working (Claude Code sends done later)
    at(2000, 'working', done, { evaluation: osc('working') }),
    at(1000 + REPORT_GRACE_MS + 500, 'working', done, { evaluation: osc('working') }),
    at(1000 + REPORT_GRACE_MS + 900, 'idle', done, { evaluation: osc('idle') }),
    // the next turn: the in-band state changed after the report, and it counts at once
    at(1000 + REPORT_GRACE_MS + 5000, 'working', done, { evaluation: osc('working') }),
  ]);
  assert.equal(seq.map((s) => s.state), ['working', 'idle', 'idle', 'idle', 'working']);
  assert.equal(seq.map((s) => s.by), ['osc', 'report', 'report', 'report', 'osc']);
  // the same turn through screen rules only: the grace applies as before
  const plain = run([
    at(500, 'working', null),
    at(2000, 'working', done),
    at(1000 + REPORT_GRACE_MS + 500, 'working', done),
  ]);
  assert.equal(plain.map((s) => s.state), ['working', 'idle', 'working']);
});

test('a new turn under an in-band state that never changed: the screen beneath it, which agreed with the report, contradicts it (agentwatch-claude CI20: the next prompt read idle until its dialog)', () => {
  /** OSC 7501 says `state`; the screen's own rules beneath it read `beneath`. */
  const under = (state: RuleState, beneath: RuleState | null): Evaluation => ({
    ...osc(state),
    screenState: beneath,
  });
  const done = rep('idle', 1000, 'report done');
  const seq = run([
    at(500, 'working', null, { evaluation: under('working', 'working') }),
    // the Stop report comes while OSC 7501 still says working and the spinner still shows
    at(1200, 'working', done, { evaluation: under('working', 'working') }),
    // the turn's idle screen: the screen agrees with the report, OSC 7501 never said done
    at(1900, 'idle', done, { evaluation: under('working', 'idle') }),
    at(2600, 'idle', done, { evaluation: under('working', 'idle') }),
    // the person's next prompt: the screen works again, OSC 7501 still (or again) says working
    at(3300, 'working', done, { evaluation: under('working', 'working') }),
  ]);
  assert.equal(seq.map((s) => s.state), ['working', 'idle', 'idle', 'idle', 'working']);
  assert.equal(seq.map((s) => s.by), ['osc', 'report', 'report', 'report', 'osc']);
  // the screen beneath never agreed (the spinner of the ended turn went on past the grace):
  // the report keeps counting, as before
  const lag = run([
    at(500, 'working', null, { evaluation: under('working', 'working') }),
    at(1200, 'working', done, { evaluation: under('working', 'working') }),
    at(1000 + REPORT_GRACE_MS + 500, 'working', done, {
      evaluation: under('working', 'working'),
    }),
  ]);
  assert.equal(lag.map((s) => s.state), ['working', 'idle', 'idle']);
});

test('a blocked report with no dialog is cleared after the grace even while the in-band state stays working', () => {
  const r = rep('blocked', 0);
  const seq = run([
    at(100, 'working', r, { evaluation: osc('working') }),
    at(REPORT_GRACE_MS, 'working', r, { evaluation: osc('working') }),
  ]);
  assert.equal(seq.map((s) => s.state), ['blocked', 'working']);
});

test('a report expires after the TTL unless the screen agrees', () => {
  const w = rep('working', 0);
  // screen shows no rule at all (nothing contradicts): the report lives until its TTL
  // (then the screen's idle, like any working -> idle read, is confirmed on a later look)
  const T = DEFAULT_REPORT_TTL_MS;
  const seq = run([
    at(10, null, w),
    at(T - 1, null, w),
    at(T, null, w),
    at(T + IDLE_CONFIRM_MS, null, w),
  ]);
  assert.equal(seq.map((s) => s.state), ['working', 'working', 'working', 'idle']);
  assert.is(seq[2].reportDroppedAt, 0);
  // with the screen agreeing, it outlives the TTL
  const agree = run([at(10, 'working', w), at(DEFAULT_REPORT_TTL_MS * 3, 'working', w)]);
  assert.is(agree[1].state, 'working');
  assert.is(agree[1].by, 'report');
  // a configurable TTL
  const o = { reportTtlMs: 500 };
  const short = run([
    at(10, null, w, o),
    at(600, null, w, o),
    at(600 + IDLE_CONFIRM_MS, null, w, o),
  ]);
  assert.equal(short.map((s) => s.state), ['working', 'working', 'idle']);
});

test('an idle_prompt notification never makes a pane blocked; Stop then idle_prompt gives one done', () => {
  // Stop -> report done (idle); 60 s later Notification idle_prompt -> report idle.
  const gate = new NotifyGate({ done: true });
  const info = (state: SessionInfo['state']): SessionInfo => ({
    id: 's',
    name: 'claude',
    agent: 'claude',
    state,
    since: 0,
    reason: '',
    by: 'report',
    pid: 1,
    command: [],
    foreground: 'claude',
    rows: 32,
    cols: 120,
    startedAt: 0,
    lastOutput: 0,
    host: 1,
    socket: '',
  });
  gate.observe(info('idle'), 0);
  let r = decide(initialState(0), at(100, 'working', rep('working', 90)));
  gate.observe(info(r.state), 100);
  const notices: Array<ReturnType<NotifyGate['observe']>> = [];
  const step = (input: SignalInput) => {
    const prev = r.state;
    r = decide(r, input);
    if (r.state !== prev) notices.push(gate.observe(info(r.state), input.now));
  };
  step(at(20_000, 'working', rep('idle', 20_000, 'report done')));
  step(at(20_700, 'idle', rep('idle', 20_000, 'report done')));
  step(at(80_000, 'idle', rep('idle', 80_000, 'notify idle_prompt')));
  step(at(80_700, 'idle', rep('idle', 80_000, 'notify idle_prompt')));
  assert.is(r.state, 'idle');
  assert.equal(notices.filter(Boolean).map((n) => n!.kind), ['done']);
});

test('the shell back in the foreground after an agent means exited, over reports and the screen', () => {
  const [, a] = run([
    at(5, 'working', null),
    at(10, 'blocked', rep('blocked', 5), { foreground: 'shell', foregroundName: 'zsh' }),
  ]);
  assert.is(a.state, 'exited');
  assert.is(a.by, 'foreground');
});

test('a shell where no agent ever ran reads shell, alive; a command in it reads running NAME', () => {
  const plain = { evaluation: null, foregroundName: 'bash' } as const;
  const [a, b, c, d] = run([
    at(10, null, null, { ...plain, foreground: 'shell' }),
    at(20, null, null, { ...plain, foreground: 'other', foregroundName: 'sleep' }),
    at(30, null, null, { ...plain, foreground: 'shell' }),
    at(40, null, null, { ...plain, foreground: 'unknown', foregroundName: '' }),
  ]);
  assert.is(a.state, 'shell');
  assert.is(a.by, 'foreground');
  assert.is(b.state, 'running');
  assert.is(b.reason, 'running sleep');
  assert.is(c.state, 'shell', 'sleep ended: the shell again, not exited (no agent ran)');
  assert.is(d.state, 'idle', 'an unknown foreground without a manifest keeps the old reading');
  // Once an agent held the foreground, the shell back in front means the agent ended.
  const [, , e, f] = run([
    at(10, null, null, { ...plain, foreground: 'shell' }),
    at(20, 'working', null, { foreground: 'agent', foregroundName: 'claude' }),
    at(30, null, null, { ...plain, foreground: 'shell' }),
    at(40, null, null, { ...plain, foreground: 'other', foregroundName: 'sleep' }),
  ]);
  assert.is(e.state, 'exited');
  assert.is(f.state, 'running');
});

test('shell and running bring no notice', () => {
  const gate = new NotifyGate({ done: true });
  const info = (state: SessionInfo['state']) => ({ id: 'a', name: 'a', state }) as SessionInfo;
  assert.is(gate.observe(info('working'), 0), null, 'the baseline');
  assert.is(gate.observe(info('shell'), 60_000), null);
  assert.is(gate.observe(info('running'), 120_000), null);
  assert.is(gate.observe(info('working'), 180_000), null);
  assert.is(gate.observe(info('running'), 240_000), null);
  assert.is(gate.observe(info('shell'), 300_000), null);
});

test.run();
