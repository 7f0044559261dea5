/**
 * `agentwatch wait SESSION --until STATE [--timeout S]`: blocks until the session reaches a
 * state, for scripts. Exit 0 when reached, 1 on timeout or when the session goes away first.
 */
import { type Command, stringOption, UsageError, UserError } from './command.ts';
import { findSession, subscribe } from '../runtime/control-client.ts';
import { printable } from './board.ts';

const STATES = ['blocked', 'working', 'idle', 'exited'];

export const waitCommand: Command = {
  name: 'wait',
  summary: 'wait until a session reaches a state (exit 0), or time out (exit 1)',
  usage: 'wait SESSION --until STATE [--timeout SECONDS]',
  options: { until: { type: 'string' }, timeout: { type: 'string' } },
  placeholders: { until: 'STATE', timeout: 'SECONDS' },
  help: {
    until: 'blocked, working, idle or exited',
    timeout: 'give up after this many seconds (default: never)',
  },
  async run(values, positionals, io) {
    if (positionals.length !== 1) {
      throw new UsageError('give exactly one SESSION (id, id prefix or name)');
    }
    const until = stringOption(values, 'until');
    if (!until || !STATES.includes(until)) {
      throw new UsageError(`--until must be one of ${STATES.join(', ')}`);
    }
    const t = stringOption(values, 'timeout');
    const timeoutS = t === undefined ? Infinity : Number(t);
    if (!(timeoutS > 0)) {
      throw new UsageError(`--timeout must be a positive number of seconds, got '${t}'`);
    }
    const info = await findSession(positionals[0]);
    const id = printable(info.id);
    return await new Promise<number>((resolve) => {
      let done = false;
      const finish = (code: number, message?: string) => {
        if (done) return;
        done = true;
        if (message) io.stderr(message);
        sock.destroy();
        clearTimeout(timer);
        resolve(code);
      };
      const sock = subscribe(
        info.socket,
        (s) => {
          if (s.state === until) finish(0);
        },
        () =>
          finish(
            until === 'exited' ? 0 : 1,
            until === 'exited' ? undefined : `agentwatch wait: session ${id} went away\n`,
          ),
      );
      const timer = timeoutS === Infinity ? undefined : setTimeout(
        () => finish(1, `agentwatch wait: ${id} did not reach ${until} within ${timeoutS} s\n`),
        timeoutS * 1000,
      );
    }).catch((e) => {
      throw new UserError(String(e));
    });
  },
};
