/**
 * Helpers for end-to-end tests of agentwatch itself as real processes: the argv that runs our
 * CLI in any working directory (from cli.ts: the run's bundle or the source), a one-shot CLI
 * run that collects its output, a follower that records every state a session publishes on
 * its control socket (with the time the test received it), a recorder of what a driver's
 * screen shows over time (the truth a person would see), and `agentwatch run` started in a
 * terminal as a person starts an agent under it.
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { subscribe } from '../../src/runtime/control-client.ts';
import { listSessions } from '../../src/runtime/session-directory.ts';
import type { SessionInfo } from '../../src/runtime/protocol.ts';
import { REPO_ROOT } from './claude-home.ts';
import { agentwatchArgv, inPty } from './cli.ts';

export { agentwatchArgv };
import { type PtyDriver, startPty } from './pty-driver.ts';
import type { ScriptRule } from './fake-anthropic.ts';
import { sleep } from './until.ts';

/** What {@link runCli} saw. */
export interface CliResult {
  /** Exit code; null when killed by a signal (e.g. on timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** ms since the epoch when it was spawned and when it exited. */
  startedAt: number;
  endedAt: number;
}

/**
 * Runs `agentwatch ARGS...` as a real process (cwd = `cwd`, by default the repository; stdin
 * closed) with `env` and resolves when it exits; `tty`: in a terminal of its own, as a person's
 * `answer` runs ({@link inPty}). It is killed (SIGKILL) after `timeoutMs`; it never rejects.
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
  opts: { tty?: boolean; cwd?: string } = {},
): Promise<CliResult> {
  const startedAt = Date.now();
  if (opts.tty) {
    return inPty([process.execPath, ...agentwatchArgv(args)], env, timeoutMs).then((r) => ({
      ...r,
      startedAt,
      endedAt: Date.now(),
    }));
  }
  const child = spawn(process.execPath, agentwatchArgv(args), {
    cwd: opts.cwd ?? REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    const done = (code: number | null, err?: Error) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout,
        stderr: err ? `${stderr}${err.message}\n` : stderr,
        startedAt,
        endedAt: Date.now(),
      });
    };
    child.on('error', (e) => done(null, e));
    child.on('close', (code) => done(code));
  });
}

/** One state line a follower received. */
export interface Received {
  /** ms since the epoch when the test process got the line. */
  t: number;
  info: SessionInfo;
}

/** A session followed through its control socket; see {@link followSession}. */
export interface SessionFollower {
  /** The info found by `listSessions` (socket path, id, ...). */
  readonly first: SessionInfo;
  /** Every state line received, in order (live array). */
  readonly received: Received[];
  /** Set when the socket closed (ms since the epoch). */
  readonly closedAt: number | undefined;
  /** The last state received. */
  state(): string | undefined;
  /**
   * The states received, consecutive repeats collapsed (the first line after subscribing
   * repeats the current state).
   */
  states(): string[];
  /**
   * Resolves with the first line at index >= `from` whose state is `state`, waiting up to
   * `timeoutMs`. Rejects on timeout or when the socket closes first, with what was received.
   */
  waitFor(state: string, timeoutMs: number, from?: number): Promise<Received>;
  /** Closes the subscription. Safe to call twice. */
  close(): void;
}

/**
 * Waits (up to `timeoutMs`) until a session named `name` lists in socket dir `dir`, then
 * subscribes to its state lines and records each with the time it arrived.
 * @throws when no such session shows up in time.
 */
export async function followSession(
  dir: string,
  name: string,
  timeoutMs: number,
): Promise<SessionFollower> {
  const deadline = Date.now() + timeoutMs;
  let first: SessionInfo | undefined;
  while (!first) {
    first = (await listSessions(dir)).find((s) => s.name === name);
    if (first) break;
    if (Date.now() > deadline) {
      throw new Error(`no session named ${name} in ${dir} within ${timeoutMs} ms`);
    }
    await sleep(50);
  }
  const received: Received[] = [];
  let closedAt: number | undefined;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  const socket: Socket = subscribe(first.socket, (info) => {
    received.push({ t: Date.now(), info });
    wake();
  }, () => {
    closedAt = Date.now();
    wake();
  });
  const follower: SessionFollower = {
    first,
    received,
    get closedAt() {
      return closedAt;
    },
    state: () => received.at(-1)?.info.state,
    states() {
      const out: string[] = [];
      for (const r of received) if (out.at(-1) !== r.info.state) out.push(r.info.state);
      return out;
    },
    waitFor(state, ms, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = received.slice(from).find((r) => r.info.state === state);
          if (hit) return finish(() => resolve(hit));
          if (closedAt !== undefined) {
            finish(() =>
              reject(
                new Error(
                  `state ${state} not received before the socket closed; got ${
                    follower.states().join(' -> ')
                  }`,
                ),
              )
            );
          }
        };
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(
                new Error(
                  `state ${state} not received within ${ms} ms; got ${
                    follower.states().join(' -> ')
                  }`,
                ),
              )
            ),
          ms,
        );
        const finish = (f: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          f();
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      socket.destroy();
    },
  };
  return follower;
}

