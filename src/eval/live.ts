/**
 * The live eval (the source's supervisor): the simulated agent (`agentwatch sim-agent`, the
 * demo's) in a real PTY of 32x120 writes its true state to a truth file that only this
 * evaluator reads (never the screen); a simulated person ({@link SimUser}) answers each prompt
 * 3-8 s after it appears and types the next task 3-10 s after a turn ends; every 50 ms each
 * detector of {@link DetectorBank} is logged, and twice a second the process table. The agent
 * gets the seed, the person the seed + 1; `speed` divides every delay of both (and the quiet
 * thresholds), not the product's own timings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Manifest } from '../detect/manifest.ts';
import { sessionForeground } from '../runtime/default-host.ts';
import { selfCommand } from '../runtime/self-command.ts';
import { Session } from '../runtime/session.ts';
import { analyse, type DetectorFigures, type RunLog } from './analysis.ts';
import { DetectorBank, SAMPLE_MS } from './detectors.ts';
import {
  PROCESS_SAMPLE_MS,
  type ProcessFigures,
  processFigures,
  type ProcessSample,
  sampleProcess,
} from './process-table.ts';
import { SimUser, TruthFollower } from '../sim/user.ts';

/** The PTY's size, cells (the source's 32x120). */
export const LIVE_ROWS = 32;
export const LIVE_COLS = 120;

/** How a live run is set up. */
export interface LiveOptions {
  seed: number;
  tasks: number;
  speed: number;
  /** The Claude Code rules (the simulated agent draws like Claude Code 2.1.332). */
  manifest: Manifest;
  /** Called about once a second and on every true state change. */
  onProgress?: (p: LiveProgress) => void;
  /** Gives up after this long, ms (default: 3 minutes per task at speed 1, divided by speed). */
  timeoutMs?: number;
}

/** Where a live run is. */
export interface LiveProgress {
  elapsedMs: number;
  tasksDone: number;
  tasks: number;
  prompts: number;
  state: string;
}

/** A live run's result. */
export interface LiveResult {
  seed: number;
  tasks: number;
  speed: number;
  /** ms since the epoch. */
  startedAt: number;
  durationMs: number;
  log: RunLog;
  figures: DetectorFigures[];
  process: ProcessFigures[];
  /** Turns finished (true working -> idle). */
  turns: number;
  /** True time spent blocked, ms. */
  blockedMs: number;
  /** Why the run ended: 'done' (the agent exited after its tasks), 'timeout', 'agent exited'. */
  ended: string;
}

/** Runs the live eval; see the file comment. @throws UserError when the agent cannot start. */
export async function runLive(options: LiveOptions): Promise<LiveResult> {
  const { seed, tasks, speed, manifest } = options;
  const dir = mkdtempSync(join(tmpdir(), 'agentwatch-eval-'));
  const truthFile = join(dir, 'truth.jsonl');
  const self = selfCommand();
  let session: Session;
  try {
    session = new Session({
      id: `eval-${seed}`,
      name: 'sim-agent',
      command: self.command,
      args: [
        ...self.args,
        'sim-agent',
        ...['--seed', String(seed), '--tasks', String(tasks), '--speed', String(speed)],
        ...['--truth', truthFile],
      ],
      rows: LIVE_ROWS,
      cols: LIVE_COLS,
      agent: manifest.id,
      headless: true,
      socket: join(dir, 'no-socket'),
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const startedAt = Date.now();
  const bank = new DetectorBank({
    session,
    manifest,
    now: Date.now,
    foreground: sessionForeground,
    speed,
  });
  const log: RunLog = { times: [], says: [], truth: [], end: 0 };
  const user = new SimUser({ seed: seed + 1, target: session, speed });
  const procSamples: ProcessSample[] = [];
  let turns = 0;
  let blockedMs = 0;
  let prompts = 0;
  let state = 'starting';
  let finish!: (why: string) => void;
  const finished = new Promise<string>((r) => (finish = r));
  const progress = () =>
    options.onProgress?.({
      elapsedMs: Date.now() - startedAt,
      tasksDone: turns,
      tasks,
      prompts,
      state,
    });
  const follower = new TruthFollower(truthFile, (e) => {
    const prev = log.truth[log.truth.length - 1];
    log.truth.push({ t: e.t, state: e.state });
    if (prev?.state === 'blocked') blockedMs += e.t - prev.t;
    if (e.state === 'blocked') prompts++;
    if (prev?.state === 'working' && e.state === 'idle') turns++;
    state = e.state;
    user.see(e.state);
    progress();
    if (e.state === 'exited') finish('done');
  });
  // The agent writes `exited` before it exits: read what is left first, so that a normal end
  // is 'done' however late the follower's next poll would come.
  session.onExit(() =>
    setTimeout(() => {
      follower.poll();
      finish('agent exited');
    }, 200)
  );
  const sampler = setInterval(() => {
    const says = bank.sample();
    log.times.push(Date.now());
    says.forEach((v, d) => (log.says[d] ??= []).push(v));
  }, SAMPLE_MS);
  let sampling = false;
  const procTimer = setInterval(() => {
    if (sampling || session.exit) return;
    sampling = true;
    void sampleProcess(session.pid).then((s) => {
      sampling = false;
      if (s) procSamples.push(s);
    });
  }, PROCESS_SAMPLE_MS);
  const ticker = setInterval(progress, 1000);
  const timeoutMs = options.timeoutMs ?? (tasks * 180_000) / speed + 60_000;
  const timer = setTimeout(() => finish('timeout'), timeoutMs);
  const ended = await finished;
  for (const t of [sampler, procTimer, ticker]) clearInterval(t);
  clearTimeout(timer);
  user.stop();
  follower.stop();
  bank.stop();
  session.kill('SIGTERM');
  const end = Date.now();
  log.end = end;
  rmSync(dir, { recursive: true, force: true });
  return {
    seed,
    tasks,
    speed,
    startedAt,
    durationMs: end - startedAt,
    log,
    figures: analyse(log),
    process: processFigures(procSamples, log.truth),
    turns,
    blockedMs,
    ended,
  };
}
