/**
 * The typing guard: nothing agentwatch types may ever reach a pane that waits for a
 * permission answer. Each function takes the {@link PtyPane} to type into. Right before
 * writing, the pane is classified afresh ({@link PtyPane.classifyNow}, not the last sweep),
 * after the output already waiting on the PTY has been read:
 * - `send` writes text only to a pane that is not blocked; on a blocked pane it writes zero
 *   bytes and reports the prompt's question and options (exit 3 in the CLI). Right after the
 *   text is written the screen is watched for {@link PROMPT_AFTER_WRITE_MS}: a prompt drawn
 *   there (it may hold the text) is reported (exit 3) and the Enter is not sent. The Enter
 *   that submits the text is checked again on its own, so a prompt that appears between the
 *   text and the Enter does not receive that Enter.
 * - `answer` works only on a blocked pane, only with the person's confirmation, and only when
 *   the prompt on screen is still the one the person confirmed; it moves the selection with
 *   arrow keys (one key at a time, checking the prompt between keys) and presses Enter.
 *
 * Every write is made the same way ({@link guardedWrite}): read the PTY master synchronously
 * until it is empty, classify, read again (classify again while output came), then write(2)
 * at once, with no await and no evaluation between the last read and the write. The race
 * that remains: a prompt whose bytes the agent writes after the kernel checked for output in
 * that last read, while our bytes are not yet in the agent's input when it draws. Measured by
 * test/guard.test.ts on a busy 2-core machine (1,000 random sends against a dialog flipping
 * every 1-25 ms): from the last read's start to the write's start, median ~40 µs, p99 ~0.5 ms
 * (the scheduler preempts syscalls); 0-6 sends in 1,000 reached the dialog, each inside that
 * window. Before (classification after two setImmediate, then node-pty's write, which runs
 * later on libuv's thread pool): 53 of ~520 sends. With a real agent's prompt every few
 * seconds the chance per send is about window / time between prompts (~1e-5); only the agent
 * itself could close it.
 */
import { type Prompt, readPrompt } from '../detect/prompt.ts';
import { inputHoldsText } from '../detect/evaluate.ts';
import { UserError } from '../errors.ts';
import type { ConfirmedPrompt } from './protocol.ts';
import type { PtyPane } from './pty-pane.ts';
import type { Terminal } from '../vt/terminal.ts';
import { sendBytes } from './send-text.ts';

/**
 * The prompt on `terminal`'s screen now: its rows, and their background tags so that a
 * selection drawn with a colour alone (opencode's buttons) is seen.
 */
export function promptOn(terminal: Terminal): Prompt {
  const rows = terminal.snapshot().rows;
  return readPrompt(rows, rows.map((_, y) => terminal.rowBackgrounds(y)));
}

/** Exit code of a refused `send`/`answer` (the pane is blocked, or no longer blocked). */
export const GUARD_EXIT = 3;

/**
 * The prompt an `answer` request says the person confirmed, checked for shape: a PTY pane and an
 * ACP pane both answer only a confirmed request that names its prompt.
 * @throws UserError (exit {@link GUARD_EXIT}) when the person did not confirm, or when the
 *   confirmed prompt is missing or malformed.
 */
export function confirmedExpect(
  req: {
    confirmed?: unknown;
    expect?: { question?: unknown; options?: unknown; details?: unknown };
  },
): ConfirmedPrompt {
  if (req.confirmed !== true) {
    throw new UserError('answer: the person has not confirmed it', GUARD_EXIT);
  }
  const expect = req.expect;
  if (!expect || typeof expect.question !== 'string' || !Array.isArray(expect.options)) {
    throw new UserError('answer: the confirmed prompt (expect) is missing');
  }
  return expect as ConfirmedPrompt;
}
/** Pause between the text and its Enter, and between answer keys, ms (Ink reads keys one by one). */
export const KEY_GAP_MS = 60;
/** How long `answer` waits for an arrow key to move the selection on screen, ms. */
export const KEY_WAIT_MS = 2000;

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

