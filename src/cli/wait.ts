/**
 * `agentwatch wait SESSION... --until STATE[,STATE...]`: blocks until sessions reach one of the
 * states, for scripts. Exit codes: 0 reached, 1 timed out (or a session went away before it
 * reached a state other than exited), 2 usage or a SESSION that names several sessions, 4 no
 * such session (it never appeared before the timeout; with no timeout a named session that
 * does not exist yet is waited for, and stderr says so once), 6 a host did not answer in time
 * (at the timeout, a session not found yet may be one whose host is busy or stopped; `--all`:
 * a session did not answer within the timeout or 10 s). A session this wait saw that went
 * away (its socket closed or removed: `kill`, its host ended) has exited, and so has one that
 * ended before it looked, for `--until exited` (its host's ended record: `kill NAME`, then
 * `wait NAME --until exited`), unless a live session has that name.
 */
import { type Command, stringOption, UsageError, UserError } from './command.ts';
import { subscribe } from '../runtime/control-client.ts';
import {
  awaitSessions,
  INFO_PATIENCE_MS,
  noAnswerError,
  SOCKET_CLOSED_BY,
  surveySessions,
} from '../runtime/session-directory.ts';
import type { SessionInfo } from '../runtime/protocol.ts';
import { printable } from './printable.ts';
import { findEnded } from '../runtime/ended-sessions.ts';
import { detailOf } from './board/rows.ts';
import { duration } from './format.ts';
import { SESSION_STATES } from '../detect/types.ts';

const STATES: readonly string[] = SESSION_STATES;

/**
 * For keys that name a session that ended unseen (ended-sessions.ts): that it did, how, and
 * where to see why ('' when none does). A script that waits for a session which exited at
 * once would otherwise wait with no hint.
 */
function endedHint(keys: readonly string[]): string {
  const now = Date.now();
  const hints: string[] = [];
  for (const key of keys) {
    let ended;
    try {
      ended = findEnded(key);
    } catch {
      continue; // a prefix of several ended sessions: no hint
    }
    if (!ended) continue;
    hints.push(
      `; a session '${printable(ended.info.name)}' (${printable(ended.info.id)}) ended ${
        duration(now - ended.endedAt)
      } ago, ${printable(detailOf(ended.info, now))}: 'agentwatch explain ${
        printable(ended.info.id)
      }' shows why`,
    );
  }
  return hints.join('');
}

export const waitCommand: Command = {
  name: 'wait',
  summary: 'wait until sessions reach a state (exit 0), or time out (exit 1)',
  usage: 'wait (SESSION... | --all) --until STATE[,STATE...] [--any] [--timeout SECONDS]',
  options: {
    until: { type: 'string' },
    timeout: { type: 'string' },
    all: { type: 'boolean' },
    any: { type: 'boolean' },
  },
  placeholders: { until: 'STATES', timeout: 'SECONDS' },
  help: {
    until: `${
      SESSION_STATES.slice(0, -1).join(', ')
    } or exited; several separated by commas (any of them)`,
    timeout:
      'give up after this many seconds: exit 1, 4 if a session never appeared, 6 if a host did not answer (default: wait for ever)',
    all: 'every session live now',
    any: 'end when the first session reaches a state (default: when all have)',
  },
  async run(values, positionals, io) {
    const all = values.all === true;
    if (all && positionals.length) throw new UsageError('give SESSION names or --all, not both');
    if (!all && !positionals.length) {
      throw new UsageError('give one or more SESSIONs (id, id prefix or name), or --all');
    }
    const untilText = stringOption(values, 'until');
    if (untilText === undefined) {
      throw new UsageError(`--until is required: one or more of ${STATES.join(', ')}`);
    }
    const until = untilText.split(',').map((s) => s.trim()).filter(Boolean);
    if (!until.length || until.some((s) => !STATES.includes(s))) {
      throw new UsageError(
        `--until takes one or more of ${STATES.join(', ')} separated by commas, got '${untilText}'`,
      );
    }
    const t = stringOption(values, 'timeout');
    const timeoutS = t === undefined ? Infinity : Number(t);
    if (!(timeoutS > 0)) {
      throw new UsageError(`--timeout must be a positive number of seconds, got '${t}'`);
    }
    const deadline = Date.now() + timeoutS * 1000;
    const wanted = new Set(until);
    const shown = until.join(' or ');

    let sessions: SessionInfo[];
    if (all) {
      const patience = Math.min(INFO_PATIENCE_MS, deadline - Date.now());
      const survey = await surveySessions(undefined, patience);
      // A session whose host is slow is one of "every session": not known, not left out.
      if (survey.unanswered.length) throw noAnswerError('--all', survey.unanswered, patience);
      sessions = survey.infos;
      if (!sessions.length) throw new UserError('no sessions (see agentwatch ls)', 4);
    } else {
      const found = await awaitSessions(positionals, deadline, undefined, (missing) => {
        // A script gives a timeout; a person without one would otherwise see a silent hang.
        if (timeoutS !== Infinity) return;
        const names = missing.map((k) => `'${printable(k)}'`).join(', ');
        io.stderr(
          `agentwatch wait: no session ${names} yet; waiting for it (Ctrl-C to stop)${
            endedHint(missing)
          }\n`,
        );
      }, wanted.has('exited') ? (key) => findEnded(key)?.info : undefined);
      if (typeof found === 'string') {
        io.stderr(`agentwatch wait: no session '${printable(found)}' (see 'agentwatch ls')\n`);
        return 4;
      }
      sessions = found;
    }
    const needed = values.any === true ? 1 : sessions.length;
    return await new Promise<number>((resolve) => {
      let reached = 0;
      let done = false;
      const sockets: ReturnType<typeof subscribe>[] = [];
      const finish = (code: number, message?: string) => {
        if (done) return;
        done = true;
        if (message) io.stderr(message);
        for (const s of sockets) s.destroy();
        clearTimeout(timer);
        resolve(code);
      };
      const timer = timeoutS === Infinity ? undefined : setTimeout(() => {
        const names = sessions.map((s) => printable(s.name)).join(', ');
        finish(1, `agentwatch wait: ${names} did not reach ${shown} within ${timeoutS} s\n`);
      }, Math.max(0, deadline - Date.now()));
      for (const info of sessions) {
        let mine = false;
        const reach = (state: string) => {
          if (mine || done) return;
          mine = true;
          io.stdout(`${printable(info.name)} ${state}\n`);
          if (++reached >= needed) finish(0);
        };
        // Gone: its command has exited (its socket closed or was removed).
        const gone = () => {
          if (mine || done) return;
          if (wanted.has('exited')) return reach('exited');
          finish(1, `agentwatch wait: session ${printable(info.name)} went away\n`);
        };
        if (info.by === SOCKET_CLOSED_BY) {
          gone();
          continue;
        }
        sockets.push(subscribe(info.socket, (s) => {
          if (wanted.has(s.state)) reach(s.state);
        }, gone));
      }
    }).catch((e) => {
      throw new UserError(String(e));
    });
  },
};
