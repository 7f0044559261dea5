/**
 * `agentwatch mark SESSION STATE [NOTE]`: appends the person's truth (blocked, working or
 * idle, and why) to a session that `agentwatch record` records, from another terminal.
 */
import { type Command, UsageError } from './command.ts';
import { request } from '../runtime/control-client.ts';
import { findSession } from '../runtime/session-directory.ts';
import { printable } from './printable.ts';

export const markCommand: Command = {
  name: 'mark',
  summary: "add your truth (blocked, working, idle) to a recorded session's truth file",
  usage: 'mark SESSION blocked|working|idle [NOTE]',
  maxArgs: 3,
  options: {},
  async run(_values, positionals, io) {
    if (positionals.length < 2 || positionals.length > 3) {
      throw new UsageError('give SESSION, STATE and optionally a NOTE');
    }
    const [key, state, note] = positionals;
    if (state !== 'blocked' && state !== 'working' && state !== 'idle') {
      throw new UsageError(`STATE must be blocked, working or idle, got '${state}'`);
    }
    const info = await findSession(key);
    const answer = await request<{ mark: { t: number } }>(info.socket, {
      op: 'mark',
      state,
      note,
    });
    io.stdout(`marked ${printable(info.id)} ${state} at ${Number(answer.mark?.t)} s\n`);
    return 0;
  },
};
