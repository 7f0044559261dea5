/**
 * `agentwatch answer SESSION CHOICE`: answers the permission prompt a session waits on. Only
 * on a blocked session; shows the question and the chosen option and asks the person to
 * confirm on the terminal (`--yes` is the person saying "I confirm", for scripts the person
 * runs); the session classifies again right before writing and refuses when the prompt is no
 * longer the one confirmed.
 */
import { closeSync, createReadStream, createWriteStream, openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { type Command, UsageError } from './command.ts';
import { findSession, request } from '../runtime/control-client.ts';
import { choiceIndex, GUARD_EXIT } from '../runtime/tools.ts';
import { UserError } from '../errors.ts';

/** Asks `question` on the controlling terminal (/dev/tty); true for y/yes. */
export function confirmOnTty(question: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const noTerminal = () =>
      new UserError('no terminal to confirm on; pass --yes if you, the person, confirm');
    // Opening /dev/tty without a controlling terminal fails (ENXIO) only once the streams
    // open, as an 'error' event that readline re-emits: check it synchronously first.
    try {
      closeSync(openSync('/dev/tty', 'r+'));
    } catch {
      reject(noTerminal());
      return;
    }
    const input = createReadStream('/dev/tty');
    const output = createWriteStream('/dev/tty');
    const rl = createInterface({ input, output });
    const fail = () => {
      rl.close();
      input.destroy();
      output.destroy();
      reject(noTerminal());
    };
    input.on('error', fail);
    output.on('error', fail);
    rl.on('error', fail);
    rl.question(question, (a) => {
      rl.close();
      input.destroy();
      output.end();
      resolve(/^\s*y(es)?\s*$/i.test(a));
    });
  });
}

export const answerCommand: Command = {
  name: 'answer',
  summary: 'answer the prompt a blocked session waits on, after you confirm it',
  usage: 'answer [--yes] SESSION CHOICE',
  options: { yes: { type: 'boolean', short: 'y' } },
  help: { yes: 'I, the person, confirm this answer (no question on the terminal)' },
  async run(values, positionals, io) {
    if (positionals.length !== 2) {
      throw new UsageError('give SESSION and CHOICE (an option number or the start of its text)');
    }
    const [key, choice] = positionals;
    const info = await findSession(key);
    const prompt = await request<{ question: string; options: string[]; selected: number }>(
      info.socket,
      { op: 'prompt' },
      5000,
    );
    if (!prompt.options.length) {
      throw new UserError(
        `${info.id} is blocked but shows no numbered options to choose from`,
        GUARD_EXIT,
      );
    }
    const index = choiceIndex(choice, prompt.options);
    io.stdout(`${info.name} (${info.id}) asks: ${prompt.question || '(no question line)'}\n`);
    prompt.options.forEach((o, i) => io.stdout(`  ${i === index ? '>' : ' '} ${o}\n`));
    if (values.yes !== true) {
      const ok = await confirmOnTty(`Answer "${prompt.options[index]}"? [y/N] `);
      if (!ok) {
        io.stdout('not answered\n');
        return 1;
      }
    }
    const done = await request<{ answered: string }>(info.socket, {
      op: 'answer',
      choice: String(index + 1),
      confirmed: true,
      expect: { question: prompt.question, options: prompt.options },
    }, 10_000);
    io.stdout(`answered: ${done.answered}\n`);
    return 0;
  },
};
