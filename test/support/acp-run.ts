/**
 * Runs `agentwatch acp` from source as a real process for tests: its chat on pipes, its
 * session found in a temporary AGENTWATCH_DIR, its published states followed on the control
 * socket (with the time each arrived). stop() ends it and removes that folder.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { subscribe } from '../../src/runtime/control-client.ts';
import { listSessions } from '../../src/runtime/session-directory.ts';
import type { SessionInfo } from '../../src/runtime/protocol.ts';
import { agentwatchArgv } from './agentwatch-e2e.ts';
import { REPO_ROOT } from './claude-home.ts';
import { until } from './until.ts';

/** The scripted agent's argv (test/support/acp-agent.ts). */
export const SCRIPTED_AGENT = [
  process.execPath,
  '--import',
  'tsx',
  join(REPO_ROOT, 'test', 'support', 'acp-agent.ts'),
];

/** A running `agentwatch acp`. */
export interface AcpRun {
  child: ChildProcess;
  /** The socket directory and the environment to run other CLI commands with. */
  dir: string;
  env: NodeJS.ProcessEnv;
  /** The chat's output so far. */
  stdout(): string;
  stderr(): string;
  /** Types a line into the chat. */
  type(line: string): void;
  /** The session's info, once it is published. */
  session(): Promise<SessionInfo>;
  /** Every state line received on the session's socket, with its arrival (preciseNow ms). */
  states: { info: SessionInfo; at: number }[];
  /** Waits for a published info matching `ok`, among the states received from index `from`. */
  waitFor(
    what: string,
    ok: (i: SessionInfo) => boolean,
    from?: number,
    timeoutMs?: number,
  ): Promise<SessionInfo>;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
  /**
   * Ends the process (stdin closed; SIGKILL after 10 s), waits for its exit, then removes its
   * AGENTWATCH_DIR and the paths given as `remove`. Call it in a finally, also when the process
   * exited by itself. Safe to call twice.
   */
  stop(): Promise<void>;
}

/**
 * Starts `agentwatch acp ARGS` with `env` over a fresh AGENTWATCH_DIR (under the temp folder),
 * in `cwd` (default: the repository). `remove`: more paths of the test's (an agent's log) that
 * stop() removes once the process ended.
 */
export function startAcp(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = REPO_ROOT,
  remove: string[] = [],
): AcpRun {
  const dir = mkdtempSync(join(tmpdir(), 'aw-acp-'));
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...env, AGENTWATCH_DIR: dir };
  delete fullEnv.AGENTWATCH_SESSION;
  const child = spawn(process.execPath, agentwatchArgv(['acp', '--no-desktop', ...args]), {
    cwd,
    env: fullEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const states: { info: SessionInfo; at: number }[] = [];
  let sub: Socket | null = null;
  let info: SessionInfo | null = null;
  const session = async () => {
    info ??= await until('the acp session to be published', async () => {
      const all = await listSessions(dir);
      return all[0];
    }, 30_000);
    sub ??= subscribe(info.socket, (i) => {
      states.push({ info: i, at: performance.timeOrigin + performance.now() });
    }, () => {});
    // Ready once session/new answered: later lines are news.
    await until(
      'the ACP session to be ready',
      () => states.some((s) => s.info.reason !== 'starting the agent'),
      30_000,
    );
    return info;
  };
  return {
    child,
    dir,
    env: fullEnv,
    stdout: () => out,
    stderr: () => err,
    type: (line) => void child.stdin!.write(line + '\n'),
    session,
    states,
    async waitFor(what, ok, from = 0, timeoutMs = 30_000) {
      await session();
      return await until(
        what,
        () => states.slice(from).map((s) => s.info).find(ok),
        timeoutMs,
      ).catch((e) => {
        throw new Error(
          `${(e as Error).message}\nstates: ${
            states.map((s) => `${s.info.state} ${s.info.reason}`).join(' | ')
          }\nstdout: ${out}\nstderr: ${err}`,
        );
      });
    },
    exited,
    async stop() {
      sub?.destroy();
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin!.end();
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      for (const p of [dir, ...remove]) rmSync(p, { recursive: true, force: true });
    },
  };
}

/** The scripted agent's log lines (JSON) so far. */
export function agentLog(path: string): Record<string, unknown>[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}
