/**
 * `agentwatch kill SESSION`: ends one session, wherever it runs (the background host, a
 * board, a `run` in another terminal), through its control socket's `kill` op: its command's
 * process group gets SIGHUP, as when its terminal closes, and SIGKILL when it still runs
 * after the session's grace (protocol.ts KILL_GRACE_MS). Returns once the command exited, every
 * process of its process group and of its PTY's foreground group ended too (waited for up to
 * 5 s after the command, then SIGKILL: Qwen Code 0.24.4's CLI goes on writing ~/.qwen after
 * its launcher exited; session.ts `end`), and (within {@link CLOSE_WAIT_MS}) its socket
 * closed, so `ls` no longer lists it. Exit codes: 0 ended, 1 still running, 2 usage (several
 * sessions match), 4 no such session.
 */
import { type Command, UsageError, UserError } from './command.ts';
import { requestOp, subscribe } from '../runtime/control-client.ts';
import { findSession } from '../runtime/session-directory.ts';
import { printable } from './printable.ts';

/**
 * How long the `kill` op may take to answer, ms: SIGHUP, the grace (1 s), SIGKILL, the grace,
 * then its process groups' 5 s, SIGKILL and the grace again (session.ts `end`).
 */
const KILL_ANSWER_MS = 10_000;
/** How long to wait for the session's socket to close after its command exited, ms. */
export const CLOSE_WAIT_MS = 2000;

export const killCommand: Command = {
  name: 'kill',
  summary: 'end a session and what runs in its process group (SIGHUP, SIGKILL if it stays)',
  usage: 'kill SESSION',
  maxArgs: 1,
  options: {},
  async run(_values, positionals, io) {
    if (positionals.length !== 1) {
      throw new UsageError('give exactly one SESSION (id, id prefix or name)');
    }
    const key = positionals[0];
    const info = await findSession(key); // several: a usage error (2); none: 4
    const follow = follower(info.socket);
    try {
      const reply = await requestOp(info.socket, 'kill', {}, KILL_ANSWER_MS);
      if (reply.exit === null) {
        throw new UserError(`session ${printable(info.id)} is still running (pid ${info.pid})`);
      }
    } catch (e) {
      // The host may close the socket as the command exits, before the answer leaves.
      if (!follow.exited && !(await follow.closedWithin(0))) {
        follow.stop();
        throw e;
      }
    }
    await follow.closedWithin(CLOSE_WAIT_MS);
    follow.stop();
    io.stdout(`ended ${printable(info.id)}\n`);
    return 0;
  },
};

/**
 * Follows the session at `socket`: `exited` once it published its command's exit;
 * `closedWithin(ms)` resolves true once the socket closed, false if it is still open `ms`
 * later.
 */
function follower(socket: string): {
  readonly exited: boolean;
  closedWithin(ms: number): Promise<boolean>;
  stop(): void;
} {
  let exited = false;
  let closed = false;
  const waiters = new Set<() => void>();
  const sub = subscribe(socket, (s) => {
    if (s.exit) exited = true;
  }, () => {
    closed = true;
    for (const w of waiters) w();
  });
  return {
    get exited() {
      return exited || closed;
    },
    closedWithin: (ms) =>
      closed ? Promise.resolve(true) : new Promise((resolve) => {
        const w = () => {
          clearTimeout(timer);
          waiters.delete(w);
          resolve(true);
        };
        waiters.add(w);
        const timer = setTimeout(() => {
          waiters.delete(w);
          resolve(closed);
        }, ms);
      }),
    stop: () => sub.destroy(),
  };
}
