/**
 * The client side of the background host (background-host.ts): starts a session in it, first
 * starting the host when none answers (a detached `agentwatch __host`, its output to
 * {@link HOST_LOG}), as tmux starts its server. Two clients that do so at once start two
 * processes, of which one becomes the host and the other leaves at once.
 */
import { spawn } from 'node:child_process';
import { closeSync, constants, lstatSync, openSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { lineReader } from './protocol.ts';
import { ensureSocketDir } from './paths.ts';
import { selfCommand } from './self-command.ts';
import {
  type DetachedSpec,
  HOST_ENDING_EXIT,
  hostLogPath,
  type HostRequest,
  hostSocketPath,
  type Started,
} from './host-protocol.ts';
import { UserError } from '../errors.ts';

/** Nothing answered on the host socket (no host, a dead one, or one closing): start one. */
class Unreachable extends Error {}

/**
 * Sends `req` to the host socket at `path` and resolves with its answer.
 * @throws Unreachable when nothing listens there or the connection closed unanswered;
 *   UserError for a refusal (with the host's exit code) or no answer within `timeoutMs`.
 */
function hostRequest(
  path: string,
  req: HostRequest,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (f: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      c.destroy();
      f();
    };
    const c = createConnection(path);
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new UserError(`${path}: the background host did not answer within ${timeoutMs} ms`),
          )
        ),
      timeoutMs,
    );
    c.on('error', (e) => {
      const code = (e as NodeJS.ErrnoException).code;
      finish(() =>
        reject(
          code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ECONNRESET' ||
            code === 'EPIPE'
            ? new Unreachable(code)
            : new UserError(`${path}: ${code ?? e.message}`),
        )
      );
    });
    c.on('close', () => finish(() => reject(new Unreachable('closed'))));
    c.on('connect', () => c.write(JSON.stringify(req) + '\n'));
    c.on(
      'data',
      lineReader((line) =>
        finish(() => {
          let a: Record<string, unknown>;
          try {
            a = JSON.parse(line);
          } catch {
            return reject(new UserError(`${path}: unreadable answer`));
          }
          if (a?.ok === true && a.op === req.op) return resolve(a);
          const code = typeof a?.code === 'number' ? a.code : 1;
          reject(new UserError(String(a?.error ?? `the answer is not for '${req.op}'`), code));
        }), () => finish(() => reject(new UserError(`${path}: answer too long`)))),
    );
  });
}

/**
 * Opens the host's log for appending (mode 0600, never through a symlink), emptied first when
 * over 1 MiB; 'ignore' when it is not a plain file of ours.
 */
function openLog(path: string): number | 'ignore' {
  let truncate = false;
  try {
    const st = lstatSync(path);
    if (!st.isFile() || st.uid !== process.getuid?.()) return 'ignore';
    truncate = st.size > 1 << 20;
  } catch {
    // not there yet
  }
  try {
    return openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW |
        (truncate ? constants.O_TRUNC : 0),
      0o600,
    );
  } catch {
    return 'ignore';
  }
}

/** A host process this client started: its exit code once it exited. */
interface Spawned {
  exit: number | null | undefined;
}

/**
 * Starts the background host: this executable's hidden `__host` subcommand, detached (its
 * own session, no terminal), in the socket folder, with `env`, its output appended to the
 * host's log.
 * @throws UserError when the socket folder fails its checks.
 */
export function spawnHost(env: NodeJS.ProcessEnv = process.env): Spawned {
  const dir = ensureSocketDir(env);
  const self = selfCommand();
  const log = openLog(hostLogPath(env));
  const out: Spawned = { exit: undefined };
  const child = spawn(self.command, [...self.args, '__host'], {
    cwd: dir,
    env,
    detached: true,
    stdio: ['ignore', log, log],
  });
  if (typeof log === 'number') closeSync(log);
  child.on('error', () => (out.exit = 127));
  child.on('exit', (code, signal) => (out.exit = signal ? 128 : code));
  child.unref();
  return out;
}

/** The last non-empty line of the host's log ('' when none can be read). */
function lastLogLine(env: NodeJS.ProcessEnv): string {
  try {
    const text = readFileSync(hostLogPath(env), 'utf8').slice(-4096);
    return text.trim().split('\n').pop() ?? '';
  } catch {
    return '';
  }
}

/** How long a client waits for a host to start and answer, ms. */
const START_TIMEOUT_MS = 20_000;
/** Pause between two attempts while a host starts, ms. */
const RETRY_MS = 25;
/**
 * The least time a client waits for a host's answer once it asks, ms, however close the start
 * deadline is: a host that accepted the request starts the session, so a shorter wait would
 * report a failure for a session that then runs.
 */
const ANSWER_MIN_MS = 10_000;

/**
 * Starts `spec` in the background host, starting the host when none answers; resolves once
 * the session's control socket listens.
 * @throws UserError for a refusal (no such command, a bad `--agent`: the host's message),
 *   when a started host exits without serving (the last line of its log), or when none
 *   answers within `timeoutMs` ({@link START_TIMEOUT_MS} by default; a request sent just
 *   before that deadline still gets {@link ANSWER_MIN_MS} for its answer).
 */
export async function startDetached(
  spec: DetachedSpec,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = START_TIMEOUT_MS,
): Promise<Started> {
  const path = hostSocketPath(env);
  const deadline = Date.now() + timeoutMs;
  let spawned: Spawned | null = null;
  for (;;) {
    let unreachable = false;
    try {
      const a = await hostRequest(
        path,
        { op: 'start', ...spec },
        Math.max(ANSWER_MIN_MS, deadline - Date.now()),
      );
      return {
        id: String(a.id),
        socket: String(a.socket),
        pid: Number(a.pid),
        host: Number(a.host),
      };
    } catch (e) {
      if (e instanceof Unreachable) unreachable = true;
      else if (!(e instanceof UserError && e.exitCode === HOST_ENDING_EXIT)) throw e;
    }
    if (Date.now() > deadline) {
      throw new UserError(
        `the background host did not answer within ${timeoutMs / 1000} s (see ${hostLogPath(env)})`,
      );
    }
    if (unreachable && (!spawned || spawned.exit !== undefined)) {
      // A host we started that left with an error will not serve: say why, once.
      if (spawned && spawned.exit !== 0) {
        throw new UserError(
          `the background host could not start (exit ${spawned.exit}): ${
            lastLogLine(env) || `see ${hostLogPath(env)}`
          }`,
        );
      }
      spawned = spawnHost(env);
    }
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}

/**
 * The running background host's pid and session ids, or null when none answers.
 * @throws UserError for an answer that is a refusal.
 */
export async function hostStatus(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ pid: number; sessions: string[] } | null> {
  try {
    const a = await hostRequest(hostSocketPath(env), { op: 'status' }, 5000);
    return { pid: Number(a.pid), sessions: (a.sessions as string[]) ?? [] };
  } catch (e) {
    if (e instanceof Unreachable) return null;
    throw e;
  }
}