/** Most read-and-classify rounds before one write, for output that never pauses. */
const MAX_ROUNDS = 8;
/** How long a guarded write waits for node-pty's queued writes or a full input buffer, ms. */
const WRITE_WAIT_MS = 2000;

/**
 * Classifies `w` on all the output its agent has written so far and calls `judge` on it:
 * reads the PTY master synchronously ({@link Session.readPending}), evaluates, judges, and
 * reads again; while that read finds output, evaluates and judges again. So the verdict
 * returned was reached on a screen to which the last read, just before returning, added
 * nothing. (After {@link MAX_ROUNDS} rounds of output that never paused, the last verdict
 * stands on a read made one evaluation earlier.)
 */
function judgeFresh<T>(w: PtyPane, judge: () => T): T {
  w.session.readPending();
  for (let round = 1;; round++) {
    w.classifyNow();
    const verdict = judge();
    if (w.session.readPending() === 0 || round >= MAX_ROUNDS) return verdict;
  }
}

/**
 * Writes `data` to `w`'s PTY, each write(2) made right after a fresh classification on which
 * `judge` returned null, with nothing read or awaited in between ({@link judgeFresh}, then
 * {@link Session.writeNow}); a non-null verdict is the refusal, thrown with the number of
 * bytes already written. A write the kernel takes only in part is finished the same way.
 *
 * The window this leaves: the agent draws a prompt after the last read found nothing and
 * before the write returns (a few µs: no evaluation in between), or its drawing has not yet
 * reached the master when that read is made, or our bytes have not yet reached the agent when
 * it draws (a Linux pty passes bytes both ways through a work queue: µs on an idle machine,
 * longer when the CPUs are busy). test/guard.test.ts measures it; no program outside the
 * agent can close it.
 */
async function guardedWrite(
  w: PtyPane,
  data: Uint8Array,
  judge: () => ((written: number) => Error) | null,
): Promise<void> {
  const deadline = Date.now() + WRITE_WAIT_MS;
  let off = 0;
  while (off < data.length) {
    if (w.session.exit) throw new UserError(`session ${w.session.id} has exited`);
    await drainPending();
    const refuse = judgeFresh(w, judge);
    if (refuse) throw refuse(off);
    const n = w.session.writeNow(data.subarray(off));
    off += n;
    if (off < data.length) {
      if (Date.now() > deadline) {
        throw new UserError(
          `${w.session.spec.name} takes no input (${off} of ${data.length} bytes written)`,
        );
      }
      await sleep(n ? 0 : 5);
    }
  }
}

function refusal(w: PtyPane, why: string): GuardRefusal {
  const p = promptOn(w.session.terminal);
  const lines = [why];
  if (p.question) lines.push(`  ${p.question}`);
  for (const o of p.options) lines.push(`    ${o}`);
  return new GuardRefusal(lines.join('\n'), p.question, p.options);
}

/**
 * Writes `text` (then Enter unless `enter` is false) to the pane of `w`, guarded: each is
 * written only right after a fresh classification says the pane is not blocked (see
 * {@link guardedWrite} for the window that remains).
 * @returns the number of bytes written.
 * @throws GuardRefusal when the pane is blocked (before the text: zero bytes written; before
 *   the Enter: the text stays typed, unsubmitted).
 * @throws UserError (exit 3) when the agent's input box holds a draft and `append` is false.
 */
