/**
 * `agentwatch demo [--seed N] [--duration S] [--agents N] [--interval MS] [--adaptive]`: the
 * board with simulated agents, for a machine with no agent installed (`npm start`).
 *
 * Starts `--agents` (default 3) simulated Claude Code sessions (`agentwatch sim-agent`, re-run
 * from this same executable, see {@link selfCommand}) headless in a {@link SessionHost} with
 * the `claude` manifest, each with a simulated user who reads the agent's true state from its
 * truth file (see `src/sim/user.ts` for why not from the sweep). On a terminal it shows
 * the live board (the same as `watch`: Enter attaches to a simulated agent, Ctrl-] comes back,
 * q ends early); otherwise it prints one line per transition. After `--duration` seconds
 * (default 60) it ends the sessions, restores the terminal and prints a summary per session:
 * transitions the sweep saw, prompts shown and answered, time blocked on the board and in truth,
 * and the board's delay in noticing each prompt.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Command, type Io, numberOption, UsageError } from './command.ts';
import {
  notifyOptionHelp,
  notifyOptionSpec,
  notifySettings,
  optionPlaceholders,
  sweepChoice,
  sweepOptionHelp,
  sweepOptionSpec,
} from './sweep-options.ts';
import { createNotifier, type Notice } from '../runtime/notify.ts';
import type { NotifyOptions } from '../runtime/notify-config.ts';
import { selfCommand } from './sim-agent.ts';
import { BoardUi, guardTerminal, SessionBook } from './watch.ts';
import { printable } from './board.ts';
import { createHost } from '../runtime/default-host.ts';
import type { SessionInfo } from '../runtime/protocol.ts';
import type { SessionState } from '../detect/types.ts';
import { SimUser, TruthFollower } from '../sim/user.ts';

/**
 * The demo board's key help: the watch's keys (see `WATCH_KEYS` in `board.ts`) but `n` (the
 * demo starts no session) and with q ending the demo.
 */
export const DEMO_KEYS =
  '↑/↓ select · Enter attach (Ctrl-] detaches) · a/1-9 answer · x clear exited · q end the demo';

/** Names of the simulated sessions, in order. */
export const DEMO_NAMES = ['backend', 'frontend', 'docs', 'infra', 'mobile', 'data'];

/**
 * The seed of agent `i` for demo seed `seed`: 10 * seed + i, so that each agent has its own
 * run (with the default seed 7, every agent's first task asks for permission and ends with
 * the "Would you like me to ...?" trap).
 */
export function agentSeed(seed: number, i: number): number {
  return seed * 10 + i;
}

/** What the demo counts per session. */
export interface DemoStats {
  name: string;
  /** State changes the sweep published. */
  transitions: number;
  /** Permission prompts the agent showed (truth) and the user answered. */
  promptsShown: number;
  promptsAnswered: number;
  /** Time blocked as the board showed it, and as it truly was, ms. */
  blockedBoardMs: number;
  blockedTrueMs: number;
  /** For each prompt the board noticed: ms from the prompt's appearance to the board's blocked. */
  latenciesMs: number[];
  /** Prompts that ended before the board showed them blocked. */
  missed: number;
  /** The notices of blocked prompts, matched to the prompts shown (see {@link noticeStats}). */
  notices?: NoticeStats;
}

/** The question of the simulated agent's permission dialog (src/sim/agent.ts). */
const SIM_QUESTION = 'Do you want to proceed?';

/** How the notices of one session's prompts went. */
export interface NoticeStats {
  /** Blocked notices sent. */
  sent: number;
  /** Prompts (truth) with at least one notice. */
  announced: number;
  /** Notices carrying the dialog's question (`question` of the caller). */
  rightQuestion: number;
  /** Notices beyond the first of one prompt. */
  duplicates: number;
  /** Notices sent while no prompt was up (within `toleranceMs` after one ended). */
  stray: number;
}

