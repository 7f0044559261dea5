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
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import {
  DEFAULT_INTERVAL_MS,
  Sweep,
  type SweepTimers,
  type SweptSession,
} from '../src/runtime/sweep.ts';
import { SimAgent } from '../src/sim/agent.ts';
import { Terminal } from '../src/vt/terminal.ts';
import {
  type Followed,
  memoryAfterGc,
  quantile,
  type Result,
  rng,
  round,
  score,
  sleep,
  SYNTH_ANSWER_DELAY_MS,
  SYNTH_SPEED,
  SYNTH_TASK_DELAY_MS,
} from './sweep-common.ts';

/** One recorded event: screen bytes of agent `i`, or its true state. */
type Recorded =
  | { i: number; t: number; bytes: Uint8Array }
  | { i: number; t: number; state: string };

/** Records `n` simulated agents for `windowMs`, after they have drawn their idle frame. */
async function record(n: number, windowMs: number): Promise<{ events: Recorded[]; w0: number }> {
  const random = rng(n * 13);
  const between = ([lo, hi]: readonly [number, number]) => lo + (hi - lo) * random();
  const events: Recorded[] = [];
  const encoder = new TextEncoder();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let recording = false;
  const later = (ms: number, f: () => void) => {
    const h = setTimeout(() => {
      timers.delete(h);
      f();
    }, ms);
    timers.add(h);
  };
  const agents: SimAgent[] = [];
  for (let i = 0; i < n; i++) {
    const agent: SimAgent = new SimAgent({
      seed: i + 1,
      speed: SYNTH_SPEED,
      rows: 32,
      cols: 120,
      write: (s) => events.push({ i, t: Date.now(), bytes: encoder.encode(s) }),
      onState: (state, t) => {
        events.push({ i, t, state });
        if (!recording) return;
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
  recording = true;
  for (const a of agents) later(between(SYNTH_TASK_DELAY_MS), () => a.key('run the tests\r'));
  await sleep(windowMs);
  recording = false;
  for (const h of timers) clearTimeout(h);
  for (const a of agents) a.end('bench');
  return { events: events.filter((e) => e.t <= w0 + windowMs), w0 };
}

/** A timer of the virtual clock. */
interface VirtualTimer {
  at: number;
  f: () => void;
  every?: number;
}

/** Runs the replay case: `n` panes, the sweep mode, a recorded window of `windowMs`. */
export async function runReplay(n: number, adaptive: boolean, windowMs: number): Promise<Result> {
  const recorded = await record(n, windowMs);
  let events: Recorded[] | null = recorded.events;
  const w0 = recorded.w0;
  const w1 = w0 + windowMs;
  const manifests = loadBundledManifests();
  let now = events[0]?.t ?? w0;
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
  const panes: (Followed & { terminal: Terminal; listeners: ((d: Uint8Array) => void)[] })[] = [];
  const fg = { pgid: 1, name: 'claude', argv: ['claude'] };
  const sweep = new Sweep<SweptSession>({
    intervalMs: DEFAULT_INTERVAL_MS,
    adaptive,
    manifests: () => manifests,
    foreground: () => fg,
    now: () => now,
    timers,
    onTransition: (w) => {
      panes[Number(w.session.id)].published.push({ t: now, state: w.record.state });
    },
  });
  for (let i = 0; i < n; i++) {
    const pane = {
      truth: [],
      published: [],
      answers: [],
      terminal: new Terminal(32, 120),
      listeners: [] as ((d: Uint8Array) => void)[],
    };
    panes.push(pane);
    sweep.add({
      id: String(i),
      spec: { agent: 'claude', command: 'claude', args: [] },
      terminal: pane.terminal,
      inputsVersion: 0,
      exit: null,
      report: null,
      onOutput(l) {
        pane.listeners.push(l);
        return () => {};
      },
      onExit: () => () => {},
    });
  }
  sweep.start();
  let cpu0 = 0;
  let listener0 = 0;
  let evals0 = 0;
  for (const e of events) {
    runDue(e.t);
    now = Math.max(now, e.t);
    if (e.t >= w0 && evals0 === 0 && cpu0 === 0) {
      // the window starts: what came before (start-up frames) is not counted
      cpu0 = cpuMs;
      listener0 = listenerMs;
      evals0 = sweep.stats.evaluations || -1;
    }
    const pane = panes[e.i];
    if ('state' in e) {
      if (e.t >= w0) pane.truth.push({ t: e.t, state: e.state });
      continue;
    }
    pane.terminal.write(e.bytes);
    const t0 = performance.now();
    for (const l of pane.listeners) l(e.bytes);
    listenerMs += performance.now() - t0;
  }
  runDue(w1);
  sweep.stop();
  const evals = sweep.stats.evaluations - Math.max(0, evals0);
  const ms = windowMs;
  const cpu = cpuMs - cpu0 + listenerMs - listener0;
  events = null; // released before the memory is read
  for (const pane of panes) {
    pane.truth.unshift({ t: w0, state: 'idle' });
    pane.published = pane.published.filter((p) => p.t >= w0);
  }
  const mem = memoryAfterGc();
  const scored = score(panes, w0, w1);
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
    note: `${(cpu * 1000 / Math.max(1, evals)).toFixed(1)} µs/eval (CPU on a virtual clock)`,
  };
}