export async function guardedSend(
  w: PtyPane,
  text: string,
  enter = true,
  append = false,
): Promise<number> {
  if (w.session.exit) throw new UserError(`session ${w.session.id} has exited`);
  const bytes = sendBytes(text, w.session.terminal.bracketedPaste); // text, never a key
  // A draft the person left in the input box would be submitted with our text: refuse,
  // unless told to append (only for agents whose manifest says where the input box is).
  await drainPending();
  if (!append && w.classifyNow().state !== 'blocked' && w.manifest) {
    if (inputHoldsText(w.session.terminal.snapshot(), w.manifest) === true) {
      throw new UserError(
        `refused: ${w.session.spec.name}'s input box holds text someone typed; nothing was typed ` +
          '(send --append adds to it and submits both)',
        GUARD_EXIT,
      );
    }
  }
  const blocked = (why: (written: number) => string) => () =>
    w.record.state === 'blocked' ? (written: number) => refusal(w, why(written)) : null;
  // Watch the screen from the moment the text is written: a dialog drawn after the guard's
  // last read and before the write (the window no program outside the agent can close) shows
  // in the output that follows, and the text may have gone into it.
  const appeared = watchForPrompt(w);
  try {
    await guardedWrite(
      w,
      bytes,
      blocked((n) =>
        n
          ? `refused: a prompt appeared while the text was typed; ${n} of ${bytes.length} bytes were typed`
          : `refused: ${w.session.spec.name} is waiting for a permission answer; nothing was typed`
      ),
    );
    appeared.arm();
    await sleep(PROMPT_AFTER_WRITE_MS);
    w.session.readPending();
  } finally {
    appeared.stop();
  }
  if (appeared.seen()) {
    throw refusal(
      w,
      'a prompt appeared while typing: the text may be in it, the Enter was not sent',
    );
  }
  let written = bytes.length;
  if (enter) {
    await sleep(KEY_GAP_MS - PROMPT_AFTER_WRITE_MS);
    await guardedWrite(
      w,
      Buffer.from('\r'),
      blocked(() => `a prompt appeared after the text was typed; the Enter was not sent`),
    );
    written++;
  }
  return written;
}

/** How long after a write its screen is watched for a prompt drawn before it landed, ms. */
export const PROMPT_AFTER_WRITE_MS = 5;

/**
 * Watches `w`'s screen once armed (right after a write): reads what is already on the PTY at
 * once, then classifies after every chunk of output until stopped (the caller waits
 * {@link PROMPT_AFTER_WRITE_MS} and reads once more); `seen()` is true when any of those
 * screens was blocked. A dialog drawn within the guard's window (after its last read, before
 * the write) reaches the master within µs to a few ms; one drawn later was drawn after the
 * agent had our bytes.
 */
function watchForPrompt(
  w: PtyPane,
): { arm(): void; stop(): void; seen(): boolean } {
  let seen = false;
  let off: (() => void) | undefined;
  const look = () => {
    if (!seen && w.classifyNow().state === 'blocked') seen = true;
  };
  return {
    arm() {
      off = w.session.onOutput(look);
      w.session.readPending();
      look();
    },
    stop() {
      off?.();
    },
    seen: () => seen,
  };
}

export type { ConfirmedPrompt } from './protocol.ts';

/**
 * Parses CHOICE: an option number ('1'..), an option's whole text ('yes' is "1. Yes" even
 * beside "2. Yes, and don't ask again ..."), one of its `aliases` (an ACP option's kind or
 * optionId: 'allow_once'), or the start of one option's text ('no').
 * @returns the 0-based option index.
 * @throws UserError when it names no option, or several (an alias two options share, the
 *   start of several texts): the message lists the options it matches.
 */
export function choiceIndex(
  choice: string,
  options: readonly string[],
  aliases: readonly (readonly string[])[] = [],
): number {
  const n = Number(choice);
  if (Number.isInteger(n) && n >= 1 && n <= options.length) return n - 1;
  const want = choice.trim().toLowerCase();
  const named = options.map((_, i) => i).filter((i) =>
    want && (aliases[i] ?? []).some((a) => a.toLowerCase() === want)
  );
  if (named.length === 1) return named[0];
  const texts = options.map((o, i) => ({ i, text: o.replace(/^\d+\.\s*/, '').toLowerCase() }));
  const exact = texts.filter((o) => want && o.text === want);
  if (exact.length === 1) return exact[0].i;
  // Several options of one kind (two allow_always), or the start of several texts: ambiguous,
  // naming only those it matches.
  const hits = named.length ? named : texts.filter((o) => want && o.text.startsWith(want))
    .map((o) => o.i);
  if (hits.length === 1) return hits[0];
  if (hits.length) {
    throw new UserError(
      `'${choice}' is ambiguous: it matches several options: ${
        hits.map((i) => options[i]).join(' | ')
      } (give its number)`,
    );
  }
  throw new UserError(`'${choice}' is not an option: ${options.join(' | ')}`);
}

