/**
 * `agentwatch kill SESSION`: ends one session, wherever it runs (the background host, a
 * board, a `run` in another terminal): its command gets SIGHUP, as when its terminal closes,
 * and when it still runs after {@link KILL_GRACE_MS}, SIGKILL with its process group. Exit
 * codes: 0 ended, 1 still running, 2 usage, 4 no such session.
 */
import { type Command, UsageError, UserError } from './command.ts';
import { request, subscribe } from '../runtime/control-client.ts';
import { listSessions, matchSession } from '../runtime/session-directory.ts';
import { printable } from './printable.ts';

/** How long the command has to end after SIGHUP before SIGKILL, ms. */
export const KILL_GRACE_MS = 3000;
/** How long it has after SIGKILL, ms. */
const KILLED_WAIT_MS = 2000;

export const killCommand: Command = {
  name: 'kill',
  summary: 'end a session (SIGHUP to its command, SIGKILL if it stays)',
  usage: 'kill SESSION',
  options: {},
  async run(_values, positionals, io) {
    if (positionals.length !== 1) {
      throw new UsageError('give exactly one SESSION (id, id prefix or name)');
    }
    const key = positionals[0];
    const info = matchSession(key, await listSessions(), 2); // several: a usage error (2)
    if (!info) throw new UserError(`no session '${printable(key)}' (see 'agentwatch ls')`, 4);
    const gone = watchGone(info.socket);
    try {
      await request(info.socket, { op: 'kill' }, 5000);
    } catch (e) {
      if (!(await gone.within(0))) throw e;
    }
    if (!(await gone.within(KILL_GRACE_MS))) {
      try {
        process.kill(-info.pid, 'SIGKILL'); // it leads its own process group (node-pty)
      } catch {
        // it ended meanwhile, or is not ours
      }
      if (!(await gone.within(KILLED_WAIT_MS))) {
        gone.stop();
        throw new UserError(`session ${printable(info.id)} is still running (pid ${info.pid})`);
      }
    }
    io.stdout(`ended ${printable(info.id)}\n`);
    return 0;
  },
};

/**
 * Follows the session at `socket` until it has exited or its socket closed; `within(ms)`
 * resolves true once it is gone, false if it is not after `ms`.
 */
function watchGone(socket: string): { within(ms: number): Promise<boolean>; stop(): void } {
  let gone = false;
  const waiters = new Set<() => void>();
  const mark = () => {
    gone = true;
    for (const w of waiters) w();
    sub.destroy();
  };
  const sub = subscribe(socket, (s) => {
    if (s.exit) mark();
  }, mark);
  return {
    within: (ms) =>
      gone ? Promise.resolve(true) : new Promise((resolve) => {
        const done = (v: boolean) => {
          clearTimeout(timer);
          waiters.delete(w);
          resolve(v);
        };
        const w = () => done(true);
        waiters.add(w);
        const timer = setTimeout(() => done(gone), ms);
      }),
    stop: () => sub.destroy(),
  };
}
