/**
 * bench/sweep.ts's `replay-N` case: detection's CPU time per evaluation on a fixed stream,
 * free of the machine's load. First N simulated agents (src/sim/agent.ts, in this process)
 * run for the window, driven by the synthetic case's user, and their screen bytes and truth
 * are recorded with their times; then the recording is replayed into N Terminals and the
 * Sweep on a virtual clock (its timers and `now` follow the recorded times), so the work done
 * is the same from run to run and from one machine to another. CPU: process.cpuUsage around
 * the sweep's timer callbacks plus the wall time in its output listener (as the synthetic
 * case), as % of one core over the recorded span; latencies are on the virtual clock (what
 * the sweep's policy gives when it is never late); RSS after the replay with the recording
 * released.
 */
import { DEFAULT_INTERVAL_MS, type SweepTimers } from '../src/runtime/sweep.ts';
import { SimAgent } from '../src/sim/agent.ts';
import {
  type Followed,
  inProcessSweep,
  memoryAfterGc,
  profileWindow,
  quantile,
  type Result,
  rng,
  round,
  score,
  sleep,
  SYNTH_ANSWER_DELAY_MS,
  SYNTH_SPEED,
  SYNTH_TASK_DELAY_MS,
  truthClock,
} from './sweep-common.ts';

/** The true states, by code in a {@link Recording}. */
const STATES = ['idle', 'working', 'blocked', 'exited'] as const;

/**
 * Recorded events in a few large arrays (a million small objects would make the replay's
 * garbage collections, counted in the sweep's CPU, cost more than the sweep): event k is
 * agent `agent[k]` at `t[k]` (ms since the epoch), screen bytes `bytes[offset[k] ..
 * offset[k] + length[k])` when `state[k]` is -1, else true state STATES[state[k]].
 */
class Recording {
  count = 0;
  agent = new Uint32Array(1 << 16);
  t = new Float64Array(1 << 16);
  state = new Int8Array(1 << 16);
  offset = new Uint32Array(1 << 16);
  length = new Uint32Array(1 << 16);
  bytes = new Uint8Array(1 << 22);
  used = 0;
  readonly #encoder = new TextEncoder();

  #event(i: number, t: number, state: number): number {
    if (this.count === this.agent.length) {
      const grow = <T extends Uint32Array | Float64Array | Int8Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.agent = grow(this.agent);
      this.t = grow(this.t);
      this.state = grow(this.state);
      this.offset = grow(this.offset);
      this.length = grow(this.length);
    }
    const k = this.count++;
    this.agent[k] = i;
    this.t[k] = t;
    this.state[k] = state;
    return k;
  }

  screen(i: number, t: number, text: string): void {
    const k = this.#event(i, t, -1);
    if (this.bytes.length - this.used < text.length * 3) {
      const b = new Uint8Array(Math.max(this.bytes.length * 2, this.used + text.length * 3));
      b.set(this.bytes.subarray(0, this.used));
      this.bytes = b;
    }
    const { written } = this.#encoder.encodeInto(text, this.bytes.subarray(this.used));
    this.offset[k] = this.used;
    this.length[k] = written;
    this.used += written;
  }

  truth(i: number, t: number, state: string): void {
    this.#event(i, t, STATES.indexOf(state as (typeof STATES)[number]));
  }
}

/** Records `n` simulated agents for `windowMs`, after they have drawn their idle frame. */
async function record(n: number, windowMs: number): Promise<{ recording: Recording; w0: number }> {
  const random = rng(n * 13);
  const between = ([lo, hi]: readonly [number, number]) => lo + (hi - lo) * random();
  const recording = new Recording();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let driving = false;
  const later = (ms: number, f: () => void) => {
    const h = setTimeout(() => {
      timers.delete(h);
      f();
    }, ms);
    timers.add(h);
  };
  const agents: SimAgent[] = [];
  for (let i = 0; i < n; i++) {
    const clock = truthClock();
    const agent: SimAgent = new SimAgent({
      seed: i + 1,
      speed: SYNTH_SPEED,
      rows: 32,
      cols: 120,
      write: (s) => recording.screen(i, clock.wrote(), s),
      onState: (state, t) => {
        recording.truth(i, clock.stateAt(t), state);
        if (!driving) return;
        if (state === 'idle') {
          later(between(SYNTH_TASK_DELAY_MS), () => agent.key('run the tests\r'));
        } else if (state === 'blocked') later(between(SYNTH_ANSWER_DELAY_MS), () => agent.key('1'));
      },
    });
    agents.push(agent);
  }
  for (const a of agents) a.start();
  await sleep(500);
  const w0 = Date.now();
  driving = true;
  for (const a of agents) later(between(SYNTH_TASK_DELAY_MS), () => a.key('run the tests\r'));
  await sleep(windowMs);
  driving = false;
  for (const h of timers) clearTimeout(h);
  for (const a of agents) a.end('bench');
  return { recording, w0 };
}

