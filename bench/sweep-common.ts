/**
 * What bench/sweep.ts's cases share: the figures, the simulated user's delays, the seeded
 * PRNG, the scoring of published states against the agents' truth, the in-process panes and
 * their sweep (synthetic-N, replay-N) and the CPU profile of a window.
 */
import { writeFileSync } from 'node:fs';
import { Session as Inspector } from 'node:inspector/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import {
  DEFAULT_INTERVAL_MS,
  Sweep,
  type SweepTimers,
  type SweptSession,
} from '../src/runtime/sweep.ts';
import { Terminal } from '../src/vt/terminal.ts';

/** A full garbage collection (V8's `gc`, exposed on first use). */
let gc: (() => void) | undefined;

/** The synthetic and replay cases' agent time factor (with their task delays: about half working). */
export const SYNTH_SPEED = 3;
/** The synthetic and replay cases' user: a task this long after idle, ms. */
export const SYNTH_TASK_DELAY_MS: readonly [number, number] = [300, 2500];
/** ... and an answer this long after a prompt was drawn, ms. */
export const SYNTH_ANSWER_DELAY_MS: readonly [number, number] = [600, 1200];

/**
 * How long after the window the truth is still collected before scoring: an agent stamps and
 * sends its truth after it drew the screen, and a loaded machine delays both the sending (the
 * farm's IPC, a node agent's truth file) and the reading.
 */
export const TRUTH_GRACE_MS = 2000;

/** One case's figures, as `--json` prints them and bench/baseline.json stores them. */
export interface CaseFigures {
  name: string;
  panes: number;
  mode: string;
  /** % of one core. */
  cpuPct: number;
  blockedMedianMs: number | null;
  blockedMaxMs: number | null;
  missed: number;
  falseBlocked: number;
  rssMB: number;
}

/** What the table shows beside the figures. */
export interface Result extends CaseFigures {
  prompts: number;
  windowS: number;
  evalsPerS: number;
  /** Share of agent-time the truth was working, %. */
  workingPct: number;
  /** A note for the table (VT time, start-up time). */
  note: string;
}

/** A truth line of the sim agent. */
export interface TruthEvent {
  t: number;
  state: string;
}

/** A pane as the driver and the scoring follow it. */
export interface Followed {
  truth: TruthEvent[];
  /** The published states, with the time they were published. */
  published: TruthEvent[];
  /** When the answer keys were written. */
  answers: number[];
}

/** A seeded PRNG (mulberry32), for the driver's delays. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The p-quantile (0..1) of `xs` (nearest rank), NaN for none. */
export function quantile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RSS and JS heap + external memory in bytes, after a full GC. */
export function memoryAfterGc(): { rss: number; heap: number } {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external };
}

/**
 * Prompts, latencies, misses and false blocked of panes followed over a window ending at
 * `w1` (ms since the epoch): a prompt counts when it ended inside the window, a blocked
 * publication when it came inside the window. Call it once the truth up to `w1` has come in
 * ({@link TRUTH_GRACE_MS} later): an agent writes its truth after its screen.
 */
export function score(panes: Iterable<Followed>, w0: number, w1: number) {
  const blocked: number[] = [];
  let prompts = 0;
  let missed = 0;
  let falseBlocked = 0;
  let working = 0;
  let agentMs = 0;
  const falses: { pane: Followed; at: number }[] = [];
  for (const pane of panes) {
    const truth = pane.truth;
    for (let k = 0; k < truth.length; k++) {
      const end = truth[k + 1]?.t ?? w1;
      if (truth[k].state === 'working') working += Math.min(end, w1) - Math.max(truth[k].t, w0);
      if (truth[k].state !== 'blocked') continue;
      if (truth[k + 1] === undefined || end > w1) continue; // still open when the window closed
      prompts++;
      const seen = pane.published.find((p) =>
        p.state === 'blocked' && p.t >= truth[k].t - 5 && p.t <= end + 5
      );
      if (seen) blocked.push(seen.t - truth[k].t);
      else missed++;
    }
    agentMs += w1 - w0;
    // a blocked published while the truth was not blocked (give the truth 50 ms to lead);
    // only inside the window: the truth of a later one may not have come in yet
    for (const p of pane.published) {
      if (p.state !== 'blocked' || p.t > w1) continue;
      const before = truth.filter((e) => e.t <= p.t + 50).pop();
      if (before && before.state !== 'blocked') {
        falseBlocked++;
        falses.push({ pane, at: p.t });
      }
    }
  }
  return { blocked, prompts, missed, falseBlocked, workingPct: (working / agentMs) * 100, falses };
}