/** The prompt on `w`'s screen now, checked to be blocked (fresh classification). */
export async function currentPrompt(
  w: PtyPane,
): Promise<Prompt> {
  if (w.session.exit) throw new UserError(`session ${w.session.id} has exited`);
  await drainPending();
  const state = judgeFresh(w, () => w.record.state);
  if (state !== 'blocked') {
    throw new UserError(
      `${w.session.spec.name} is not waiting for an answer (it is ${state})`,
      GUARD_EXIT,
    );
  }
  return promptOn(w.session.terminal);
}

const DOWN = '\x1b[B';
const UP = '\x1b[A';
const RIGHT = '\x1b[C';
const LEFT = '\x1b[D';

/**
 * Answers the prompt of `w` with option `index`, which the person confirmed on `confirmed`.
 * Each key is written only right after a fresh classification shows the confirmed prompt
 * (same question, same options) with the selection where the previous key left it
 * ({@link guardedWrite}), and only once the previous arrow key shows on screen (no key is
 * ever in flight when the next is sent, so the Enter selects what the screen shows).
 * @throws UserError (exit 3) when the pane is not blocked, or the prompt differs from the one
 *   confirmed (it changed or was answered meanwhile), before or between keys.
 */
export async function guardedAnswer(
  w: PtyPane,
  index: number,
  confirmed: ConfirmedPrompt,
): Promise<string> {
  const same = (p: ConfirmedPrompt) =>
    p.question === confirmed.question && p.options.join('\n') === confirmed.options.join('\n') &&
    (confirmed.details === undefined ||
      (p.details ?? []).join('\n') === confirmed.details.join('\n'));
  const changed = () =>
    new UserError(
      'the prompt on screen is not the one you confirmed; nothing more was sent',
      GUARD_EXIT,
    );
  const check = async () => {
    const p = await currentPrompt(w);
    if (!same(p)) throw changed();
    return p;
  };
  /** The refusal for the next key, unless the confirmed prompt shows with `selected` selected. */
  const judge = (selected: number) => () => {
    if (w.record.state !== 'blocked') {
      const state = w.record.state;
      return () =>
        new UserError(
          `${w.session.spec.name} is not waiting for an answer (it is ${state}); nothing more was sent`,
          GUARD_EXIT,
        );
    }
    const p = promptOn(w.session.terminal);
    return same(p) && p.selected === selected ? null : changed;
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
    const from = p.selected;
    // a numbered list moves with ↑/↓, a row of buttons (opencode) with ←/→
    const key = p.layout === 'horizontal'
      ? (from < index ? RIGHT : LEFT)
      : from < index
      ? DOWN
      : UP;
    await guardedWrite(w, Buffer.from(key), judge(from));
    moves++;
    // The next key (or the Enter) only once this one shows: an agent slow to take keys would
    // otherwise still hold arrows sent on a stale screen, and the Enter would land elsewhere.
    const deadline = Date.now() + KEY_WAIT_MS;
    do {
      await sleep(KEY_GAP_MS);
      p = await check();
    } while (p.selected === from && Date.now() < deadline);
    if (p.selected === from) {
      throw new UserError(
        `the selection did not move within ${KEY_WAIT_MS} ms; answer in the pane itself`,
        GUARD_EXIT,
      );
    }
  }
  if (p.selected !== index) {
    throw new UserError('could not move the selection to that option', GUARD_EXIT);
  }
  await guardedWrite(w, Buffer.from('\r'), judge(index));
  return p.options[index];
}