/** A timer of the virtual clock. */
interface VirtualTimer {
  at: number;
  f: () => void;
  every?: number;
}

/** What one replay of a recording gives. */
interface Replayed {
  /** CPU time of the sweep in the window (its timers' callbacks and output listener), ms. */
  cpuMs: number;
  evaluations: number;
  panes: Followed[];
  /** Screen text at each blocked publication, by `pane time` (with AGENTWATCH_BENCH_FALSE). */
  screens: Map<string, string>;
}

/**
 * Replays `rec` (recorded from `w0` on) into `n` fresh in-process panes and a Sweep on a
 * virtual clock up to `w1`; with `profile`, under the CPU profiler.
 */
async function replay(
  rec: Recording,
  n: number,
  adaptive: boolean,
  w0: number,
  w1: number,
  profile?: string,
): Promise<Replayed> {
  let now = rec.count ? rec.t[0] : w0;
  const queue = new Map<number, VirtualTimer>();
  let nextId = 0;
  let cpuMs = 0;
  let listenerMs = 0;
  const timers: SweepTimers = {
    setTimeout: (f, ms) => (queue.set(++nextId, { at: now + ms, f }), nextId),
    clearTimeout: (h) => void queue.delete(h as number),
    setInterval: (f, ms) => (queue.set(++nextId, { at: now + ms, f, every: ms }), nextId),
    clearInterval: (h) => void queue.delete(h as number),
  };
  /** Runs the timers due by `t`, in time order, each at its own time. */
  const runDue = (t: number) => {
    for (;;) {
      let id = -1;
      let due: VirtualTimer | undefined;
      for (const [k, v] of queue) if (v.at <= t && (!due || v.at < due.at)) [id, due] = [k, v];
      if (!due) return;
      now = due.at;
      if (due.every) due.at += due.every;
      else queue.delete(id);
      const c0 = process.cpuUsage();
      due.f();
      const c = process.cpuUsage(c0);
      cpuMs += (c.user + c.system) / 1000;
    }
  };
  const panes: Followed[] = [];
  for (let i = 0; i < n; i++) panes.push({ truth: [], published: [], answers: [] });
  /** AGENTWATCH_BENCH_FALSE=1: each blocked publication's screen, for the misses and falses. */
  const debug = Boolean(process.env.AGENTWATCH_BENCH_FALSE);
  const screens = new Map<string, string>();
  const { sweep, sessions, feed } = inProcessSweep(n, {
    adaptive,
    now: () => now,
    timers,
    onTransition: (i, state) => {
      panes[i].published.push({ t: now, state });
      if (debug && state === 'blocked') {
        const pane = sweep.panes.get(String(i))!;
        screens.set(`${i} ${now}`, `${sessions[i].terminal.screenText()}\n(${pane.record.reason})`);
      }
    },
  });
  sweep.start();
  const stopProfile = await profileWindow(profile);
  let cpu0 = 0;
  let listener0 = 0;
  let evals0 = 0;
  for (let k = 0; k < rec.count; k++) {
    const t = rec.t[k];
    if (t > w1) break;
    runDue(t);
    now = Math.max(now, t);
    if (t >= w0 && evals0 === 0 && cpu0 === 0) {
      // the window starts: what came before (start-up frames) is not counted
      cpu0 = cpuMs;
      listener0 = listenerMs;
      evals0 = sweep.stats.evaluations || -1;
    }
    const i = rec.agent[k];
    if (rec.state[k] >= 0) {
      if (t >= w0) panes[i].truth.push({ t, state: STATES[rec.state[k]] });
      continue;
    }
    listenerMs += feed(i, rec.bytes.subarray(rec.offset[k], rec.offset[k] + rec.length[k]), t);
  }
  runDue(w1);
  sweep.stop();
  await stopProfile();
  return {
    cpuMs: cpuMs - cpu0 + listenerMs - listener0,
    evaluations: sweep.stats.evaluations - Math.max(0, evals0),
    panes,
    screens,
  };
}

