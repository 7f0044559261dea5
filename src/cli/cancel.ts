/**
 * `agentwatch cancel SESSION`: cancels an ACP session's turn in flight, as the person: the
 * session sends `session/cancel` and answers every pending permission request `cancelled`.
 */
import { type Command, UsageError } from './command.ts';
import { request } from '../runtime/control-client.ts';
import { findSession } from '../runtime/session-directory.ts';

export const cancelCommand: Command = {
  name: 'cancel',
  summary: "cancel an ACP session's turn (its pending permission requests answer cancelled)",
  usage: 'cancel SESSION',
  maxArgs: 1,
  options: {},
  async run(_values, positionals, io) {
    if (positionals.length !== 1) {
      throw new UsageError('give exactly one SESSION (id, id prefix or name)');
    }
    const info = await findSession(positionals[0]);
    const done = await request<{ cancelled: number }>(info.socket, { op: 'cancel' }, 5000);
    io.stdout(
      `cancelled ${info.name}'s turn (${info.id}); ${done.cancelled} permission request(s) answered cancelled\n`,
    );
    return 0;
  },
};
