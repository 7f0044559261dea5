/**
 * `npm run bench:sweep`: what detection and the host cost, and how fast and how right they see
 * a prompt, with the simulated agent (src/sim/agent.ts: Claude Code 2.1.332's drawing,
 * 10 Hz spinner, permission prompts, its true state with timestamps). Cases (`--case NAME`,
 * several separated by commas; default all four):
 *
 * - `synthetic-1000`: 1000 in-process panes (our Terminal and the Sweep, no PTYs) fed the
 *   real-rate streams of 1000 agents that run in a child process (bench/sim-farm.ts, one Unix
 *   socket, bytes and truth in the order they happened), driven by an in-process user (a task
 *   0.3-2.5 s after idle, a prompt answered 0.6-1.2 s after it was drawn; about half of the
 *   agents working at a time, about 3,000 evaluations/s in adaptive mode). CPU: detection
 *   alone, as % of one core: the CPU time (process.cpuUsage, which costs about 1 µs a call)
 *   inside the sweep's timer callbacks (its ticks and adaptive slots, each serving many panes)
 *   and direct evaluations, plus the wall time inside its output listener (a few map
 *   operations per frame, cheaper than a cpuUsage call); the process's whole CPU and the VT's
 *   share (wall time inside its writes) printed beside. `synthetic-N` for another count. A
 *   `tail:` line on stderr tells where the blocked latency goes: per prompt, the part before
 *   its truth reached this process (the farm's socket and this process waiting for a core:
 *   the prompt's screen bytes come just before its truth) and the rest, with the slowest 5;
 *   the event loop's delay, the GC pauses, the sweep's timer callbacks (wall ms each) and how
 *   late its timers fired.
 * - `host-10`, `host-100`, `host-1000`: one SessionHost in this process with N sessions (real
 *   PTYs, control sockets, foreground reads), each running bench/relay.c, which relays the PTY
 *   to one agent of the farm (`--agents node`: a `sim-agent` node process per session, as a
 *   person runs it; about 40 MB each, so not for 1000), driven like a quick user: a task
 *   0.2-1.2 s after the agent goes idle (about half the sessions then work; `--idle MIN-MAX`
 *   in ms sets that delay: issue 14 states its host target at 30% working), a prompt answered
 *   ('1') 0.2-0.6 s after the host published it blocked (at least 0.5 s after it was drawn; after 5 s without it, answered
 *   anyway and counted as missed). CPU: process.cpuUsage of this process over the window minus
 *   the harness's reading of the truth, as % of one core; the keys it types (through the
 *   host's session, as a person's) and its bookkeeping of what the host published (a few map
 *   operations per transition) count as the host's. The work is what the agents draw: on a
 *   loaded machine they draw less (fewer chunks/s in the note) and the CPU % falls with it,
 *   while the CPU per chunk rises; compare runs of one moment, alternated, at similar chunks/s.
 *
 * Figures per case: blocked latency (prompt drawn, truth time -> `blocked` published) median
 * and max; missed prompts (never published blocked while shown); false blocked (published
 * blocked while the truth had not been blocked for 50 ms); RSS at the end (MB, after a GC).
 * Every figure is printed beside the one stored in bench/baseline.json for the same case (the
 * release before the change); `--json` prints `{cases: [{name, panes, mode, cpuPct,
 * blockedMedianMs, blockedMaxMs, missed, falseBlocked, rssMB}]}` instead of the table.
 * Options: `--seconds S` (measured window; default 30 s synthetic, 20 s host), `--mode
 * adaptive|default` (the sweep: adaptive, or the 700 ms interval alone; default adaptive),
 * `--agents farm|node`, `--tsx` (node agents started from the sources), `--profile PREFIX`
 * (a V8 CPU profile of each case's measured window, written to PREFIX + case + `.cpuprofile`;
 * the profiler's sampling adds to the CPU measured; `node --import tsx bench/profile.ts FILE`
 * sums it by function), `--repeat K` (replay-N: the recording replayed K times, the least CPU
 * kept).
 *
 * Each host session takes about 3 file descriptors in this process (PTY master, control
 * socket, its listening socket) and the farm one per agent: host-1000 needs a limit of at
 * least 4096 open files (Node raises its soft limit to the hard one at start, so the hard
 * limit, `ulimit -Hn`, is what counts; checked, and the case is skipped with a note when it
 * is lower). A full run takes about 4 minutes on a 2-core machine.
 */
