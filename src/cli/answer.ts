/**
 * `agentwatch answer SESSION CHOICE`: answers the permission prompt a session waits on. Only
 * on a blocked session; shows the question and the chosen option and asks the person to
 * confirm on the terminal (`--yes` is the person saying "I confirm", for scripts the person
 * runs); the session classifies again right before writing and refuses when the prompt is no
 * longer the one confirmed (exit 3, nothing typed). A prompt that shows other details or
 * options with the same question by then (its pane was resized, or it asks about another
 * command) is shown again and confirmed again (with `--yes`, refused, saying so: nobody saw
 * them). It replies once the prompt has left the
 * session's screen, so `answered:` (exit 0) means the agent took the answer; a key typed while
 * the prompt stayed on screen exits 5 (`ANSWER_UNCONFIRMED_EXIT`).
 */
import { closeSync, createReadStream, createWriteStream, openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { type Command, UsageError } from './command.ts';
import {
  answerPrompt,
  endedText,
  type PromptReply,
  readPrompt,
} from '../runtime/control-client.ts';
import { compareShown, firstLine, readAnswerablePrompt, whyNoOptions } from './board/answering.ts';
import { findSession } from '../runtime/session-directory.ts';
import { choiceIndex, GUARD_EXIT } from '../runtime/typing-guard.ts';
import { UserError } from '../errors.ts';
import { printable } from './printable.ts';

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

/**
 * True when `e` is the session's guard refusing an answer before typing anything (exit 3, its
 * first line ending "nothing was typed": typing-guard.ts guardedAnswer).
 */
function refusedUntyped(e: unknown): boolean {
  return (e as { exitCode?: number })?.exitCode === GUARD_EXIT &&
    /nothing was typed$/.test(firstLine(e));
}

/** Prints the prompt of `info` as `answer` shows it, option `index` marked. */
function showPrompt(
  io: { stdout(text: string): void },
  info: { name: string; id: string; cols: number; rows: number },
  prompt: PromptReply,
  index: number,
): void {
  // Everything printed here came from the session's socket: printable, never raw.
  io.stdout(
    `${printable(info.name)} (${printable(info.id)}) asks: ${
      printable(String(prompt.question ?? '')) || '(no question line)'
    }\n`,
  );
  for (const d of prompt.details ?? []) io.stdout(`  | ${printable(d)}\n`);
  prompt.options.forEach((o, i) => io.stdout(`  ${i === index ? '>' : ' '} ${printable(o)}\n`));
  if (prompt.detailsCut) {
    io.stdout(
      `  ! what this prompt approves (the command, the file) is not all visible in the pane ` +
        `(${info.cols}x${info.rows}): make it taller or look at it before answering\n`,
    );
  }
}

export const answerCommand: Command = {
  name: 'answer',
  summary: 'answer the prompt a blocked session waits on, after you confirm it',
  usage: 'answer [--yes] SESSION CHOICE',
  maxArgs: 2,
  options: { yes: { type: 'boolean', short: 'y' } },
  help: { yes: 'I, the person, confirm this answer (no question on the terminal)' },
  async run(values, positionals, io) {
    if (positionals.length !== 2) {
      throw new UsageError(
        "give SESSION and CHOICE (an option number, the start of its text, or an ACP option's kind)",
      );
    }
    const [key, choice] = positionals;
    if (process.env.AGENTWATCH_SESSION) {
      // Run from inside a session: an agent's tool (or anything it started) must never approve
      // a prompt, its own or another agent's. The person answers from their own terminal.
      throw new UserError(
        `refused: this runs inside agentwatch session ${process.env.AGENTWATCH_SESSION}; ` +
          'answers come from the person, from a terminal outside any session',
        GUARD_EXIT,
      );
    }
    let info = await findSession(key);
    let prompt = await readAnswerablePrompt(info.socket);
    if (!prompt.options.length) {
      // Printable: the name and the screen's last line came from the session.
      throw new UserError(printable(await whyNoOptions(info)), GUARD_EXIT);
    }
    let index = choiceIndex(choice, prompt.options, prompt.aliases);
    /**
     * `now` (read after the person confirmed, or after the guard refused) shows the prompt
     * with other details or options but the same question (its pane was resized, or it asks
     * about another command): it becomes the prompt shown next, with CHOICE read against its
     * options. False for anything else (another question, the same prompt asked anew).
     * @throws UserError (exit 3) when CHOICE names none of its options now, or with --yes
     *   (the person read only what was printed); nothing was typed.
     */
    const shownAgain = async (now: PromptReply): Promise<boolean> => {
      const compared = compareShown(prompt, now);
      if (compared !== 'details' && compared !== 'options') return false;
      const what = compared === 'details' ? 'details' : 'options';
      const name = printable(info.name);
      if (values.yes === true) {
        throw new UserError(
          `${name}'s prompt now shows other ${what} than those printed above (its pane was ` +
            'resized, or it asks about another command); nothing was typed: with --yes nobody ' +
            `read them; run 'agentwatch answer' again to see them`,
          GUARD_EXIT,
        );
      }
      try {
        index = choiceIndex(choice, now.options, now.aliases);
      } catch (e) {
        throw new UserError(
          `${name}'s prompt now shows other options (its pane was resized); nothing was ` +
            `typed: ${printable((e as Error).message)}`,
          GUARD_EXIT,
        );
      }
      io.stdout(
        `\n${name}'s prompt now shows other ${what} (its pane was resized, or it asks about ` +
          'another command); nothing was typed. Read it again:\n',
      );
      prompt = now;
      info = await findSession(info.id); // its size now, for the warning
      return true;
    };
    let answered: Awaited<ReturnType<typeof answerPrompt>>;
    for (;;) {
      showPrompt(io, info, prompt, index);
      if (values.yes !== true) {
        const unseen = prompt.detailsCut ? ' without seeing all it approves' : '';
        const ok = await confirmOnTty(
          `Answer "${printable(prompt.options[index])}"${unseen}? [y/N] `,
        );
        if (!ok) {
          io.stdout('not answered\n');
          return 1;
        }
        // What is answered is what the person saw: while they read, the pane may have been
        // made taller (as the warning above advises) and show more of the prompt, or the
        // prompt may be about another command now. Then it is shown again, and they confirm
        // again.
        if (await shownAgain(await readPrompt(info.socket))) continue;
      }
      try {
        answered = await answerPrompt(info.socket, index + 1, {
          question: prompt.question,
          options: prompt.options,
          details: prompt.details,
          episode: prompt.episode,
        });
        break;
      } catch (e) {
        // The same between the look above and the guard's (a resize just then), or with
        // --yes: the guard refused with nothing typed; say why as above, or show it again.
        if (!refusedUntyped(e)) throw e;
        const now = await readPrompt(info.socket).catch(() => undefined);
        if (!now || !(await shownAgain(now))) throw e;
      }
    }
    io.stdout(`answered: ${printable(answered.answered)}\n`);
    // the prompt left because its agent ended after reading the key (Gemini CLI's folder
    // trust without its relaunch): said, since the session is gone now
    if (answered.ended) {
      io.stdout(`${printable(info.name)} then ended (${endedText(answered.ended)})\n`);
    }
    return 0;
  },
};