/**
 * Matches blocked notices (`t`, question) to the true prompts (blocked spells of `truth`):
 * a notice belongs to the prompt up at its time, or that ended at most `toleranceMs` before.
 */
export function noticeStats(
  truth: ReadonlyArray<{ t: number; state: string }>,
  notices: ReadonlyArray<{ t: number; question: string }>,
  question: string,
  end: number,
  toleranceMs: number,
): NoticeStats {
  const spells: Array<{ from: number; to: number; count: number }> = [];
  for (let i = 0; i < truth.length; i++) {
    if (truth[i].state !== 'blocked') continue;
    spells.push({ from: truth[i].t, to: truth[i + 1]?.t ?? end, count: 0 });
  }
  let stray = 0;
  for (const n of notices) {
    const spell = spells.find((s) => n.t >= s.from && n.t <= s.to + toleranceMs);
    if (spell) spell.count++;
    else stray++;
  }
  return {
    sent: notices.length,
    announced: spells.filter((s) => s.count > 0).length,
    rightQuestion: notices.filter((n) => n.question === question).length,
    duplicates: spells.reduce((sum, s) => sum + Math.max(0, s.count - 1), 0),
    stray,
  };
}

/** Sums the time spent in `state` from a list of (t, state) changes up to `end`, ms. */
export function timeIn(
  changes: ReadonlyArray<{ t: number; state: string }>,
  state: string,
  end: number,
): number {
  let total = 0;
  for (let i = 0; i < changes.length; i++) {
    if (changes[i].state !== state) continue;
    const until = i + 1 < changes.length ? changes[i + 1].t : end;
    total += Math.max(0, until - changes[i].t);
  }
  return total;
}

/**
 * Matches true prompts with the board's blocked episodes: a prompt is noticed when the board
 * turned blocked while it showed (or within `slackMs` after it was answered, one sweep late).
 */