import { build } from 'esbuild';
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sessionForeground } from '../src/runtime/default-host.ts';
import { type HostOptions, SessionHost } from '../src/runtime/host.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import type { Session } from '../src/runtime/session.ts';
import { DEFAULT_INTERVAL_MS } from '../src/runtime/sweep.ts';
import {
  type CaseFigures,
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
  TRUTH_GRACE_MS,
  type TruthEvent,
} from './sweep-common.ts';
import { runReplay } from './sweep-replay.ts';

const ROOT = join(import.meta.dirname, '..');
const SPEED = 6; // host cases: the sim agent's time factor (thinking and tool calls 6x shorter)
/** Host cases: the person's delay before the next task once a session is idle, ms (`--idle`). */
let taskDelayMs: readonly [number, number] = [200, 1200];
const ANSWER_DELAY_MS: readonly [number, number] = [200, 600];
const ANSWER_MIN_MS = 500;
const ANSWER_GIVE_UP_MS = 5000;
const POLL_MS = 200;
const BASELINE = join(import.meta.dirname, 'baseline.json');

/** The farm of simulated agents (bench/sim-farm.ts) in a child process. */
async function startFarm(
  dir: string,
  speed: number,
): Promise<{ child: ChildProcess; socket: string }> {
  const socket = join(dir, 'farm.sock');
  const child = fork(join(import.meta.dirname, 'sim-farm.ts'), [socket, String(speed)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the agent farm exited (${code})`)));
  });
  return { child, socket };
}

/**
 * How to start one simulated agent as a node process: the bundled `sim-agent` command (made
 * once, in `dir`), or with `--tsx` the source entry as the CLI runs it.
 */
async function agentCommand(dir: string, tsx: boolean): Promise<string[]> {
  if (tsx) return [process.execPath, '--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'sim-agent'];
  const entry = `
import { parseArgs } from 'node:util';
import { simAgentCommand } from ${JSON.stringify(join(ROOT, 'src/cli/sim-agent.ts'))};
const { values, positionals } = parseArgs({
  args: process.argv.slice(2), options: simAgentCommand.options, allowPositionals: true,
});
const io = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };
simAgentCommand.run(values, positionals, io).then((code) => process.exit(code), (e) => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(70);
});
`;
  const outfile = join(dir, 'sim-agent.mjs');
  await build({
    stdin: { contents: entry, loader: 'ts', resolveDir: ROOT, sourcefile: 'sim-agent-entry.ts' },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return [process.execPath, outfile];
}

/** Compiles bench/relay.c into `dir`; null when no C compiler is there. */
function buildRelay(dir: string): string | null {
  const out = join(dir, 'relay');
  try {
    execFileSync('cc', ['-O2', '-o', out, join(import.meta.dirname, 'relay.c')], { stdio: 'pipe' });
    return out;
  } catch {
    return null;
  }
}

/** A truth file of a node agent, read as it grows. */
interface TruthFile {
  path: string;
  fd?: number;
  offset: number;
  pending: string;
}

/** Reads what the agent appended to its truth file since the last call. */
function pollTruth(f: TruthFile): TruthEvent[] {
  if (f.fd === undefined) {
    try {
      f.fd = openSync(f.path, 'r');
    } catch {
      return [];
    }
  }
  const buf = Buffer.alloc(16 * 1024);
  let n: number;
  while ((n = readSync(f.fd, buf, 0, buf.length, f.offset)) > 0) {
    f.offset += n;
    f.pending += buf.subarray(0, n).toString('utf8');
  }
  const out: TruthEvent[] = [];
  let nl: number;
  while ((nl = f.pending.indexOf('\n')) >= 0) {
    const line = f.pending.slice(0, nl);
    f.pending = f.pending.slice(nl + 1);
    try {
      out.push(JSON.parse(line) as TruthEvent);
    } catch {
      // a line cut by a concurrent write comes whole next time
    }
  }
  return out;
}

/** A session of a host case as the driver follows it. */
interface HostPane extends Followed {
  session: Session;
  file?: TruthFile;
  /** Truth events not handled yet. */
  inbox: TruthEvent[];
  timer?: ReturnType<typeof setTimeout>;
  /** The truth blocked event being handled, and when the host published it. */
  open?: { shownAt: number; publishedAt?: number; answered: boolean };
  /** Screen text at each blocked publication (for the false-blocked evidence). */
  screens: { t: number; text: string }[];
}

const log = (s: string) => process.stderr.write(s);

/** Runs a host case: `n` sessions, the sweep mode, a measured window of `windowMs`. */
async function runHost(
  n: number,
  adaptive: boolean,
  windowMs: number,
  agents: { kind: 'farm'; relay: string; speed: number } | { kind: 'node'; command: string[] },
  name = `host-${n}`,
  profile?: string,
): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-sweep-'));
  const manifests = loadBundledManifests();
  const options: HostOptions & { hooks?: boolean } = {
    manifests: () => manifests,
    foreground: sessionForeground,
    intervalMs: DEFAULT_INTERVAL_MS,
    adaptive,
    env: { ...process.env, AGENTWATCH_DIR: dir },
    hooks: false, // the sim agent takes no --settings
  };
  const host = new SessionHost(options);
  const panes = new Map<string, HostPane>();
  const byIndex: HostPane[] = [];
  const random = rng(n * 7 + (adaptive ? 1 : 0));
  const between = ([lo, hi]: readonly [number, number]) => lo + (hi - lo) * random();
  let driving = false;
  // CPU time (process.cpuUsage) this harness spends reading the agents' truth. A cpuUsage call
  // costs about 20 µs here: getrusage(2) sums every thread of the process, and node-pty runs
  // one per child (its waitpid), so it times only this 5 Hz poller.
  let harnessMs = 0;
  /** Runs `f`, adding the CPU time it takes to the harness's account. */
  const harness = (f: () => void) => {
    const c0 = process.cpuUsage();
    f();
    const c = process.cpuUsage(c0);
    harnessMs += (c.user + c.system) / 1000;
  };

  const debug = Boolean(process.env.AGENTWATCH_BENCH_FALSE);
  // Not timed (counted as the host's): a few map operations per transition, and the keys the
  // simulated person types, which go through the host's session as a person's do.
  host.onTransition(({ info }) => {
    const pane = panes.get(info.id);
    if (!pane) return;
    const at = Date.now();
    pane.published.push({ t: at, state: info.state });
    if (info.state !== 'blocked') return;
    if (debug) pane.screens.push({ t: at, text: pane.session.terminal.screenText() });
    if (pane.open && pane.open.publishedAt === undefined) {
      pane.open.publishedAt = at;
      schedule(pane, Math.max(pane.open.shownAt + ANSWER_MIN_MS - at, between(ANSWER_DELAY_MS)));
    }
  });

  /** Replaces the pane's pending action. */
  const schedule = (pane: HostPane, ms: number, act: () => void = () => answer(pane)) => {
    if (pane.timer) clearTimeout(pane.timer);
    pane.timer = setTimeout(() => {
      pane.timer = undefined;
      if (driving) act();
    }, Math.max(0, ms));
  };
  const answer = (pane: HostPane) => {
    if (!pane.open || pane.open.answered) return;
    pane.open.answered = true;
    pane.answers.push(Date.now());
    pane.session.write('1');
  };
  /** Reacts to the agent's true state changes. */
  const onTruth = (pane: HostPane, e: TruthEvent) => {
    pane.truth.push(e);
    if (!driving) return;
    if (e.state === 'idle') {
      pane.open = undefined;
      schedule(pane, between(taskDelayMs), () => pane.session.write('run the tests\r'));
    } else if (e.state === 'blocked') {
      pane.open = { shownAt: e.t, answered: false };
      // the host may have published it before the truth reached us
      const seen = pane.published.find((p) => p.state === 'blocked' && p.t >= e.t - 5);
      if (seen) {
        pane.open.publishedAt = seen.t;
        schedule(pane, Math.max(e.t + ANSWER_MIN_MS - Date.now(), between(ANSWER_DELAY_MS)));
      } else schedule(pane, e.t + ANSWER_GIVE_UP_MS - Date.now());
    } else if (e.state === 'working') {
      if (pane.open?.answered) pane.open = undefined;
    }
  };
  const drain = () => {
    for (const pane of panes.values()) {
      if (pane.file) pane.inbox.push(...pollTruth(pane.file));
      const events = pane.inbox.splice(0);
      for (const e of events) onTruth(pane, e);
    }
  };

  let farm: { child: ChildProcess; socket: string } | undefined;
  try {
    if (agents.kind === 'farm') {
      farm = await startFarm(dir, agents.speed);
      farm.child.on('message', (m: { i: number; t: number; state: string }) => {
        byIndex[m.i]?.inbox.push({ t: m.t, state: m.state });
      });
    }
    await sleep(500); // the previous case's PTYs and sockets are released
    const t0 = Date.now();
    for (let i = 0; i < n; i++) {
      const file = agents.kind === 'node'
        ? { path: join(dir, `truth-${i}.jsonl`), offset: 0, pending: '' }
        : undefined;
      const [command, ...args] = agents.kind === 'node'
        ? [
          ...agents.command,
          ...['--seed', String(i + 1), '--speed', String(SPEED), '--truth', file!.path],
        ]
        : [agents.relay, farm!.socket, String(i)];
      const session = await host.start({
        command,
        args,
        name: `sim${i}`,
        agent: 'claude',
        cwd: ROOT,
        headless: true,
      });
      const pane: HostPane = {
        session,
        file,
        inbox: [],
        truth: [],
        published: [],
        answers: [],
        screens: [],
      };
      panes.set(session.id, pane);
      byIndex[i] = pane;
    }
    // every agent has drawn its idle frame
    for (;;) {
      drain();
      if ([...panes.values()].every((p) => p.truth.some((e) => e.state === 'idle'))) break;
      if (Date.now() - t0 > 180_000) throw new Error('the agents did not start within 180 s');
      await sleep(100);
    }
    const startS = (Date.now() - t0) / 1000;
    await sleep(800); // start-up redraws settle; every pane has been swept once

    // the measured window ('measuring' on stderr: an outside profiler may start now)
    log('measuring ');
    const stopProfile = await profileWindow(profile);
    const bytesOut = () => [...panes.values()].reduce((n, p) => n + p.session.bytesOut, 0);
    const bytes0 = bytesOut();
    const chunksOut = () => [...panes.values()].reduce((n, p) => n + p.session.chunksOut, 0);
    const chunks0 = chunksOut();
    // garbage collections in the window: minor (scavenges) and the rest, each with its pause
    const gcs = { minor: 0, major: 0, ms: 0 };
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = (e as { detail?: { kind?: number } }).detail?.kind;
        if (kind === 1) gcs.minor++; // NODE_PERFORMANCE_GC_MINOR
        else gcs.major++;
        gcs.ms += e.duration;
      }
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    // how late the event loop ran what was due (a blocked screen waits behind it)
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const cpu0 = process.cpuUsage();
    const stats0 = { ...host.sweepStats };
    const w0 = Date.now();
    driving = true;
    harnessMs = 0;
    for (const pane of panes.values()) {
      pane.truth.length = 0;
      pane.published.length = 0;
      pane.screens.length = 0;
      onTruth(pane, { t: w0, state: 'idle' });
    }
    const poller = setInterval(() => harness(drain), POLL_MS);
    await sleep(windowMs);
    driving = false;
    clearInterval(poller);
    const w1 = Date.now();
    const cpu = process.cpuUsage(cpu0);
    gcObserver.disconnect();
    loopDelay.disable();
    const stats = { ...host.sweepStats };
    const bytes = bytesOut() - bytes0;
    const chunks = chunksOut() - chunks0;
    await stopProfile();
    const mem1 = memoryAfterGc();
    await sleep(TRUTH_GRACE_MS);
    drain();
    const scored = score(panes.values(), w0, w1);
    reportFalse(name, scored.falses as { pane: HostPane; at: number }[]);
    const ms = w1 - w0;
    return {
      name,
      panes: n,
      mode: adaptive ? 'adaptive' : `${DEFAULT_INTERVAL_MS} ms`,
      cpuPct: ((cpu.user + cpu.system) / 1000 - harnessMs) / ms * 100,
      blockedMedianMs: round(quantile(scored.blocked, 0.5)),
      blockedMaxMs: round(scored.blocked.length ? Math.max(...scored.blocked) : NaN),
      missed: scored.missed,
      falseBlocked: scored.falseBlocked,
      rssMB: Math.round(mem1.rss / 2 ** 20),
      prompts: scored.prompts,
      windowS: ms / 1000,
      evalsPerS: (stats.evaluations - stats0.evaluations) / (ms / 1000),
      workingPct: scored.workingPct,
      // the work done (output read, evaluations) falls when a loaded machine slows the agents
      note:
        `${(bytes / 1024 / (ms / 1000)).toFixed(0)} KB/s read in ${
          (chunks / (ms / 1000)).toFixed(0)
        } chunks/s, started in ${startS.toFixed(0)} s, harness ${
          (harnessMs / ms * 100).toFixed(1)
        }%, ${((cpu.user + cpu.system) / Math.max(1, chunks)).toFixed(0)} µs CPU/chunk (${
          (cpu.system / 10 / ms).toFixed(1)
        }% of a core in the kernel), GC ${gcs.minor}+${gcs.major} in ${
          (gcs.ms / ms * 100).toFixed(1)
        }% (semi-space ${semiSpaceMB()}), event loop delay p99/max ${
          (loopDelay.percentile(99) / 1e6).toFixed(0)
        }/${(loopDelay.max / 1e6).toFixed(0)} ms` +
        (agents.kind === 'node' ? ', node agents' : ''),
    };
  } finally {
    driving = false;
    for (const pane of panes.values()) {
      if (pane.timer) clearTimeout(pane.timer);
      if (pane.file?.fd !== undefined) closeSync(pane.file.fd);
    }
    await host.close();
    await Promise.race([
      Promise.all([...panes.values()].map((p) => new Promise((r) => p.session.onExit(r)))),
      sleep(5000),
    ]);
    farm?.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The young generation's semi-space limit this process runs with (--max-semi-space-size). */
function semiSpaceMB(): string {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const mb = flags.map((a) => /^--max-semi-space-size=(\d+)$/.exec(a)?.[1]).filter(Boolean).pop();
  return mb ? `${mb} MB` : 'default';
}

/** With AGENTWATCH_BENCH_FALSE=1: prints each false blocked, with the screen published. */
function reportFalse(name: string, falses: { pane: HostPane; at: number }[]): void {
  if (!process.env.AGENTWATCH_BENCH_FALSE) return;
  for (const { pane, at } of falses) {
    const truth = pane.truth.filter((e) => e.t <= at + 2000 && e.t >= at - 3000);
    const screen = pane.screens.find((s) => s.t === at)?.text ?? '';
    console.error(
      `${name}: false blocked at ${at}: truth ${
        JSON.stringify(truth.map((e) => [e.t - at, e.state]))
      }, answers ${
        JSON.stringify(pane.answers.filter((a) => Math.abs(a - at) < 3000).map((a) => a - at))
      }, published ${
        JSON.stringify(
          pane.published.filter((p) => Math.abs(p.t - at) < 3000).map((p) => [p.t - at, p.state]),
        )
      }\n${screen.split('\n').filter((l) => l.trim()).slice(-16).join('\n')}\n`,
    );
  }
}

/** A pane of the synthetic case: an in-process session fed by the farm. */
interface SynthPane extends Followed {
  index: number;
  timer?: ReturnType<typeof setTimeout>;
  /** When each truth event of `truth` reached this process (ms since the epoch). */
  arrived: number[];
}

/**
 * Where the synthetic case's blocked latency goes, for its tail: per prompt seen, the part
 * before its truth reached this process (the farm's socket, this process waiting for a core:
 * the screen bytes come just before the truth) and the rest; the event loop's delay, the
 * garbage collector's pauses, the sweep's timer callbacks (wall time each) and how late its
 * timers fired, all in ms over the measured window.
 */
function tailOf(
  panes: SynthPane[],
  w0: number,
  w1: number,
  probes: {
    loopDelay: ReturnType<typeof monitorEventLoopDelay>;
    gc: number[];
    callbacks: number[];
    late: number[];
  },
): string {
  const parts: { total: number; before: number }[] = [];
  for (const pane of panes) {
    const truth = pane.truth;
    for (let k = 0; k + 1 < truth.length; k++) {
      if (truth[k].state !== 'blocked' || truth[k + 1].t > w1) continue;
      const seen = pane.published.find((p) =>
        p.state === 'blocked' && p.t >= truth[k].t - 5 && p.t <= truth[k + 1].t + 5
      );
      if (seen) parts.push({ total: seen.t - truth[k].t, before: pane.arrived[k] - truth[k].t });
    }
  }
  parts.sort((a, b) => b.total - a.total);
  const q = (xs: number[], p: number) => quantile(xs, p).toFixed(0);
  const ms = (ns: number) => (ns / 1e6).toFixed(0);
  const d = probes.loopDelay;
  const gcSum = probes.gc.reduce((a, b) => a + b, 0);
  return `blocked latency before the truth arrived p50/p99/max ${
    q(parts.map((p) => p.before), 0.5)
  }/${q(parts.map((p) => p.before), 0.99)}/${
    q(parts.map((p) => p.before), 1)
  } ms; slowest 5 (total=before+after): ${
    parts.slice(0, 5).map((p) =>
      `${p.total.toFixed(0)}=${p.before.toFixed(0)}+${(p.total - p.before).toFixed(0)}`
    )
      .join(' ')
  }; event loop delay p50/p99/max ${ms(d.percentile(50))}/${ms(d.percentile(99))}/${
    ms(d.max)
  } ms; GC ${probes.gc.length} pauses, ${gcSum.toFixed(0)} ms, max ${
    Math.max(0, ...probes.gc).toFixed(0)
  } ms; sweep callbacks ${probes.callbacks.length}, p99/max ${q(probes.callbacks, 0.99)}/${
    q(probes.callbacks, 1)
  } ms; timers late p50/p99/max ${q(probes.late, 0.5)}/${q(probes.late, 0.99)}/${
    q(probes.late, 1)
  } ms (window ${((w1 - w0) / 1000).toFixed(0)} s)`;
}

/** Runs the synthetic case: `n` in-process panes, the sweep mode, a window of `windowMs`. */
async function runSynthetic(
  n: number,
  adaptive: boolean,
  windowMs: number,
  profile?: string,
): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-synth-'));
  const random = rng(n * 11 + (adaptive ? 1 : 0));
  const between = ([lo, hi]: readonly [number, number]) => lo + (hi - lo) * random();
  const panes: SynthPane[] = [];
  let driving = false;
  // The sweep's own CPU time: its timers' callbacks (ticks and the adaptive slot, each serving
  // many panes) and direct evaluations, from process.cpuUsage around each (nested calls counted
  // once); its output listener (a few map operations per frame) by wall time, as a cpuUsage
  // call (a system call) around every frame would cost more than the listener.
  let sweepMs = 0;
  let sweepCpuMs = 0;
  let listenerMs = 0;
  let depth = 0;
  /** The tail's evidence (tailOf): wall ms of each sweep timer callback, and how late each fired. */
  const callbacks: number[] = [];
  const late: number[] = [];
  let probing = false;
  const timed = <A extends unknown[], R>(f: (...a: A) => R) => (...a: A): R => {
    if (depth++ > 0) {
      try {
        return f(...a);
      } finally {
        depth--;
      }
    }
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    try {
      return f(...a);
    } finally {
      depth--;
      const c = process.cpuUsage(c0);
      sweepCpuMs += (c.user + c.system) / 1000;
      const wall = performance.now() - t0;
      sweepMs += wall;
      if (probing) callbacks.push(wall);
    }
  };
  /** `f`, noting how late it runs when it is called `ms` from now (not timed as the sweep's). */
  const lateness = (f: () => void, ms: number) => {
    const due = performance.now() + ms;
    return () => {
      if (probing) late.push(performance.now() - due);
      f();
    };
  };
  const { sweep, feed } = inProcessSweep(n, {
    adaptive,
    onTransition: (i, state) => panes[i].published.push({ t: Date.now(), state }),
    timers: {
      setTimeout: (f, ms) => setTimeout(lateness(timed(f), ms), ms),
      clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
      setInterval: (f, ms) => setInterval(timed(f), ms),
      clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
    },
  });
  // a pane's own looks outside the sweep's timers (a look the typing guard asks for) timed too
  for (const pane of sweep.panes.values()) {
    pane.evaluateIfDue = timed(pane.evaluateIfDue.bind(pane));
    pane.classifyNow = timed(pane.classifyNow.bind(pane));
  }
  let vtMs = 0;

  let farm: { child: ChildProcess; socket: string } | undefined;
  let socket: Socket | undefined;
  const send = (i: number, keys: string) => {
    const payload = Buffer.from(keys);
    const head = Buffer.alloc(9);
    head.writeUInt32LE(i, 0);
    head.writeUInt8(0, 4);
    head.writeUInt32LE(payload.length, 5);
    socket?.write(Buffer.concat([head, payload]));
  };
  const schedule = (pane: SynthPane, ms: number, keys: string) => {
    if (pane.timer) clearTimeout(pane.timer);
    pane.timer = setTimeout(() => {
      pane.timer = undefined;
      if (driving) {
        if (keys === '1') pane.answers.push(Date.now());
        send(pane.index, keys);
      }
    }, ms);
  };
  const onTruth = (pane: SynthPane, e: TruthEvent) => {
    pane.truth.push(e);
    pane.arrived.push(Date.now());
    if (!driving) return;
    if (e.state === 'idle') schedule(pane, between(SYNTH_TASK_DELAY_MS), 'run the tests\r');
    else if (e.state === 'blocked') schedule(pane, between(SYNTH_ANSWER_DELAY_MS), '1');
  };
  try {
    farm = await startFarm(dir, SYNTH_SPEED);
    for (let i = 0; i < n; i++) {
      panes.push({ index: i, truth: [], published: [], answers: [], arrived: [] });
    }
    socket = connect(farm.socket);
    await new Promise<void>((r) => socket!.once('connect', () => r()));
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, d]) : d;
      let off = 0;
      while (pending.length - off >= 9) {
        const len = pending.readUInt32LE(off + 5);
        if (pending.length - off < 9 + len) break;
        const pane = panes[pending.readUInt32LE(off)];
        const payload = pending.subarray(off + 9, off + 9 + len);
        if (pending.readUInt8(off + 4) === 0) {
          const t0 = performance.now();
          const inListeners = feed(pane.index, payload, Date.now());
          listenerMs += inListeners;
          vtMs += performance.now() - t0 - inListeners;
        } else onTruth(pane, JSON.parse(payload.toString()) as TruthEvent);
        off += 9 + len;
      }
      pending = pending.subarray(off);
    });
    socket.write(`mux ${n}\n`);
    const t0 = Date.now();
    while (!panes.every((p) => p.truth.length > 0)) {
      if (Date.now() - t0 > 60_000) throw new Error('the agents did not start within 60 s');
      await sleep(100);
    }
    sweep.start();
    await sleep(1500);
    // the measured window
    const stopProfile = await profileWindow(profile);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    const gc: number[] = [];
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gc.push(e.duration);
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    loopDelay.enable();
    probing = true;
    const w0 = Date.now();
    const cpu0 = process.cpuUsage();
    const evals0 = sweep.stats.evaluations;
    sweepMs = 0;
    sweepCpuMs = 0;
    listenerMs = 0;
    vtMs = 0;
    driving = true;
    for (const pane of panes) {
      pane.truth.length = 0;
      pane.arrived.length = 0;
      pane.published.length = 0;
      onTruth(pane, { t: w0, state: 'idle' });
    }
    await sleep(windowMs);
    driving = false;
    const w1 = Date.now();
    const cpu = process.cpuUsage(cpu0);
    const evals = sweep.stats.evaluations - evals0;
    probing = false;
    loopDelay.disable();
    gcObserver.disconnect();
    await stopProfile();
    const mem = memoryAfterGc();
    await sleep(TRUTH_GRACE_MS);
    const scored = score(panes, w0, w1);
    log(`tail: ${tailOf(panes, w0, w1, { loopDelay, gc, callbacks, late })}\n`);
    const ms = w1 - w0;
    return {
      name: `synthetic-${n}`,
      panes: n,
      mode: adaptive ? 'adaptive' : `${DEFAULT_INTERVAL_MS} ms`,
      cpuPct: (sweepCpuMs + listenerMs) / ms * 100,
      blockedMedianMs: round(quantile(scored.blocked, 0.5)),
      blockedMaxMs: round(scored.blocked.length ? Math.max(...scored.blocked) : NaN),
      missed: scored.missed,
      falseBlocked: scored.falseBlocked,
      rssMB: Math.round(mem.rss / 2 ** 20),
      prompts: scored.prompts,
      windowS: ms / 1000,
      evalsPerS: evals / (ms / 1000),
      workingPct: scored.workingPct,
      note: `${(sweepCpuMs * 1000 / Math.max(1, evals)).toFixed(0)} µs/eval, listener ${
        (listenerMs / ms * 100).toFixed(1)
      }%, sweep wall ${(sweepMs / ms * 100).toFixed(1)}%, VT ${
        (vtMs / ms * 100).toFixed(1)
      }%, process ${((cpu.user + cpu.system) / 10 / ms).toFixed(0)}%`,
    };
  } finally {
    driving = false;
    sweep.stop();
    for (const p of panes) if (p.timer) clearTimeout(p.timer);
    socket?.destroy();
    farm?.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The baseline figures by case name (bench/baseline.json), empty when there is none. */
function readBaseline(): { label: string; cases: Map<string, CaseFigures> } {
  try {
    const b = JSON.parse(readFileSync(BASELINE, 'utf8')) as {
      label?: string;
      cases: CaseFigures[];
    };
    return { label: b.label ?? 'baseline', cases: new Map(b.cases.map((c) => [c.name, c])) };
  } catch {
    return { label: 'baseline', cases: new Map() };
  }
}

/** The table: each case, with its baseline row under it. */
function table(results: Result[], baseline: ReturnType<typeof readBaseline>): string {
  const head = [
    'case',
    'run',
    'mode',
    'prompts',
    'working %',
    'CPU %',
    'blocked ms med/max',
    'missed',
    'false',
    'evals/s',
    'RSS MB',
    'note',
  ];
  const ms = (x: number | null) => (x === null ? '-' : String(x));
  const rows: string[][] = [];
  for (const r of results) {
    rows.push([
      r.name,
      'now',
      r.mode,
      String(r.prompts),
      r.workingPct.toFixed(0),
      r.cpuPct.toFixed(1),
      `${ms(r.blockedMedianMs)}/${ms(r.blockedMaxMs)}`,
      String(r.missed),
      String(r.falseBlocked),
      r.evalsPerS.toFixed(0),
      String(r.rssMB),
      r.note,
    ]);
    const b = baseline.cases.get(r.name);
    if (b) {
      rows.push([
        '',
        baseline.label,
        b.mode,
        '',
        '',
        b.cpuPct.toFixed(1),
        `${ms(b.blockedMedianMs)}/${ms(b.blockedMaxMs)}`,
        String(b.missed),
        String(b.falseBlocked),
        '',
        String(b.rssMB),
        '',
      ]);
    }
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 3 || i === 11 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The soft limit on open files of this process. */
function fdLimit(): number {
  return Number(
    readFileSync('/proc/self/limits', 'utf8').match(/^Max open files\s+(\d+)/m)?.[1] ?? NaN,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      case: { type: 'string', default: 'synthetic-1000,host-10,host-100,host-1000' },
      seconds: { type: 'string' },
      mode: { type: 'string', default: 'adaptive' },
      agents: { type: 'string', default: 'farm' },
      json: { type: 'boolean', default: false },
      tsx: { type: 'boolean', default: false },
      profile: { type: 'string' },
      repeat: { type: 'string', default: '1' },
      idle: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: npm run bench:sweep -- [--case synthetic-N|host-N|replay-N[,...]] [--seconds S]\n' +
        '                              [--mode adaptive|default] [--agents farm|node] [--json]\n' +
        '                              [--profile PREFIX] [--repeat K] [--idle MIN-MAX]\n' +
        'default cases: synthetic-1000,host-10,host-100,host-1000 (see the top of bench/sweep.ts)\n',
    );
    return;
  }
  const names = values.case!.split(',').map((c) => c.trim()).filter(Boolean);
  for (const name of names) {
    if (!/^(synthetic|host|replay)-\d+$/.test(name)) {
      throw new Error(
        `--case ${name}: expected synthetic-N, host-N or replay-N (e.g. synthetic-1000)`,
      );
    }
  }
  if (values.idle !== undefined) {
    const m = /^(\d+)-(\d+)$/.exec(values.idle);
    if (!m || Number(m[1]) > Number(m[2])) {
      throw new Error(`--idle ${values.idle}: expected MIN-MAX in ms, e.g. 1500-4500`);
    }
    taskDelayMs = [Number(m[1]), Number(m[2])];
  }
  if (values.mode !== 'adaptive' && values.mode !== 'default') {
    throw new Error(`--mode ${values.mode}: expected adaptive or default`);
  }
  const adaptive = values.mode === 'adaptive';
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-agent-'));
  const load0 = loadavg()[0];
  try {
    let agents: Parameters<typeof runHost>[3] | undefined;
    if (names.some((c) => c.startsWith('host-'))) {
      const relay = values.agents === 'farm' ? buildRelay(dir) : null;
      if (values.agents === 'farm' && !relay) {
        log('note: no C compiler (cc): node agents instead\n');
      }
      agents = relay
        ? { kind: 'farm', relay, speed: SPEED }
        : { kind: 'node', command: await agentCommand(dir, values.tsx === true) };
      // warm-up: node-pty, the VT and the rules loaded and compiled before the first case
      await runHost(1, adaptive, 1500, agents, 'warm-up');
    }
    const results: Result[] = [];
    for (const name of names) {
      const [kind, count] = name.split('-');
      const n = Number(count);
      const windowMs = (values.seconds ? Number(values.seconds) : kind === 'host' ? 20 : 30) *
        1000;
      log(`${name}, ${values.mode}: `);
      if (kind === 'host' && fdLimit() < 3 * n + 256) {
        log(
          `skipped: the open-file limit is ${fdLimit()}, ${3 * n + 256} needed (raise the hard ` +
            `limit: ulimit -Hn 4096 as root)\n`,
        );
        continue;
      }
      const profile = values.profile ? `${values.profile}${name}.cpuprofile` : undefined;
      const r = kind === 'host'
        ? await runHost(n, adaptive, windowMs, agents!, name, profile)
        : kind === 'replay'
        ? await runReplay(n, adaptive, windowMs, profile, Number(values.repeat))
        : await runSynthetic(n, adaptive, windowMs, profile);
      log(`${r.prompts} prompts in ${r.windowS.toFixed(0)} s (${r.note})\n`);
      results.push(r);
    }
    if (values.json) {
      const cases: CaseFigures[] = results.map((r) => ({
        name: r.name,
        panes: r.panes,
        mode: r.mode,
        cpuPct: Math.round(r.cpuPct * 10) / 10,
        blockedMedianMs: r.blockedMedianMs,
        blockedMaxMs: r.blockedMaxMs,
        missed: r.missed,
        falseBlocked: r.falseBlocked,
        rssMB: r.rssMB,
      }));
      console.log(JSON.stringify({ cases }, null, 2));
      return;
    }
    console.log(table(results, readBaseline()));
    console.log(
      `(CPU: % of one core; synthetic: the sweep's own; host: this process minus the ` +
        `harness. blocked: prompt drawn -> state published; missed: never published while ` +
        `shown; false: published blocked while the truth was not. Node ${process.version}, ` +
        `${cpus().length} CPUs, load average ${load0.toFixed(1)} before, ` +
        `${loadavg()[0].toFixed(1)} after)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
