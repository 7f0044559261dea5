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
import { BoardUi } from './board/ui.ts';
import { guardTerminal, STOP_SIGNALS } from './board/tty.ts';
import { killSessions } from './board/hosted.ts';
import { SessionDirectory } from '../runtime/session-directory.ts';
import { printable } from './printable.ts';
import { createHost } from '../runtime/default-host.ts';
import type { SessionInfo } from '../runtime/protocol.ts';
import type { SessionState } from '../detect/types.ts';
import { ANSWER_DELAY_MS, SimUser, TruthFollower } from '../sim/user.ts';
import { ADAPTIVE_MIN_MS, ADAPTIVE_SLOT_MS, DEFAULT_INTERVAL_MS } from '../runtime/sweep.ts';
import {
  type DemoStats,
  formatSummary,
  noticeStats,
  plural,
  promptLatencies,
  seconds,
  timeIn,
} from './demo-stats.ts';

/**
 * The demo board's key help: the watch's keys (see `WATCH_KEYS` in `board/render.ts`) but `n` (the
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

/**
 * The fastest `--speed` at which the sweep sees every simulated prompt: the simulated person
 * answers a prompt {@link ANSWER_DELAY_MS}[0] / speed ms after it shows at the earliest, and
 * the sweep looks at a changed screen up to `look` ms after it changed (adaptive: within
 * {@link ADAPTIVE_MIN_MS} plus a {@link ADAPTIVE_SLOT_MS} slot, or the interval when shorter;
 * else every `intervalMs`); the shortest prompt must last twice that (a loaded machine looks
 * late). A faster demo would report prompts missed that no real person answers that fast.
 * Rounded down to a tenth; `intervalMs` in ms.
 */
export function maxDemoSpeed(intervalMs: number, adaptive: boolean): number {
  const look = adaptive ? Math.min(intervalMs, ADAPTIVE_MIN_MS + ADAPTIVE_SLOT_MS) : intervalMs;
  return Math.floor((ANSWER_DELAY_MS[0] / (2 * look)) * 10) / 10;
}

/** The question of the simulated agent's permission dialog (src/sim/agent.ts). */
const SIM_QUESTION = 'Do you want to proceed?';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'the board with simulated agents (no agent needed): states change live for a minute',
  usage: 'demo [--seed N] [--duration S] [--agents N] [--speed X] [--interval MS] [--adaptive]',
  maxArgs: 0,
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
    speed:
      'time factor of the simulation: 2 runs it twice as fast (default 1; at most 12 with the ' +
      'default sweep, less with a slower one)',
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
    const interval = choice.intervalMs ?? DEFAULT_INTERVAL_MS;
    const adaptive = choice.adaptive ?? true;
    const max = maxDemoSpeed(interval, adaptive);
    if (speed > max) {
      throw new UsageError(
        `--speed ${speed} is faster than the sweep can follow: the simulated person answers a ` +
          `prompt ${Math.round(ANSWER_DELAY_MS[0] / speed)} ms after it shows, and the sweep ` +
          `${adaptive ? 'looks at a changed screen' : `looks every ${interval} ms,`} up to ${
            adaptive ? Math.min(interval, ADAPTIVE_MIN_MS + ADAPTIVE_SLOT_MS) : interval
          } ms after it changed; with this sweep, at most --speed ${max}`,
      );
    }
    return await runDemo({
      seed,
      durationMs,
      count,
      speed,
      intervalMs: choice.intervalMs,
      adaptive,
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
  const dir = mkdtempSync(join(tmpdir(), 'agentwatch-demo-'));
  // The simulated sessions' control sockets live in the demo's own folder, not the person's
  // socket folder: `ls`, `wait --all` and other boards must not take them for real agents.
  const host = createHost({ intervalMs: opts.intervalMs, adaptive: opts.adaptive }, {
    ...process.env,
    AGENTWATCH_DIR: join(dir, 'sockets'),
  });
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
  const directory = new SessionDirectory({
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
      directory.addLocal(session.id);
    }
    const end = t0 + opts.durationMs;
    const timer = new Promise<void>((resolve) =>
      setTimeout(resolve, Math.max(0, end - Date.now()))
    );
    if (board) {
      ui = new BoardUi({
        directory,
        title: 'agentwatch demo',
        confirmQuit: false,
        keys: DEMO_KEYS,
        status: () =>
          `simulated agents and users · ends in ${
            Math.max(0, Math.ceil((end - Date.now()) / 1000))
          } s`,
      });
      const board = ui;
      unguard = guardTerminal('demo', io, {
        restore: () => board.restore(),
        crashed: () => killSessions(host),
      });
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
      for (const sig of STOP_SIGNALS) process.once(sig, stop);
      await Promise.race([timer, stopped]);
      for (const sig of STOP_SIGNALS) process.off(sig, stop);
    }
  } finally {
    for (const s of sims) s.user.stop();
    const endAt = Date.now();
    for (const s of sims) s.follower.stop();
    directory.close();
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