export function promptLatencies(
  truth: ReadonlyArray<{ t: number; state: string }>,
  board: ReadonlyArray<{ t: number; state: string }>,
  end: number,
  slackMs = 0,
): { latenciesMs: number[]; missed: number } {
  const latenciesMs: number[] = [];
  let missed = 0;
  for (let i = 0; i < truth.length; i++) {
    if (truth[i].state !== 'blocked') continue;
    const from = truth[i].t;
    const to = (i + 1 < truth.length ? truth[i + 1].t : end) + slackMs;
    const seen = board.find((b, j) =>
      b.state === 'blocked' && (j === 0 || board[j - 1].state !== 'blocked') && b.t >= from &&
      b.t <= to
    );
    if (seen) latenciesMs.push(seen.t - from);
    else missed++;
  }
  return { latenciesMs, missed };
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function median(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The summary printed at the end: one block per session. */
export function formatSummary(stats: DemoStats[], durationMs: number): string {
  const lines = [
    `agentwatch demo: ${plural(stats.length, 'simulated session')} for ${seconds(durationMs)}`,
  ];
  for (const s of stats) {
    const lat = s.latenciesMs.length
      ? `board noticed ${s.latenciesMs.length}/${s.promptsShown} prompts, median ${
        seconds(median(s.latenciesMs))
      } after they appeared`
      : `board noticed 0/${s.promptsShown} prompts`;
    const transitions = plural(s.transitions, 'transition');
    const prompts = `${s.promptsAnswered}/${s.promptsShown} prompts answered`;
    const blocked = `blocked ${seconds(s.blockedBoardMs)} on the board, ${
      seconds(s.blockedTrueMs)
    } in truth`;
    const n = s.notices;
    const notices = n
      ? ` · ${
        plural(n.sent, 'notice')
      } (${n.announced}/${s.promptsShown} prompts announced, ${n.rightQuestion} with the dialog's question, ${n.duplicates} duplicate, ${n.stray} stray)`
      : '';
    lines.push(
      `  ${s.name.padEnd(9)} ${transitions} · ${prompts} · ${blocked} · ${lat}${notices}`,
    );
  }
  return lines.join('\n') + '\n';
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'the board with simulated agents (no agent needed): states change live for a minute',
  usage: 'demo [--seed N] [--duration S] [--agents N] [--speed X] [--interval MS] [--adaptive]',
  options: {
    seed: { type: 'string' },
    duration: { type: 'string' },
    agents: { type: 'string' },
    speed: { type: 'string' },
    ...sweepOptionSpec,
    ...notifyOptionSpec,
  },
  placeholders: optionPlaceholders,
  help: {
    seed: 'seed of the simulated agents and users (default 7)',
    duration: 'seconds until the demo ends by itself (default 60)',
    agents: 'how many simulated agents (1-6, default 3)',
    speed: 'time factor of the simulation: 2 runs it twice as fast (default 1)',
    ...sweepOptionHelp,
    ...notifyOptionHelp,
  },
  async run(values, positionals, io) {
    if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const seed = Math.floor(numberOption(values, 'seed', 7, 0, 2 ** 31));
    const durationMs = numberOption(values, 'duration', 60, 1, 86400) * 1000;
    const count = Math.floor(numberOption(values, 'agents', 3, 1, DEMO_NAMES.length));
    const speed = numberOption(values, 'speed', 1, 0.1, 100);
    const choice = sweepChoice(values);
    return await runDemo({
      seed,
      durationMs,
      count,
      speed,
      intervalMs: choice.intervalMs,
      adaptive: choice.adaptive ?? true,
      notify: notifySettings(values),
    }, io);
  },
};

/** The demo's settings. */
export interface DemoOptions {
  seed: number;
  durationMs: number;
  count: number;
  speed: number;
  intervalMs?: number;
  adaptive?: boolean;
  /** Show the board (default: when stdin and stdout are terminals). */
  board?: boolean;
  /** Notifications (default: none). */
  notify?: NotifyOptions;
}

/** Runs the demo; returns the exit code. */
export async function runDemo(opts: DemoOptions, io: Io): Promise<number> {
  const stdout = process.stdout;
  const board = opts.board ?? (process.stdin.isTTY === true && stdout.isTTY === true);
  const host = createHost({ intervalMs: opts.intervalMs, adaptive: opts.adaptive });
  const dir = mkdtempSync(join(tmpdir(), 'agentwatch-demo-'));
  const self = selfCommand();
  const t0 = Date.now();
  interface Sim {
    name: string;
    id: string;
    user: SimUser;
    follower: TruthFollower;
    board: Array<{ t: number; state: SessionState }>;
    transitions: number;
    notices: Array<{ t: number; question: string }>;
  }
  const sims: Sim[] = [];
  const notifier = opts.notify
    ? createNotifier(opts.notify, {
      terminal: board ? (s) => stdout.write(s) : undefined,
      focused: (id) => host.focused(id, opts.notify!.focusMs),
    })
    : null;
  if (notifier) {
    host.notifyFailures = () => notifier.failures();
    notifier.onNotice = (n: Notice) => {
      if (n.kind === 'blocked') {
        sims.find((s) => s.id === n.info.id)?.notices.push({ t: Date.now(), question: n.question });
      }
    };
  }
  let ui: BoardUi | null = null;
  const book = new SessionBook({
    host,
    remote: false, // the demo shows its own sessions only
    onChange: (info: SessionInfo, prev) => {
      const sim = sims.find((s) => s.id === info.id);
      if (sim && prev) {
        sim.transitions++;
        sim.board.push({ t: info.since, state: info.state });
      }
      if (!board && prev) {
        const detail = info.state === 'blocked' && info.question
          ? `  ${printable(info.question)}`
          : '';
        io.stdout(
          `${seconds(Date.now() - t0).padStart(7)}  ${info.name.padEnd(9)} ${prev.padEnd(7)} -> ${
            info.state.padEnd(7)
          }${detail}`.trimEnd() + '\n',
        );
      }
      ui?.requestRender();
    },
  });
  const interval = opts.intervalMs ?? 700;
  if (!board) {
    io.stdout(
      `agentwatch demo: ${plural(opts.count, 'simulated Claude Code session')} for ${
        seconds(opts.durationMs)
      } ` +
        `(seed ${opts.seed}, sweep every ${interval} ms${opts.adaptive ? ', adaptive' : ''})\n`,
    );
  }
  let unguard = () => {};
  if (notifier) host.onPublish((info) => notifier.observe(info));
  try {
    for (let i = 0; i < opts.count; i++) {
      const name = DEMO_NAMES[i];
      const truth = join(dir, `${name}.truth.jsonl`);
      const session = await host.start({
        command: self.command,
        args: [
          ...self.args,
          'sim-agent',
          '--seed',
          String(agentSeed(opts.seed, i)),
          '--truth',
          truth,
          '--speed',
          String(opts.speed),
        ],
        name,
        agent: 'claude',
        headless: true,
        rows: 32,
        cols: 120,
      });
      // The simulated person's keys are noted (the notifier tells an answered prompt from one
      // that flaps), but not as focus: the person watching the demo types nothing.
      const target = {
        write: (data: string) => {
          host.noteInput(session.id, Date.now(), false);
          session.write(data);
        },
      };
      const user = new SimUser({ seed: opts.seed * 1000 + i, target, speed: opts.speed });
      const sim: Sim = {
        name,
        id: session.id,
        user,
        follower: new TruthFollower(truth, (e) => user.see(e.state)),
        board: [{ t: Date.now(), state: 'idle' }],
        transitions: 0,
        notices: [],
      };
      sims.push(sim);
      notifier?.observe(host.info(session.id));
      book.addLocal(session.id);
    }
    const end = t0 + opts.durationMs;
    const timer = new Promise<void>((resolve) =>
      setTimeout(resolve, Math.max(0, end - Date.now()))
    );
    if (board) {
      ui = new BoardUi({
        book,
        title: 'agentwatch demo',
        confirmQuit: false,
        keys: DEMO_KEYS,
        status: () =>
          `simulated agents and users · ends in ${
            Math.max(0, Math.ceil((end - Date.now()) / 1000))
          } s`,
      });
      unguard = guardTerminal(ui, host, io, 'demo');
      const stop = () => ui?.quit();
      process.once('SIGTERM', stop);
      process.once('SIGHUP', stop);
      ui.start();
      await Promise.race([timer, ui.done]);
      process.off('SIGTERM', stop);
      process.off('SIGHUP', stop);
      ui.restore();
    } else {
      let stop = () => {};
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(sig, stop);
      await Promise.race([timer, stopped]);
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(sig, stop);
    }
  } finally {
    for (const s of sims) s.user.stop();
    const endAt = Date.now();
    for (const s of sims) s.follower.stop();
    book.close();
    notifier?.close();
    await host.close();
    unguard();
    const stats: DemoStats[] = sims.map((s) => {
      const truth = s.follower.events.filter((e) => e.t <= endAt);
      const { latenciesMs, missed } = promptLatencies(truth, s.board, endAt, interval + 100);
      return {
        name: s.name,
        transitions: s.transitions,
        promptsShown: truth.filter((e) => e.state === 'blocked').length,
        promptsAnswered: s.user.stats.promptsAnswered,
        blockedBoardMs: timeIn(s.board, 'blocked', endAt),
        blockedTrueMs: timeIn(truth, 'blocked', endAt),
        latenciesMs,
        missed,
        notices: notifier
          ? noticeStats(truth, s.notices, SIM_QUESTION, endAt, interval + 100)
          : undefined,
      };
    });
    if (sims.length) io.stdout(formatSummary(stats, endAt - t0));
    rmSync(dir, { recursive: true, force: true });
  }
  return 0;
}
