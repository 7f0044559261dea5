/**
 * The typing guard: nothing agentwatch types may ever reach a pane that waits for a
 * permission answer. Right before writing, the pane is classified afresh (not the last
 * sweep), after the output already waiting on the PTY has been read:
 * - `send` writes text only to a pane that is not blocked; on a blocked pane it writes zero
 *   bytes and reports the prompt's question and options (exit 3 in the CLI). The Enter that
 *   submits the text is checked again on its own, so a prompt that appears between the text
 *   and the Enter does not receive that Enter.
 * - `answer` works only on a blocked pane, only with the person's confirmation, and only when
 *   the prompt on screen is still the one the person confirmed; it moves the selection with
 *   arrow keys (one key at a time, checking the prompt between keys) and presses Enter.
 */
import { readPrompt } from '../detect/prompt.ts';
import { UserError } from '../errors.ts';
import type { Sweep, Watched } from './sweep.ts';

/** Exit code of a refused `send`/`answer` (the pane is blocked, or no longer blocked). */
export const GUARD_EXIT = 3;
/** Pause between the text and its Enter, and between answer keys, ms (Ink reads keys one by one). */
export const KEY_GAP_MS = 60;

/** Refusal by the guard, with the prompt that caused it. */
export class GuardRefusal extends UserError {
  constructor(message: string, readonly question: string, readonly options: string[]) {
    super(message, GUARD_EXIT);
  }
}

/** Lets the event loop read the output already waiting on the PTYs (poll phase), then resolves. */
export function drainPending(): Promise<void> {
  return new Promise((r) => setImmediate(() => setImmediate(r)));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function refusal(w: Watched, why: string): GuardRefusal {
  const p = readPrompt(w.session.terminal.snapshot().rows);
  const lines = [why];
  if (p.question) lines.push(`  ${p.question}`);
  for (const o of p.options) lines.push(`    ${o}`);
  return new GuardRefusal(lines.join('\n'), p.question, p.options);
}

/**
 * Writes `text` (then Enter unless `enter` is false) to the pane of `w`, guarded.
 * @returns the number of bytes written.
 * @throws GuardRefusal when the pane is blocked (before the text: zero bytes written; before
 *   the Enter: the text stays typed, unsubmitted).
 */
export async function guardedSend(
  sweep: Sweep,
  w: Watched,
  text: string,
  enter = true,
): Promise<number> {
  if (w.session.exit) throw new UserError(`session ${w.session.id} has exited`);
  await drainPending();
  if (sweep.evaluate(w).state === 'blocked') {
    throw refusal(
      w,
      `refused: ${w.session.spec.name} is waiting for a permission answer; nothing was typed`,
    );
  }
  w.session.write(text); // synchronously after the classification: no output is read in between
  let written = Buffer.byteLength(text);
  if (enter) {
    await sleep(KEY_GAP_MS);
    await drainPending();
    if (sweep.evaluate(w).state === 'blocked') {
      throw refusal(w, `a prompt appeared after the text was typed; the Enter was not sent`);
    }
    w.session.write('\r');
    written++;
  }
  return written;
}

/** A prompt as the person confirmed it. */
export interface ConfirmedPrompt {
  question: string;
  options: string[];
}

/**
 * Parses CHOICE: an option number ('1'..) or the start of an option's text ('yes', 'no').
 * @returns the 0-based option index.
 * @throws UserError when it names no option, or several.
 */
export function choiceIndex(choice: string, options: readonly string[]): number {
  const n = Number(choice);
  if (Number.isInteger(n) && n >= 1 && n <= options.length) return n - 1;
  const want = choice.trim().toLowerCase();
  const hits = options
    .map((o, i) => ({ i, text: o.replace(/^\d+\.\s*/, '').toLowerCase() }))
    .filter((o) => want && o.text.startsWith(want));
  if (hits.length === 1) return hits[0].i;
  const list = options.join(' | ');
  throw new UserError(
    hits.length
      ? `'${choice}' matches several options: ${list}`
      : `'${choice}' is not an option: ${list}`,
  );
}

/** The prompt on `w`'s screen now, checked to be blocked (fresh classification). */
export async function currentPrompt(
  sweep: Sweep,
  w: Watched,
): Promise<ConfirmedPrompt & { selected: number }> {
  if (w.session.exit) throw new UserError(`session ${w.session.id} has exited`);
  await drainPending();
  if (sweep.evaluate(w).state !== 'blocked') {
    throw new UserError(
      `${w.session.spec.name} is not waiting for an answer (it is ${w.record.state})`,
      GUARD_EXIT,
    );
  }
  const p = readPrompt(w.session.terminal.snapshot().rows);
  return p;
}

const DOWN = '\x1b[B';
const UP = '\x1b[A';

/**
 * Answers the prompt of `w` with option `index`, which the person confirmed on `confirmed`.
 * @throws UserError (exit 3) when the pane is not blocked, or the prompt differs from the one
 *   confirmed (it changed or was answered meanwhile), before or between keys.
 */
export async function guardedAnswer(
  sweep: Sweep,
  w: Watched,
  index: number,
  confirmed: ConfirmedPrompt,
): Promise<string> {
  const check = async () => {
    const p = await currentPrompt(sweep, w);
    if (
      p.question !== confirmed.question || p.options.join('\n') !== confirmed.options.join('\n')
    ) {
      throw new UserError(
        'the prompt on screen is not the one you confirmed; nothing more was sent',
        GUARD_EXIT,
      );
    }
    return p;
  };
  let p = await check();
  if (index < 0 || index >= p.options.length) throw new UserError(`no option ${index + 1}`);
  if (p.selected < 0) {
    throw new UserError(
      'cannot see which option is selected on screen; answer in the pane itself',
      GUARD_EXIT,
    );
  }
  let moves = 0;
  while (p.selected !== index && moves < 20) {
    w.session.write(p.selected < index ? DOWN : UP);
    moves++;
    await sleep(KEY_GAP_MS);
    p = await check();
  }
  if (p.selected !== index) {
    throw new UserError('could not move the selection to that option', GUARD_EXIT);
  }
  w.session.write('\r');
  return p.options[index];
}