/** One change of a {@link ScreenTruth} probe. */
export interface TruthChange {
  /** ms since the epoch of the poll that saw it. */
  t: number;
  probe: string;
  on: boolean;
  /** The screen text of that poll. */
  screen: string;
}

/** What a driver's screen shows over time; see {@link recordScreenTruth}. */
export interface ScreenTruth {
  /** Every change of every probe, in order (live array). */
  readonly changes: TruthChange[];
  /** Whether `probe` matched at the last poll. */
  now(probe: string): boolean;
  /** Time of the first change of `probe` to `on` at or after `after` (ms since the epoch). */
  firstAfter(probe: string, on: boolean, after: number): number | undefined;
  /**
   * Resolves with the time of the first change of `probe` to `on` at or after `after` (a probe
   * already `on` before `after` must change again), polling; rejects after `timeoutMs`, or
   * when the process exits first, with the screen in the message.
   */
  waitFor(probe: string, on: boolean, after: number, timeoutMs: number): Promise<number>;
  stop(): void;
}

/**
 * Polls `pty`'s screen every `pollMs` (20-50 ms is what a watching person's truth needs) and
 * records when each probe (a predicate over the screen text) starts and stops matching.
 */
export function recordScreenTruth(
  pty: PtyDriver,
  probes: Record<string, (screen: string) => boolean>,
  pollMs = 25,
): ScreenTruth {
  const changes: TruthChange[] = [];
  const current = new Map<string, boolean>();
  const poll = () => {
    const screen = pty.screen();
    const t = Date.now();
    for (const [probe, test] of Object.entries(probes)) {
      const on = test(screen);
      if (current.get(probe) !== on) {
        current.set(probe, on);
        changes.push({ t, probe, on, screen });
      }
    }
  };
  poll();
  const timer = setInterval(poll, pollMs);
  const firstAfter = (probe: string, on: boolean, after: number) =>
    changes.find((c) => c.probe === probe && c.on === on && c.t >= after)?.t;
  return {
    changes,
    now: (probe) => current.get(probe) === true,
    firstAfter,
    async waitFor(probe, on, after, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const t = firstAfter(probe, on, after);
        if (t !== undefined) return t;
        if (Date.now() > deadline || pty.exit) {
          throw new Error(
            `screen: ${probe} never became ${on} within ${timeoutMs} ms` +
              `${pty.exit ? ` (the process exited, code ${pty.exit.exitCode})` : ''}\n` +
              `--- screen ---\n${pty.screen()}\n--- end of screen ---`,
          );
        }
        await sleep(pollMs);
      }
    },
    stop: () => clearInterval(timer),
  };
}

/** The model's final reply of task-bash round `n` (each round's differs: the screen tells them apart). */
export function roundReply(n: number): string {
  return `Touched hello.txt for round ${n}.`;
}

/** True when `screen` shows `reply` above the idle footer and no working footer or prompt. */
export function doneScreen(screen: string, reply: string): boolean {
  const at = screen.indexOf(reply);
  return at >= 0 && /\? for shortcuts/.test(screen.slice(at)) &&
    !/esc to interrupt|Do you want to proceed/.test(screen);
}

/**
 * The fake server's rule for the end of a task-bash round: after the Bash tool_result, reply
 * {@link roundReply} for the `round N` of the prompt.
 */
export const roundRule: ScriptRule = {
  name: 'task-bash/round-done',
  match: (c) =>
    c.task === 'task-bash' && /round \d+/.test(c.promptText) &&
    c.toolResults.some((r) => r.toolUse?.rule.startsWith('task-bash')),
  reply: (c) => ({
    content: [{ type: 'text', text: roundReply(Number(/round (\d+)/.exec(c.promptText)![1])) }],
  }),
};

/** Index just past the last line received so far (to wait for states that come after it). */
export function mark(f: SessionFollower): number {
  return f.received.length;
}

/**
 * Waits (up to `timeoutMs`) until the session's current state is idle and resolves with the
 * line that began that idle (the last transition to it): an earlier, brief idle does not count.
 */
export async function settledIdle(f: SessionFollower, timeoutMs: number): Promise<Received> {
  if (f.state() !== 'idle') await f.waitFor('idle', timeoutMs, mark(f));
  let i = f.received.length - 1;
  while (i > 0 && f.received[i - 1].info.state === 'idle') i--;
  return f.received[i];
}

/**
 * Starts `agentwatch run ARGS...` (ARGS: run's options, `--`, the agent's argv) in a real PTY
 * (test/support/pty-driver.ts; `size` in cells, else the driver's default), in `home`'s
 * project folder with `home`'s whole environment (test/support/agent-homes.ts,
 * claude-home.ts) and AGENTWATCH_DIR = `dir`, as a person starts an agent under agentwatch.
 */
export function startRun(
  home: { project: string; env: Record<string, string> },
  dir: string,
  args: string[],
  size?: { cols: number; rows: number },
): Promise<PtyDriver> {
  return startPty({
    command: process.execPath,
    args: agentwatchArgv(['run', ...args]),
    cwd: home.project,
    env: { ...home.env, AGENTWATCH_DIR: dir },
    ...size,
  });
}
