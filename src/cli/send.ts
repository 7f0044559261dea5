/**
 * `agentwatch send SESSION TEXT`: types TEXT (and Enter) into a session, through the typing
 * guard: the session is classified afresh right before writing, and a blocked one gets zero
 * bytes; the prompt's question and options are printed and the exit code is 3.
 */
import { type Command, UsageError } from './command.ts';
import { request } from '../runtime/control-client.ts';
import { findSession } from '../runtime/session-directory.ts';
import { printable } from './printable.ts';
import { checkSendText } from '../runtime/send-text.ts';
import { SEND_MAX_MS } from '../runtime/typing-guard.ts';

export const sendCommand: Command = {
  name: 'send',
  summary: 'type text into a session, refused (exit 3) while it waits for a permission answer',
  usage: 'send [--no-enter] [--append] SESSION TEXT',
  maxArgs: 2,
  options: { 'no-enter': { type: 'boolean' }, append: { type: 'boolean' } },
  help: {
    'no-enter': 'type the text without pressing Enter',
    append: "type even when the agent's input box holds a draft (it is submitted with the text)",
  },
  async run(values, positionals, io) {
    if (positionals.length !== 2) throw new UsageError('give SESSION and TEXT');
    const [key, text] = positionals;
    checkSendText(text); // the host refuses it too; here before connecting, with the same words
    const info = await findSession(key);
    const answer = await request<{ written: number }>(info.socket, {
      op: 'send',
      text,
      enter: values['no-enter'] !== true,
      append: values.append === true,
    }, SEND_MAX_MS + 5000); // a refusal: a UserError with exit code 3 and the prompt in its message
    io.stdout(`sent ${Number(answer.written)} bytes to ${printable(info.id)}\n`);
    return 0;
  },
};
