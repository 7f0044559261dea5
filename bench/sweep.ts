/**
 * `node --import tsx bench/sweep.ts`: what the live sweep costs and how fast it sees a prompt,
 * for 1, 10 and 100 sessions of the simulated agent (src/eval/sim-agent.ts, the `sim-agent`
 * command: Claude Code 2.1.332's drawing, 10 Hz spinner, permission prompts, its true state
 * written with timestamps to a truth file), with the default 700 ms sweep and in adaptive mode.
 *
 * Each case hosts N sessions in this process (a SessionHost with the bundled manifests and the
 * real foreground reader, sockets in a temporary AGENTWATCH_DIR) and drives every agent like
 * a quick user: a task 0.2-1.2 s after the agent goes idle; a prompt answered ('1') 0.2-0.6 s
 * after the host has published it blocked (at least 0.5 s after it was drawn; after 5 s
 * without it, answered anyway and counted as missed). Then, from the truth files and the
 * host's transitions:
 * - blocked latency: prompt drawn (truth time) -> `blocked` published (onTransition);
 * - clear latency: answer key written -> the state published leaves `blocked`;
 * - host CPU: process.cpuUsage over the measured window, as % of one core, minus the time
 *   this harness spends in its own code (truth polling, driving; measured with cpuUsage too);
 *   the sweep's evaluation time from Sweep.stats (wall time inside evaluate, so it grows when
 *   the machine is loaded and the process is preempted) and evaluations per second;
 * - memory: RSS at the end of the window; per pane, the growth from before the sessions
 *   started to the end of the window, after a GC, divided by N: of RSS (noisy, freed memory
 *   stays resident) and of the JS heap plus external memory (buffers: the 64 KB ring).
 *
 * The agents start from one esbuild bundle of the `sim-agent` command made at start-up (the same
 * sources, compiled once): `node --import tsx src/cli/main.ts sim-agent` costs about 1 s of CPU
 * per start here, 100 starts per mode would be most of the time budget. `--tsx` starts them
 * exactly that way instead. Options: `--sessions 1,10,100`, `--seconds S` (measured window of
 * every case; default 25 s for 1 session, 15 s otherwise), `--modes default,adaptive`.
 * A full run takes about 2.5 minutes on a 2-core machine (one warm-up case first).
 */
import { build } from 'esbuild';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sessionForeground } from '../src/runtime/default-host.ts';
import { type HostOptions, SessionHost } from '../src/runtime/host.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import type { Session } from '../src/runtime/session.ts';
import { DEFAULT_INTERVAL_MS } from '../src/runtime/sweep.ts';

const ROOT = join(import.meta.dirname, '..');
const SPEED = 6; // the sim agent's time factor: its thinking and tool calls 6 times shorter
const TASK_DELAY_MS: readonly [number, number] = [200, 1200];
const ANSWER_DELAY_MS: readonly [number, number] = [200, 600];
const ANSWER_MIN_MS = 500;
const ANSWER_GIVE_UP_MS = 5000;
const POLL_MS = 200;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** One row of the table. */
interface Result {
  sessions: number;
  mode: string;
  startS: number;
  windowS: number;
  prompts: number;
  missed: number;
  falseBlocked: number;
  blocked: number[];
  clear: number[];
  cpuPct: number;
  harnessPct: number;
  evalPct: number;
  evalsPerS: number;
  rssMb: number;
  /** Growth of the JS heap plus external memory (buffers) per session, KB. */
  perPaneKb: number;
  /** Growth of RSS per session, KB (noisy: freed memory stays resident). */
  rssPerPaneKb: number;
}

/** A truth line of the sim agent. */
interface TruthEvent {
  t: number;
  state: string;
}

/** A session as the driver follows it. */
interface Pane {
  session: Session;
  truthPath: string;
  fd?: number;
  offset: number;
  pending: string;
  truth: TruthEvent[];
  /** The host's published states, with the time they were published. */
  published: TruthEvent[];
  /** When the answer keys were written. */
  answers: number[];
  timer?: ReturnType<typeof setTimeout>;
  /** The truth blocked event being handled, and when the host published it. */
  open?: { shownAt: number; publishedAt?: number; answered: boolean };
}

/** A seeded PRNG (mulberry32), for the driver's delays. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The p-quantile (0..1) of `xs` (nearest rank), NaN for none. */
function quantile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/** Resolves after `ms` milliseconds. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RSS and JS heap + external memory in bytes, after a full GC. */
function memoryAfterGc(): { rss: number; heap: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external };
}