/**
 * Runs the replay case: `n` panes, the sweep mode, a recorded window of `windowMs`, replayed
 * `repeat` times (the CPU figure is the least of them: the same work each time, so the least
 * is the one the machine's load disturbed least).
 */
export async function runReplay(
  n: number,
  adaptive: boolean,
  windowMs: number,
  profile?: string,
  repeat = 1,
): Promise<Result> {
  const recorded = await record(n, windowMs);
  const w0 = recorded.w0;
  const w1 = w0 + windowMs;
  const cpus: number[] = [];
  let last: Replayed | undefined;
  for (let k = 0; k < repeat; k++) {
    last = undefined; // the previous replay's panes released first
    last = await replay(recorded.recording, n, adaptive, w0, w1, k === 0 ? profile : undefined);
    cpus.push(last.cpuMs);
  }
  const { panes, screens, evaluations: evals } = last!;
  const cpu = Math.min(...cpus);
  const ms = windowMs;
  // the recording released before the memory is read
  (recorded as { recording?: Recording }).recording = undefined;
  for (const pane of panes) {
    pane.truth.unshift({ t: w0, state: 'idle' });
    pane.published = pane.published.filter((p) => p.t >= w0);
  }
  const mem = memoryAfterGc();
  const scored = score(panes, w0, w1);
  const debug = Boolean(process.env.AGENTWATCH_BENCH_FALSE);
  for (const [i, pane] of (debug ? panes : []).entries()) {
    const truth = pane.truth;
    for (let k = 0; k + 1 < truth.length; k++) {
      const [from, to] = [truth[k].t, truth[k + 1].t];
      if (truth[k].state !== 'blocked' || to > w1) continue;
      if (pane.published.some((p) => p.state === 'blocked' && p.t >= from - 5 && p.t <= to + 5)) {
        continue;
      }
      const near = (t: number) => t > from - 3000 && t < to + 3000;
      console.error(
        `replay-${n}: missed at ${from}..${to}: pane ${i}, truth ${
          JSON.stringify(truth.filter((e) => near(e.t)).map((e) => [e.t - from, e.state]))
        }, published ${
          JSON.stringify(pane.published.filter((e) => near(e.t)).map((e) => [e.t - from, e.state]))
        }`,
      );
    }
  }
  for (const { pane, at } of debug ? scored.falses : []) {
    const i = panes.indexOf(pane as (typeof panes)[number]);
    const near = (t: number) => Math.abs(t - at) < 3000;
    console.error(
      `replay-${n}: false blocked at ${at}: pane ${i}, truth ${
        JSON.stringify(pane.truth.filter((e) => near(e.t)).map((e) => [e.t - at, e.state]))
      }, published ${
        JSON.stringify(pane.published.filter((e) => near(e.t)).map((e) => [e.t - at, e.state]))
      }\n${screens.get(`${i} ${at}`)?.split('\n').filter((l) => l.trim()).slice(-14).join('\n')}`,
    );
  }
  return {
    name: `replay-${n}`,
    panes: n,
    mode: adaptive ? 'adaptive' : `${DEFAULT_INTERVAL_MS} ms`,
    cpuPct: cpu / ms * 100,
    blockedMedianMs: round(quantile(scored.blocked, 0.5)),
    blockedMaxMs: round(scored.blocked.length ? Math.max(...scored.blocked) : NaN),
    missed: scored.missed,
    falseBlocked: scored.falseBlocked,
    rssMB: Math.round(mem.rss / 2 ** 20),
    prompts: scored.prompts,
    windowS: ms / 1000,
    evalsPerS: evals / (ms / 1000),
    workingPct: scored.workingPct,
    note: `${(cpu * 1000 / Math.max(1, evals)).toFixed(1)} µs/eval (CPU on a virtual clock${
      repeat > 1
        ? `, least of ${repeat}: ${cpus.map((c) => (c / ms * 100).toFixed(1)).join(' ')}%`
        : ''
    })`,
  };
}