/** Rounds to whole ms; null for NaN. */
export function round(x: number): number | null {
  return Number.isFinite(x) ? Math.round(x) : null;
}

/**
 * The time to give an agent's true state: the time of its last screen write when it changed
 * state in the same synchronous turn as that write (it draws a prompt, then reports it),
 * else its own time. Two clock reads a pause apart (a garbage collection; a loaded machine
 * preempting this process) would otherwise put the truth tens of ms after the screen that
 * showed it, and a prompt seen at once would score as a false blocked and a miss.
 */
export function truthClock(): { wrote(): number; stateAt(t: number): number } {
  let wroteAt: number | undefined;
  return {
    /** Notes a screen write now; returns its time (ms since the epoch). */
    wrote() {
      if (wroteAt === undefined) queueMicrotask(() => (wroteAt = undefined));
      return (wroteAt = Date.now());
    },
    stateAt: (t) => (wroteAt === undefined ? t : Math.min(t, wroteAt)),
  };
}

/**
 * Starts V8's CPU profiler when `file` is given (`--profile PREFIX`: a case's measured window);
 * the function returned stops it and writes the profile to `file` (a `.cpuprofile`, for
 * Chrome's DevTools or bench/profile.ts). Without `file`, both do nothing.
 */
export async function profileWindow(file: string | undefined): Promise<() => Promise<void>> {
  if (!file) return async () => {};
  const inspector = new Inspector();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
  return async () => {
    const { profile } = await inspector.post('Profiler.stop');
    inspector.disconnect();
    writeFileSync(file, JSON.stringify(profile));
  };
}

/**
 * A session of the in-process cases (synthetic-N, replay-N): our Terminal, fed by the case,
 * standing in for a PTY session; the agent is Claude Code, in front all along.
 */
export interface InProcessSession extends SweptSession {
  readonly terminal: Terminal;
  /** When output last came (ms since the epoch). */
  lastOutput: number;
  /** The sweep's output listeners (called by {@link InProcessSweep.feed}). */
  readonly listeners: ((data: Uint8Array) => void)[];
}

/** The in-process cases' panes and their sweep. */
export interface InProcessSweep {
  sweep: Sweep<InProcessSession>;
  sessions: InProcessSession[];
  /**
   * Writes `bytes` to session `i`'s screen at `t` (ms since the epoch), then calls its output
   * listeners; returns the wall time spent in the listeners (ms).
   */
  feed(i: number, bytes: Uint8Array, t: number): number;
}

/**
 * `n` in-process sessions (32x120) followed by one Sweep with the bundled manifests, in
 * `adaptive` mode or not; `onTransition` hears of every state change (session index and
 * state); `now` and `timers` for a virtual clock.
 */
export function inProcessSweep(
  n: number,
  options: {
    adaptive: boolean;
    onTransition: (i: number, state: string) => void;
    now?: () => number;
    timers?: SweepTimers;
  },
): InProcessSweep {
  const manifests = loadBundledManifests();
  const fg = { pgid: 1, name: 'claude', argv: ['claude'] };
  const sweep = new Sweep<InProcessSession>({
    intervalMs: DEFAULT_INTERVAL_MS,
    adaptive: options.adaptive,
    manifests: () => manifests,
    foreground: () => fg,
    now: options.now,
    timers: options.timers,
    onTransition: (pane) => options.onTransition(Number(pane.session.id), pane.record.state),
  });
  const sessions: InProcessSession[] = [];
  for (let i = 0; i < n; i++) {
    const listeners: ((data: Uint8Array) => void)[] = [];
    sessions.push({
      id: String(i),
      spec: { agent: 'claude', command: 'claude', args: [] },
      terminal: new Terminal(32, 120),
      inputsVersion: 0,
      exit: null,
      report: null,
      lastOutput: 0,
      listeners,
      onOutput(l) {
        listeners.push(l);
        return () => {};
      },
      onExit: () => () => {},
    });
    sweep.add(sessions[i]);
  }
  return {
    sweep,
    sessions,
    feed(i, bytes, t) {
      const s = sessions[i];
      s.terminal.write(bytes);
      s.lastOutput = t;
      const t0 = performance.now();
      for (const l of s.listeners) l(bytes);
      return performance.now() - t0;
    },
  };
}