/**
 * How to start one simulated agent: the bundled `sim-agent` command (made once, in `dir`), or
 * with `--tsx` the source entry as the CLI runs it.
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

/** Reads what the agent appended to its truth file since the last call. */
function pollTruth(pane: Pane): TruthEvent[] {
  if (pane.fd === undefined) {
    try {
      pane.fd = openSync(pane.truthPath, 'r');
    } catch {
      return [];
    }
  }
  const buf = Buffer.alloc(16 * 1024);
  let n: number;
  while ((n = readSync(pane.fd, buf, 0, buf.length, pane.offset)) > 0) {
    pane.offset += n;
    pane.pending += buf.subarray(0, n).toString('utf8');
  }
  const out: TruthEvent[] = [];
  let nl: number;
  while ((nl = pane.pending.indexOf('\n')) >= 0) {
    const line = pane.pending.slice(0, nl);
    pane.pending = pane.pending.slice(nl + 1);
    try {
      out.push(JSON.parse(line) as TruthEvent);
    } catch {
      // a line cut by a concurrent write comes whole next time
    }
  }
  pane.truth.push(...out);
  return out;
}

/** Runs one case: `n` sessions, one sweep mode, a measured window of `windowMs`. */
async function runCase(
  n: number,
  adaptive: boolean,
  windowMs: number,
  agent: string[],
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
  const panes = new Map<string, Pane>();
  const random = rng(n * 7 + (adaptive ? 1 : 0));
  const between = ([lo, hi]: readonly [number, number]) => lo + (hi - lo) * random();
  let driving = false;
  let harnessMs = 0; // CPU time (process.cpuUsage) this harness spends in its own callbacks
  /** Runs `f`, adding the CPU time it takes to the harness's account. */
  const harness = (f: () => void) => {
    const c0 = process.cpuUsage();
    f();
    const c = process.cpuUsage(c0);
    harnessMs += (c.user + c.system) / 1000;
  };

  host.onTransition(({ info }) => {
    const pane = panes.get(info.id);
    if (!pane) return;
    const at = Date.now();
    pane.published.push({ t: at, state: info.state });
    if (info.state === 'blocked' && pane.open && pane.open.publishedAt === undefined) {
      pane.open.publishedAt = at;
      schedule(pane, Math.max(pane.open.shownAt + ANSWER_MIN_MS - at, between(ANSWER_DELAY_MS)));
    }
  });

  /** Replaces the pane's pending action. */
  const schedule = (pane: Pane, ms: number, act: () => void = () => answer(pane)) => {
    if (pane.timer) clearTimeout(pane.timer);
    pane.timer = setTimeout(() => {
      pane.timer = undefined;
      if (driving) harness(act);
    }, Math.max(0, ms));
  };
  const answer = (pane: Pane) => {
    if (!pane.open || pane.open.answered) return;
    pane.open.answered = true;
    pane.answers.push(Date.now());
    pane.session.write('1');
  };
  /** Reacts to the agent's true state changes. */
  const onTruth = (pane: Pane, e: TruthEvent) => {
    if (e.state === 'idle') {
      pane.open = undefined;
      schedule(pane, between(TASK_DELAY_MS), () => pane.session.write('run the tests\r'));
    } else if (e.state === 'blocked') {
      pane.open = { shownAt: e.t, answered: false };
      // the host may have published it before this poll saw the truth line
      const seen = pane.published.find((p) => p.state === 'blocked' && p.t >= e.t - 5);
      if (seen) {
        pane.open.publishedAt = seen.t;
        schedule(pane, Math.max(e.t + ANSWER_MIN_MS - Date.now(), between(ANSWER_DELAY_MS)));
      } else schedule(pane, e.t + ANSWER_GIVE_UP_MS - Date.now());
    } else if (e.state === 'working') {
      if (pane.open?.answered) pane.open = undefined;
    }
  };

  try {
    await sleep(1000); // the previous case's PTYs and sockets are released
    const mem0 = memoryAfterGc();
    const t0 = Date.now();
    for (let i = 0; i < n; i++) {
      const truthPath = join(dir, `truth-${i}.jsonl`);
      const session = await host.start({
        command: agent[0],
        args: [
          ...agent.slice(1),
          '--seed',
          String(i + 1),
          '--speed',
          String(SPEED),
          '--truth',
          truthPath,
        ],
        name: `sim${i}`,
        agent: 'claude',
        cwd: ROOT,
        headless: true,
      });
      panes.set(session.id, {
        session,
        truthPath,
        offset: 0,
        pending: '',
        truth: [],
        published: [],
        answers: [],
      });
    }
    // every agent has drawn its idle frame
    for (;;) {
      for (const pane of panes.values()) pollTruth(pane);
      if ([...panes.values()].every((p) => p.truth.some((e) => e.state === 'idle'))) break;
      if (Date.now() - t0 > 120_000) throw new Error('the agents did not start within 120 s');
      await sleep(100);
    }
    const startS = (Date.now() - t0) / 1000;
    await sleep(800); // start-up redraws settle; every pane has been swept once

    // the measured window
    const cpu0 = process.cpuUsage();
    const stats0 = { ...host.sweep.stats };
    const w0 = Date.now();
    driving = true;
    for (const pane of panes.values()) {
      pane.truth.length = 0;
      pane.published.length = 0;
      onTruth(pane, { t: w0, state: 'idle' });
    }
    const poller = setInterval(() =>
      harness(() => {
        for (const pane of panes.values()) for (const e of pollTruth(pane)) onTruth(pane, e);
      }), POLL_MS);
    await sleep(windowMs);
    driving = false;
    clearInterval(poller);
    const w1 = Date.now();
    const cpu = process.cpuUsage(cpu0);
    const stats = host.sweep.stats;
    const mem1 = memoryAfterGc();
    for (const pane of panes.values()) pollTruth(pane);

    // prompts: drawn -> published blocked; answered -> published not blocked
    const blocked: number[] = [];
    const clear: number[] = [];
    let prompts = 0;
    let missed = 0;
    let falseBlocked = 0;
    for (const pane of panes.values()) {
      const truth = pane.truth;
      for (let k = 0; k < truth.length; k++) {
        if (truth[k].state !== 'blocked') continue;
        const end = truth[k + 1]?.t;
        if (end === undefined || end > w1) continue; // still open when the window closed
        prompts++;
        const seen = pane.published.find((p) =>
          p.state === 'blocked' && p.t >= truth[k].t - 5 && p.t <= end + 5
        );
        if (seen) blocked.push(seen.t - truth[k].t);
        else missed++;
        const answeredAt = pane.answers.find((a) => a >= truth[k].t && a <= end + 5);
        if (answeredAt === undefined || !seen) continue;
        const left = pane.published.find((p) => p.t >= answeredAt && p.state !== 'blocked');
        if (left) clear.push(left.t - answeredAt);
      }
      // a blocked published while the truth was not blocked (give the truth 50 ms to lead)
      for (const p of pane.published) {
        if (p.state !== 'blocked') continue;
        const before = truth.filter((e) => e.t <= p.t + 50).pop();
        if (before && before.state !== 'blocked') falseBlocked++;
      }
    }
    const ms = w1 - w0;
    return {
      sessions: n,
      mode: adaptive ? 'adaptive' : `${DEFAULT_INTERVAL_MS} ms`,
      startS,
      windowS: ms / 1000,
      prompts,
      missed,
      falseBlocked,
      blocked,
      clear,
      cpuPct: ((cpu.user + cpu.system) / 1000 - harnessMs) / ms * 100,
      harnessPct: harnessMs / ms * 100,
      evalPct: (stats.evalMs - stats0.evalMs) / ms * 100,
      evalsPerS: (stats.evaluations - stats0.evaluations) / (ms / 1000),
      rssMb: mem1.rss / 2 ** 20,
      perPaneKb: (mem1.heap - mem0.heap) / n / 1024,
      rssPerPaneKb: (mem1.rss - mem0.rss) / n / 1024,
    };
  } finally {
    driving = false;
    for (const pane of panes.values()) {
      if (pane.timer) clearTimeout(pane.timer);
      if (pane.fd !== undefined) closeSync(pane.fd);
    }
    await host.close();
    await Promise.race([
      Promise.all([...panes.values()].map((p) => new Promise((r) => p.session.onExit(r)))),
      sleep(3000),
    ]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `12/34` from two numbers of ms, rounded; '-' for none. */
function pair(xs: number[]): string {
  if (!xs.length) return '-';
  return `${Math.round(quantile(xs, 0.5))}/${Math.round(Math.max(...xs))}`;
}

/** The table, one line per case. */
function table(results: Result[]): string {
  const head = [
    'sessions',
    'sweep',
    'prompts',
    'missed',
    'false',
    'blocked ms med/max',
    'clear ms med/max',
    'host CPU %',
    'eval CPU %',
    'evals/s',
    'RSS MB',
    'RSS KB/pane',
    'heap KB/pane',
  ];
  const rows = results.map((r) => [
    String(r.sessions),
    r.mode,
    String(r.prompts),
    String(r.missed),
    String(r.falseBlocked),
    pair(r.blocked),
    pair(r.clear),
    r.cpuPct.toFixed(1),
    r.evalPct.toFixed(2),
    r.evalsPerS.toFixed(0),
    r.rssMb.toFixed(0),
    // one pane is below the noise of these figures
    r.sessions >= 10 ? r.rssPerPaneKb.toFixed(0) : '-',
    r.sessions >= 10 ? r.perPaneKb.toFixed(0) : '-',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/**
 * One line from the numbers: adaptive becomes the default when, at the largest session count,
 * it at least halves the median blocked latency for at most 10 points of one core more.
 */
function recommendation(results: Result[]): string {
  const n = Math.max(...results.map((r) => r.sessions));
  const d = results.find((r) => r.sessions === n && !r.mode.startsWith('adaptive'));
  const a = results.find((r) => r.sessions === n && r.mode === 'adaptive');
  if (!d || !a) return 'Recommendation: run both modes to compare.';
  const dm = quantile(d.blocked, 0.5);
  const am = quantile(a.blocked, 0.5);
  const extra = a.cpuPct - d.cpuPct;
  const figures = `at ${n} session${n === 1 ? '' : 's'} adaptive sees a prompt in a median ` +
    `${Math.round(am)} ms (max ${Math.round(Math.max(...a.blocked))}) against ` +
    `${Math.round(dm)} ms (max ${Math.round(Math.max(...d.blocked))}) for ` +
    `${extra >= 0 ? '+' : ''}${extra.toFixed(1)} points of one core`;
  return am <= dm / 2 && extra <= 10
    ? `Recommendation: make adaptive the default: ${figures}.`
    : `Recommendation: keep the ${DEFAULT_INTERVAL_MS} ms sweep as the default: ${figures}.`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sessions: { type: 'string', default: '1,10,100' },
      seconds: { type: 'string' },
      modes: { type: 'string', default: 'default,adaptive' },
      tsx: { type: 'boolean', default: false },
    },
  });
  const counts = values.sessions!.split(',').map(Number).filter((x) => x > 0);
  const modes = values.modes!.split(',').map((m) => m.trim());
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-agent-'));
  const load0 = loadavg()[0];
  try {
    const agent = await agentCommand(dir, values.tsx === true);
    const limit = Number(
      readFileSync('/proc/self/limits', 'utf8').match(
        /^Max open files\s+(\d+)/m,
      )?.[1] ?? NaN,
    );
    if (limit < 4 * Math.max(...counts) + 64) {
      console.error(`note: ulimit -n is ${limit}; each session takes 2 descriptors here`);
    }
    // warm-up: node-pty, the VT and the rules loaded and compiled before any RSS baseline
    await runCase(1, true, 1500, agent);
    const results: Result[] = [];
    for (const n of counts) {
      for (const mode of modes) {
        const windowMs = (values.seconds ? Number(values.seconds) : n === 1 ? 25 : 15) * 1000;
        process.stderr.write(`${n} session(s), ${mode}: `);
        const r = await runCase(n, mode === 'adaptive', windowMs, agent);
        process.stderr.write(
          `started in ${r.startS.toFixed(1)} s, ${r.prompts} prompts in ${
            r.windowS.toFixed(0)
          } s\n`,
        );
        results.push(r);
      }
    }
    console.log(table(results));
    const harness = Math.max(...results.map((r) => r.harnessPct));
    console.log(
      `(blocked: prompt drawn -> state published; clear: answer written -> state published; ` +
        `host CPU excludes this harness, at most ${harness.toFixed(1)}% of a core; ` +
        `per pane: growth over the case after a GC / sessions, from 10 sessions (heap = JS ` +
        `heap + buffers); ` +
        `agents at speed ${SPEED}; node ${process.version}, ${cpus().length} CPUs, load average ` +
        `${load0.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after)`,
    );
    console.log(recommendation(results));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
