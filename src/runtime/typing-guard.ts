/**
 * The typing guard: nothing agentwatch types may ever reach a pane that waits for a
 * permission answer. Each function takes the {@link PtyPane} to type into. Right before
 * writing, the pane is classified afresh ({@link PtyPane.classifyNow}, not the last sweep),
 * after the output already waiting on the PTY has been read:
 * - `send` writes text only to a pane that is not blocked; on a blocked pane it writes zero
 *   bytes and reports the prompt's question and options (exit 3 in the CLI). Right after the
 *   text is written the screen is watched until the agent has read it (its terminal's input
 *   queue is empty, {@link Session.inputUnread}) and {@link PROMPT_AFTER_WRITE_MS} longer: a
 *   prompt drawn before that read may hold the text, so it is reported (exit 3) and the Enter
 *   is not sent; text not read within {@link READ_WAIT_MS} gets no Enter either (exit 3). The
 *   Enter that submits the text is checked again on its own, so a prompt that appears between
 *   the text and the Enter does not receive that Enter, and is watched the same way (a prompt
 *   drawn before the agent read it is reported: the Enter may have answered it). Where the
 *   manifest says where the input box is (`[input]`), nothing is typed, `--append` or not,
 *   while a menu or dialog that is no permission prompt covers it (`/model`), and the Enter
 *   goes only once the text shows in the box ({@link inputShows}). Keys the person types in
 *   the pane meanwhile wait until the send is done ({@link guardedSend}).
 * - `answer` works only on a blocked pane, only with the person's confirmation, and only when
 *   the prompt on screen is still the one the person confirmed; once the dialog has settled it
 *   types the option's digit where the manifest says the dialogs take one, else moves the
 *   selection with arrow keys (one key at a time, checking the prompt between keys) and presses
 *   Enter; it returns once the prompt has left the screen ({@link guardedAnswer}).
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
 *
 * Why one file over 400 lines: every write agentwatch makes into a pane goes through here, so
 * that the read-classify-write order above is written once and read in one place; `send`,
 * `answer` and the checks of a confirmation share it.
 */
import { type Prompt, readPrompt } from '../detect/prompt.ts';
import { evaluate, inputBox, inputShows, toolPending } from '../detect/evaluate.ts';
import type { ScreenInput } from '../detect/types.ts';
import { UserError } from '../errors.ts';
import type { ConfirmedPrompt } from './protocol.ts';
import type { PtyPane } from './pty-pane.ts';
import { NOTHING_DRAWN, type StateRecord } from './signals.ts';
import type { Terminal } from '../vt/terminal.ts';
import { SYNC_HOLD_MS } from './screen-pane.ts';
import { checkSendText, goesAsPaste, sendBytes } from './send-text.ts';
import { HOLD_MAX_BYTES, type HoldBreak, type InputHold } from './input-hold.ts';
import { GroupWatch } from './group-processes.ts';

/**
 * The prompt on `terminal`'s screen now: its rows, and their background tags so that a
 * selection drawn with a colour alone (opencode's buttons and question dialog) is seen. A
 * numbered list drawn one item a row with no item marked as selected is no choice but numbered
 * text (an agent's reply, or Claude Code 2.1.332's onboarding "Security notes: 1. Claude can
 * make mistakes. ...", fixtures/claude-code/claude.blocked.onboarding.security.raw): no options
 * then, so `answer` types nothing into it and the board shows no notes as options. Unless
 * `dialogShown` (see {@link dialogShown}): a rule read the dialog off this screen, so its
 * numbered rows are its options (a dialog a person's own rule knows, its selection drawn in a
 * way not read here), with `selected` -1: the notice and the board show them, and `answer`
 * says it cannot see the selection.
 */
export function promptOn(terminal: Terminal, dialog = false): Prompt {
  // a row's background tags only when asked (a button row), not every row's each time
  const p = readPrompt(terminal.snapshot().rows, (y) => terminal.rowBackgrounds(y));
  if (p.layout === 'vertical' && p.options.length && p.selected < 0 && !dialog) {
    return { question: '', options: [], selected: -1, layout: p.layout, details: [] };
  }
  return p;
}

/**
 * Whether `record` (a pane's state) is blocked because one of its manifest's rules read a
 * dialog off the screen (a `screen`, `bottom` or `below_last_rule` region), not because a
 * hook, a title or an in-band OSC state said so (they come before the dialog is drawn, when
 * the numbered rows on screen are still the agent's prose).
 */
export function dialogShown(record: StateRecord): boolean {
  const ev = record.evaluation;
  return record.state === 'blocked' && record.by === 'screen' && !!ev && ev.rule !== null &&
    ev.state === 'blocked' && ev.region !== null && !/^(?:title|osc)\b/.test(ev.region);
}

/** Exit code of a refused `send`/`answer` (the pane is blocked, or no longer blocked). */
export const GUARD_EXIT = 3;

/**
 * The prompt an `answer` request says the person confirmed, checked for shape: a PTY pane and an
 * ACP pane both answer only a confirmed request that names its prompt and its episode (the
 * `prompt` op's `episode`).
 * @throws UserError (exit {@link GUARD_EXIT}) when the person did not confirm, or when the
 *   confirmed prompt or its episode is missing or malformed.
 */
export function confirmedExpect(
  req: {
    confirmed?: unknown;
    expect?: { question?: unknown; options?: unknown; details?: unknown; episode?: unknown };
  },
): ConfirmedPrompt {
  if (req.confirmed !== true) {
    throw new UserError('answer: the person has not confirmed it', GUARD_EXIT);
  }
  const expect = req.expect;
  if (!expect || typeof expect.question !== 'string' || !Array.isArray(expect.options)) {
    throw new UserError('answer: the confirmed prompt (expect) is missing');
  }
  if (typeof expect.episode !== 'number') {
    throw new UserError(
      "answer: the confirmed prompt's episode (expect.episode, from the prompt op) is missing",
    );
  }
  return expect as ConfirmedPrompt;
}

/**
 * The refusal of an answer whose confirmed prompt was answered and then asked again; `done`
 * says what was typed or sent for it before (default: nothing).
 */
export function newEpisode(done = 'nothing was typed'): UserError {
  return new UserError(
    `the prompt you confirmed was answered, or keys were typed into it, since you saw it: ` +
      `look again; ${done}`,
    GUARD_EXIT,
  );
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
  const frameDeadline = Date.now() + SYNC_HOLD_MS;
  let off = 0;
  while (off < data.length) {
    if (w.session.exit) throw new UserError(`session ${w.session.id} has exited`);
    await drainPending();
    // Not into a frame drawn in part (a synchronized update, DEC mode 2026, read before its
    // end: the pane is not classified on it): wait for its end, as long as the pane waits.
    while (w.session.terminal.synchronizedUpdate && Date.now() < frameDeadline) {
      await sleep(5);
      w.session.readPending();
    }
    const refuse = judgeFresh(w, judge);
    if (refuse) throw refuse(off);
    if (w.session.terminal.synchronizedUpdate && Date.now() < frameDeadline) continue;
    let n = 0;
    w.guardWriting = true; // its own keys: no new prompt episode (PtyPane)
    try {
      n = w.session.writeNow(data.subarray(off));
    } finally {
      w.guardWriting = false;
    }
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

/** The refusal naming `why` and the prompt `p` (default: the one on screen now). */
function refusal(
  w: PtyPane,
  why: string,
  p = promptOn(w.session.terminal, dialogShown(w.record)),
): GuardRefusal {
  const lines = [why];
  if (p.question) lines.push(`  ${p.question}`);
  for (const o of p.options) lines.push(`    ${o}`);
  return new GuardRefusal(lines.join('\n'), p.question, p.options);
}

/**
 * Writes `text` (then Enter unless `enter` is false) to the pane of `w`, guarded: each is
 * written only right after a fresh classification says the pane is not blocked (see
 * {@link guardedWrite} for the window that remains). From the check of the input box until it
 * returns (its last Enter read, or a refusal), what the person types in the pane waits
 * ({@link Session.holdInput}, at most {@link SEND_HOLD_MS}) and goes in right after, so it is
 * never mixed into the text nor submitted by its Enter; the person's Ctrl-C goes in at once
 * and stops the send (src/runtime/input-hold.ts says what else passes).
 * @returns the number of bytes written.
 * @throws GuardRefusal when the pane is blocked (before the text: zero bytes written; before
 *   the Enter: the text stays typed, unsubmitted).
 * @throws UserError (exit 3, "stopped: ...") when the person pressed Ctrl-C in the pane while
 *   the send typed, or typed more than {@link HOLD_MAX_BYTES} meanwhile, or the send outlasted
 *   {@link SEND_HOLD_MS}: nothing more is typed (no Enter).
 * @throws UserError (exit 3) when the agent's input box holds a draft and `append` is false;
 *   with or without `append`, when a menu or dialog that is not a permission prompt covers the
 *   box or takes its keys (its manifest's `[input] menu`: Claude Code's `/model`), when the
 *   agent draws no input box yet (`[input] box`: still starting), when it has drawn nothing
 *   at all yet (its screen blank since it started), or when a program its shell started is in
 *   front (state `running`: no agent, no shell at its prompt): nothing typed. Also, for an
 *   agent whose manifest has an `[input]` table, when the text typed does not show in its
 *   input box within {@link SHOW_WAIT_MS} ({@link inputShows}: its end, or a new stand-in for
 *   a paste): the text stays typed, the Enter is not sent.
 */
export async function guardedSend(
  w: PtyPane,
  text: string,
  enter = true,
  append = false,
): Promise<number> {
  if (w.session.exit) throw new UserError(`session ${w.session.id} has exited`);
  checkSendText(text); // text, never a key: refused before any wait
  if (goesAsPaste(text)) await awaitPasteMode(w);
  const bytes = sendBytes(text, w.session.terminal.bracketedPaste);
  // A draft the person left in the input box would be submitted with our text: refuse,
  // unless told to append (only for agents whose manifest says where the input box is).
  await drainPending();
  const name = w.session.spec.name;
  await awaitNoToolPending(w, name);
  const idleBefore = w.classifyNow().state === 'idle';
  if (w.record.state === 'running' && w.foreground.pgid !== w.session.pid) {
    // A program the session's shell started is in front (`sleep` typed in bash): one that does
    // not read its terminal leaves the text in the line discipline's buffer (canonical mode:
    // FIONREAD counts only whole lines, so the text reads as read), and the Enter makes it a
    // line for whatever reads the terminal next: the shell once the program ended, or a
    // script's `read -p "Continue? [y/N]"` (tester6, bash running sleep 20). The session's own
    // command (`run -- python3`, `cat`) is typed into as before.
    throw new UserError(
      `refused: ${name} is ${w.record.reason} (no agent, no shell waiting for a command); ` +
        `nothing was typed (agentwatch wait ${name} --until shell waits for the shell's prompt)`,
      GUARD_EXIT,
    );
  }
  if (w.record.reason === NOTHING_DRAWN) {
    throw new UserError(
      `refused: ${name} has drawn nothing yet (still starting); nothing was typed ` +
        `(agentwatch wait ${name} --until idle waits for it)`,
      GUARD_EXIT,
    );
  }
  // --append too: a menu over the box, or no box at all, takes the text and its Enter as keys
  // (Claude Code's /model menu: the Enter picked a model).
  if (w.record.state !== 'blocked' && w.manifest?.input) {
    const refuses = (b: ReturnType<typeof inputBox>) =>
      b === 'absent' || b === 'menu' || (b === 'text' && !append);
    let box = inputBox(w.session.terminal.snapshot(), w.manifest);
    if (refuses(box)) {
      // A draft stays; a screen caught while the agent redraws it (a dialog half erased, the
      // box not yet drawn) does not: look again, on all the output written by then.
      await sleep(KEY_GAP_MS);
      await drainPending();
      box = judgeFresh(w, () =>
        w.record.state === 'blocked'
          ? 'empty' // the dialog: the guarded write below refuses, naming it
          : inputBox(w.session.terminal.snapshot(), w.manifest!));
    }
    if (box === 'menu') {
      throw new UserError(
        `refused: ${name} shows a menu or dialog over its input box (not a permission prompt: ` +
          'a slash command such as /model, /theme); its keys would go to the menu, and an Enter ' +
          'would pick in it; nothing was typed (close it in the pane, Esc)',
        GUARD_EXIT,
      );
    }
    if (box === 'absent') {
      throw new UserError(
        `refused: ${name} shows no input box (still starting, or a menu covers it); nothing ` +
          `was typed (agentwatch wait ${name} --until idle waits for it)`,
        GUARD_EXIT,
      );
    }
    if (box === 'text' && !append) {
      throw new UserError(
        `refused: ${name}'s input box holds text someone typed; nothing was typed ` +
          '(send --append adds to it and submits both)',
        GUARD_EXIT,
      );
    }
  }
  // From here until send returns (its last Enter read, or a refusal), the keys the person
  // types in the pane wait and go in after it, in order: else they are mixed into the text and
  // submitted with it by its Enter (tester, Gemini CLI 0.61.0, 3 of 5). Keys typed before this
  // are the draft checked above.
  const hold = w.session.holdInput(SEND_HOLD_MS);
  try {
    return await typeAndSubmit(w, text, bytes, enter, idleBefore, hold);
  } finally {
    hold.release();
  }
}

/**
 * The refusal of a write once `hold` (the person's input held while send types) ended early:
 * the person pressed Ctrl-C, typed more than {@link HOLD_MAX_BYTES}, or the send outlasted
 * {@link SEND_HOLD_MS}; their keys went in, so nothing more is typed. `typed` says what of the
 * send's own bytes is in the pane, and what was not sent.
 */
function holdBroken(w: PtyPane, why: HoldBreak, typed: string): UserError {
  const name = w.session.spec.name;
  if (why === 'exit') return new UserError(`session ${w.session.id} has exited`);
  const kib = HOLD_MAX_BYTES / 1024;
  const secs = SEND_HOLD_MS / 1000;
  const cause = why === 'interrupt'
    ? `Ctrl-C was pressed in ${name} while send typed`
    : why === 'full'
    ? `more than ${kib} KiB were typed in ${name} while send typed (they went in)`
    : `send took longer than ${secs} s (the keys typed in ${name} meanwhile went in)`;
  return new UserError(`stopped: ${cause}; ${typed}`, GUARD_EXIT);
}

/**
 * The part of {@link guardedSend} made while the person's input is held (`hold`): types
 * `bytes` (`text` as {@link sendBytes} made it), then, when `enter`, the Enter that submits
 * it; `idleBefore` says the pane was idle before the text (its input box is checked for the
 * text leaving it).
 * @returns the number of bytes written.
 * @throws GuardRefusal, UserError as {@link guardedSend} says; UserError (exit 3) when the
 *   hold ended early ({@link holdBroken}) before a write.
 */
async function typeAndSubmit(
  w: PtyPane,
  text: string,
  bytes: Uint8Array,
  enter: boolean,
  idleBefore: boolean,
  hold: InputHold,
): Promise<number> {
  const name = w.session.spec.name;
  // what the input box showed before the text (the text is told from words already there)
  const screenBefore = w.session.terminal.snapshot();
  /** What of the text is in the pane when `written` bytes of it went. */
  const textTyped = (written: number) =>
    written === 0
      ? 'nothing was typed'
      : `${written} of ${bytes.length} bytes were typed, not submitted; the Enter was not sent`;
  const enterTyped = () => 'the text is typed, not submitted; the Enter was not sent';
  const secondTyped = () =>
    'the text and an Enter were typed (it may not be submitted); no second Enter was sent';
  const blocked = (
    why: (written: number) => string,
    typed: (written: number) => string = textTyped,
  ) =>
  () => {
    const broken = hold.broken;
    if (broken) return (written: number) => holdBroken(w, broken, typed(written));
    return w.record.state === 'blocked' ? (written: number) => refusal(w, why(written)) : null;
  };
  // Watch the screen from the moment the text is written: a dialog drawn after the guard's
  // last read and before the write (the window no program outside the agent can close) shows
  // in the output that follows, and the text may have gone into it.
  const appeared = watchForPrompt(w);
  let read: boolean | undefined;
  let readAt = 0;
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
    read = await awaitRead(w, READ_WAIT_MS);
    appeared.read();
    readAt = Date.now();
    await sleep(PROMPT_AFTER_WRITE_MS);
    w.session.readPending();
  } finally {
    appeared.stop();
  }
  if (appeared.seen()) {
    throw refusal(
      w,
      'a prompt appeared while typing: the text may be in it, the Enter was not sent',
      appeared.prompt(),
    );
  }
  if (read === false) {
    // Still in the terminal's input queue: it reaches whatever the agent shows when it reads
    // it, which nobody can check now; no Enter goes after it.
    throw new UserError(
      `${w.session.spec.name} has not read the text within ${READ_WAIT_MS / 1000} s (busy, or ` +
        'stopped): it is typed but not submitted, and reaches whatever the agent shows when it ' +
        'reads it; the Enter was not sent',
      GUARD_EXIT,
    );
  }
  let written = bytes.length;
  if (enter) {
    // Each Enter is watched as the text was: until the agent has read it, and a prompt it drew
    // before that read may have taken it (an Enter answers a dialog with its selected option).
    const pressEnter = async (typed = enterTyped) => {
      // Only screens read while the Enter was still unread count: the agent's answer to the
      // Enter (a dialog for the task it submitted) comes after its read.
      const appeared = watchForPrompt(w);
      let before: Prompt | undefined;
      let read: boolean | undefined;
      try {
        await guardedWrite(
          w,
          Buffer.from('\r'),
          blocked(
            () => `a prompt appeared after the text was typed; the Enter was not sent`,
            typed,
          ),
        );
        written++;
        appeared.arm();
        read = await awaitRead(w, READ_WAIT_MS, () => (before ??= appeared.prompt()));
      } finally {
        appeared.stop();
      }
      if (before) {
        throw refusal(
          w,
          'a prompt appeared as the Enter was pressed: the Enter may have answered it; look at ' +
            'the pane',
          before,
        );
      }
      if (read === false) {
        throw new UserError(
          `${w.session.spec.name} has not read the Enter within ${READ_WAIT_MS / 1000} s (busy, ` +
            'or stopped): the text may not be submitted, and the Enter reaches whatever the ' +
            'agent shows when it reads it',
          GUARD_EXIT,
        );
      }
    };
    // The Enter KEY_GAP_MS after the agent read the text and then ran (drew anything: the
    // echo), not after we wrote it: Gemini CLI 0.61.0 takes an Enter it handles within 30 ms
    // of the last typed key as a new line (KeypressContext.tsx `bufferFastReturn`,
    // FAST_RETURN_TIMEOUT, when the kitty keyboard protocol is off); a busy agent read text
    // and Enter at once, or handled the text only after a pause that followed its read.
    const ranAt = read ? await awaitOutput(w, READ_ECHO_MS) : readAt;
    await sleep(ranAt + KEY_GAP_MS - Date.now());
    // Our text, or the stand-in the agent draws for a paste, must show in its input box: a
    // menu or dialog that took it as keys (not a permission prompt: the pane reads idle) would
    // take the Enter as its choice (Claude Code 2.1.332's /model menu: send --append x picked
    // a model).
    if (hold.broken) throw holdBroken(w, hold.broken, enterTyped());
    if (w.manifest?.input && !(await shownInBox(w, text, screenBefore, hold))) {
      // the person's Ctrl-C meanwhile (it cleared the box) says why, not the box
      if (hold.broken) throw holdBroken(w, hold.broken, enterTyped());
      throw new UserError(
        `refused: the text did not reach ${name}'s input box (a menu or dialog may have taken ` +
          `it, or ${name} has not drawn it within ${
            SHOW_WAIT_MS / 1000
          } s); the Enter was not sent`,
        GUARD_EXIT,
      );
    }
    await pressEnter();
    // Sent to an idle agent, the text leaves its input box once submitted. Codex 0.171 takes
    // an Enter that follows fast typing (our text arrives in one read) as a newline, not a
    // submit (its paste-burst guard): the text stayed in its composer with a new empty line
    // under it. One more Enter, once the agent has drawn the first, submits it.
    if (idleBefore && w.manifest?.input && !(await leftInputBox(w))) {
      w.session.log('send: the text is still in the input box after the Enter; one more Enter');
      await pressEnter(secondTyped);
      if (!(await leftInputBox(w))) {
        throw new UserError(
          `${w.session.spec.name}: the text was typed but not submitted: it is still in the ` +
            'input box after two Enters; press Enter in the pane',
          GUARD_EXIT,
        );
      }
    }
  }
  return written;
}

/** How long `send` waits for its text to show in the agent's input box before the Enter, ms. */
export const SHOW_WAIT_MS = 3000;

/**
 * Whether `text`, just typed into `w`, shows in its input box ({@link inputShows}: its end, or a
 * new stand-in for a paste, in the `[input]` region; `before` is the screen before it was
 * typed), on a fresh look, looking again after each {@link KEY_GAP_MS} for up to
 * {@link SHOW_WAIT_MS} (an agent may draw typed text late: Gemini CLI 0.61.0 had not drawn
 * 1,213 characters typed at once 3 s later, though it held them). The pane turning blocked
 * counts as shown: the Enter's own guard then refuses, naming the prompt. False at once when
 * `hold` (the person's keys held while send types) ended early: their Ctrl-C.
 */
async function shownInBox(
  w: PtyPane,
  text: string,
  before: ScreenInput,
  hold: InputHold,
): Promise<boolean> {
  const until = Date.now() + SHOW_WAIT_MS;
  for (;;) {
    if (w.session.exit) return true;
    if (hold.broken) return false;
    await drainPending();
    const shown = judgeFresh(w, () =>
      w.record.state === 'blocked' ||
      inputShows(w.session.terminal.snapshot(), w.manifest!, text, before) !== 'none');
    if (shown) return true;
    if (Date.now() >= until) return false;
    await sleep(KEY_GAP_MS);
  }
}

/** How long `send` waits for a submitted text to leave an idle agent's input box, ms. */
export const SUBMIT_WAIT_MS = 1500;

/**
 * Whether the text just submitted left `w`'s input box within {@link SUBMIT_WAIT_MS} of the
 * agent's first output after it read the Enter (waited for up to as long: a loaded agent
 * redraws late, and a box read before its redraw still holds the text): the box reads empty or
 * is no longer drawn, or the pane is no longer idle (working on it, or a prompt shows), on two
 * fresh looks {@link KEY_GAP_MS} apart (one frame may show the box mid-redraw).
 */
async function leftInputBox(w: PtyPane): Promise<boolean> {
  // Gemini CLI 0.61.0 at load 10-20 had not redrawn 1.5 s after the Enter was read: a second
  // Enter went after a text it had taken (clean-clone CI, send-gemini: 23 bytes, not 22).
  await awaitOutput(w, SUBMIT_WAIT_MS);
  const until = Date.now() + SUBMIT_WAIT_MS;
  let seen = 0;
  while (Date.now() < until) {
    await sleep(KEY_GAP_MS);
    if (w.session.exit) return true;
    await drainPending();
    const gone = judgeFresh(w, () =>
      w.record.state !== 'idle' ||
      inputBox(w.session.terminal.snapshot(), w.manifest!) !== 'text');
    seen = gone ? seen + 1 : 0;
    if (seen >= 2) return true;
  }
  return seen > 0;
}

/**
 * How long the screen is still watched for a prompt once the agent has read the text (or,
 * when that cannot be known, after the write), ms.
 */
export const PROMPT_AFTER_WRITE_MS = 5;

/** How long `send` waits for the agent to read the text it typed, ms. */
export const READ_WAIT_MS = 3000;

/**
 * How long `send` waits, once the agent has read the text, for output that shows it ran after
 * that read (its echo of the text), before the Enter, ms; an agent that draws nothing costs
 * this much per send.
 */
export const READ_ECHO_MS = 1000;

/**
 * The longest `send` holds the person's input ({@link Session.holdInput}), ms: the bounds of
 * what it does meanwhile, summed (the text's write and its read, the wait for its echo, then
 * up to two Enters, each written, read and followed by the wait for the text to leave the
 * input box; each write may first wait out a synchronized update), and a second more. A send
 * within its own bounds never reaches it; a stuck one lets the person's keys go then (and
 * types nothing more).
 */
export const SEND_HOLD_MS = 3 * (SYNC_HOLD_MS + WRITE_WAIT_MS + READ_WAIT_MS) + READ_ECHO_MS +
  2 * (KEY_GAP_MS + SUBMIT_WAIT_MS) + 1000;

/**
 * How long the agent's screen must have shown no `[input] pending` pattern before `send`
 * types, ms: once Claude Code's PreToolUse hooks are done it decides whether to ask and draws
 * its dialog; a key typed meanwhile, read late by a busy agent, was read by that dialog and
 * answered it (tester7, Claude Code 2.1.332 with agentwatch's hooks on a loaded machine: 7 of
 * 19 `send "1"` right after a task approved its Bash dialog; 0 of 18 without hooks). Those
 * hooks were waited for then; they now run in the background (Claude Code goes on at once, as
 * without hooks), and the wait after their PreToolUse report, counted from its arrival, comes
 * after Claude Code went on: a margin, no longer a window they open.
 */
export const PENDING_SETTLE_MS = 1000;
/** How long `send` waits for `[input] pending` to clear before it refuses, ms. */
export const PENDING_WAIT_MS = 10_000;

/**
 * Waits until `w`'s screen has shown none of its manifest's `[input] pending` patterns
 * ({@link toolPending}), and its agent's last PreToolUse report ({@link PtyPane.toolPendingAt})
 * came, {@link PENDING_SETTLE_MS} ago or more, or until the pane reads blocked (the caller then
 * refuses, naming the dialog); returns at once when neither was seen, or the manifest declares
 * no `pending`.
 * @throws UserError (exit {@link GUARD_EXIT}) when one still shows after {@link PENDING_WAIT_MS}.
 */
async function awaitNoToolPending(w: PtyPane, name: string): Promise<void> {
  const manifest = w.manifest;
  if (!manifest?.input?.pending?.length) return;
  const start = Date.now();
  let seenAt = toolPending(w.session.terminal.snapshot(), manifest) ? start : w.toolPendingAt;
  if (seenAt === undefined || start - seenAt >= PENDING_SETTLE_MS) return;
  for (;;) {
    await sleep(KEY_GAP_MS);
    await drainPending();
    w.session.readPending();
    const now = Date.now();
    if (toolPending(w.session.terminal.snapshot(), manifest)) seenAt = now;
    if (w.toolPendingAt !== undefined && w.toolPendingAt > seenAt) seenAt = w.toolPendingAt;
    if (w.classifyNow().state === 'blocked' || now - seenAt >= PENDING_SETTLE_MS) return;
    if (now - start >= PENDING_WAIT_MS) {
      throw new UserError(
        `refused: ${name} is about to run a tool and may ask permission for it (its screen ` +
          `says so for ${PENDING_WAIT_MS / 1000} s): keys typed now could answer that dialog; ` +
          'nothing was typed',
        GUARD_EXIT,
      );
    }
  }
}

/**
 * How long `send` waits for the agent to turn bracketed paste on (DECSET 2004) before text
 * that goes as a paste ({@link goesAsPaste}), ms: Gemini CLI 0.61.0 turned it on 0.4 s after
 * its screen read idle (its input box drawn), and a long line typed before was not drawn
 * within `send`'s wait.
 */
export const PASTE_MODE_WAIT_MS = 2000;

/**
 * The longest a `send` may take in the host, ms: its waits for a tool call's decision and for
 * paste mode, then its typing and Enters while the person's keys are held; a client waits
 * this long for its answer (plus a margin), or it would report a failure while the host still
 * types.
 */
export const SEND_MAX_MS = PENDING_WAIT_MS + 2 * PENDING_SETTLE_MS + PASTE_MODE_WAIT_MS +
  SEND_HOLD_MS;

/**
 * Waits up to {@link PASTE_MODE_WAIT_MS} for `w`'s agent to turn bracketed paste on, reading
 * its output meanwhile; returns at once when it is on, or the agent exited.
 */
async function awaitPasteMode(w: PtyPane): Promise<void> {
  const until = Date.now() + PASTE_MODE_WAIT_MS;
  while (!w.session.terminal.bracketedPaste && !w.session.exit && Date.now() < until) {
    await awaitOutput(w, until - Date.now());
  }
}

/**
 * Waits up to `ms` for output from `w`'s agent that it wrote after now (the master was read
 * just before: {@link awaitRead}), reading the PTY every few ms.
 * @returns when that output was read (ms since the epoch), or the time of the bound.
 */
async function awaitOutput(w: PtyPane, ms: number): Promise<number> {
  const chunks = w.session.chunksOut;
  const until = Date.now() + ms;
  while (w.session.chunksOut === chunks && Date.now() < until && !w.session.exit) {
    await sleep(5);
    w.session.readPending();
  }
  return Date.now();
}

/**
 * Waits until `w`'s agent has read every byte written to its PTY ({@link Session.inputUnread}
 * is 0), reading its output meanwhile (about every millisecond), then reads it once more: a
 * screen the agent drew before its read(2) took our bytes is then on our screen (the agent's
 * output is in the master before its read; our read(2) of the master moves what is still in
 * the pty's flip buffer first).
 * @returns true once read, false when bytes are still unread after `ms`, undefined when that
 *   cannot be known (no native addon, the PTY closed).
 */
async function awaitRead(
  w: PtyPane,
  ms: number,
  whileUnread?: () => void,
): Promise<boolean | undefined> {
  const until = Date.now() + ms;
  // Bytes written after ours (a person typing, our replies to the agent's terminal queries) may
  // still wait behind ours: ours are read once fewer than those are unread.
  const after = w.session.bytesIn;
  for (;;) {
    w.session.readPending();
    const unread = w.session.inputUnread();
    if (unread === undefined) return undefined;
    if (unread <= w.session.bytesIn - after) {
      w.session.readPending();
      return true;
    }
    // Everything read from the master so far was written before the agent read our bytes.
    whileUnread?.();
    if (Date.now() >= until) return false;
    await sleep(1);
  }
}

/**
 * Watches `w`'s screen once armed (right after a write): reads what is already on the PTY at
 * once, then classifies after every chunk of output until stopped (the caller waits until the
 * agent has read the bytes, {@link awaitRead}, then {@link PROMPT_AFTER_WRITE_MS}, and reads
 * once more); `seen()` is true when any of those screens was blocked. A dialog the agent drew
 * before its read(2) took our bytes is in the master by then (however late the agent ran: a
 * loaded machine); one drawn later was drawn after the agent had our bytes.
 */
function watchForPrompt(
  w: PtyPane,
): {
  arm(): void;
  read(): void;
  stop(): void;
  seen(): boolean;
  prompt(): Prompt | undefined;
} {
  let seen: Prompt | undefined;
  let off: (() => void) | undefined;
  let offPiece: (() => void) | undefined;
  const look = () => {
    if (!seen && w.classifyNow().state === 'blocked') {
      seen = promptOn(w.session.terminal, dialogShown(w.record));
    }
  };
  // Inside a chunk (a screen replaced within one read): the rules alone, not the state kept.
  const lookInside = () => {
    const m = w.manifest;
    if (seen || !m) return;
    const ev = evaluate(w.session.terminal.snapshot(), m);
    if (ev.rule !== null && ev.state === 'blocked') seen = promptOn(w.session.terminal);
  };
  return {
    arm() {
      off = w.session.onOutput(look);
      offPiece = w.session.onPiece(lookInside);
      w.session.readPending();
      look();
    },
    /** The agent has read our bytes: later output is looked at per chunk only. */
    read() {
      offPiece?.();
    },
    stop() {
      off?.();
      offPiece?.();
    },
    seen: () => seen !== undefined,
    /** The first prompt seen, as it showed then. */
    prompt: () => seen,
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

/**
 * {@link judgeFresh} on a whole frame: while the agent is inside a synchronized update (DEC
 * mode 2026) read in part, waits for its end (reading the PTY every 5 ms), up to
 * {@link SYNC_HOLD_MS} from the call, as {@link guardedWrite} does before a write. The pane is
 * not classified on such a frame, but the terminal holds it: a prompt read off it is the
 * frame half drawn. Qwen Code 0.24.4 repaints its whole screen (`CSI 2J`, then every row) in
 * one synchronized update each time it draws (its dialog's selection moved); read between two
 * pieces, the screen showed its permission dialog without question or options
 * (`answer` refused after its first Down: "the prompt on screen is not the one you
 * confirmed", test/answer-qwen-arrows.test.ts at load ~15). After the bound the verdict
 * stands on the screen as it is.
 */
async function judgeWhole<T>(w: PtyPane, judge: () => T): Promise<T> {
  const deadline = Date.now() + SYNC_HOLD_MS;
  for (;;) {
    await drainPending();
    while (w.session.terminal.synchronizedUpdate && Date.now() < deadline && !w.session.exit) {
      await sleep(5);
      w.session.readPending();
    }
    const verdict = judgeFresh(w, judge);
    if (!w.session.terminal.synchronizedUpdate || Date.now() >= deadline) return verdict;
  }
}

/**
 * The prompt on `w`'s screen now, checked to be blocked (fresh classification, on a whole
 * frame: {@link judgeWhole}).
 * @throws UserError (exit {@link GUARD_EXIT}) when the pane is not blocked; UserError when
 *   its session has exited.
 */
export async function currentPrompt(
  w: PtyPane,
): Promise<Prompt> {
  if (w.session.exit) throw new UserError(`session ${w.session.id} has exited`);
  const state = await judgeWhole(w, () => w.record.state);
  if (state !== 'blocked') {
    throw new UserError(
      `${w.session.spec.name} is not waiting for an answer (it is ${state})`,
      GUARD_EXIT,
    );
  }
  return promptOn(w.session.terminal, dialogShown(w.record));
}

/** The names a refusal gives the arrow keys (see guardedAnswer). */
const ARROW_NAMES: ReadonlySet<string> = new Set(['Down', 'Up', 'Right', 'Left']);
const DOWN = '\x1b[B';
const UP = '\x1b[A';
const RIGHT = '\x1b[C';
const LEFT = '\x1b[D';

/**
 * How long a dialog must have been on screen before `answer` types into it, ms. Claude Code
 * 2.1.332 ignores keys (Enter and digits alike) that reach a permission dialog in its first
 * 100-200 ms; the wait is counted from the first evaluation that saw the prompt
 * ({@link PtyPane.promptSince}), which is never earlier than the agent drew it.
 */
export const ANSWER_SETTLE_MS = 500;
/**
 * How long `answer` waits for the prompt to leave after its last key, ms; up to
 * {@link ANSWER_SLOW_MS} when the key is not to be typed again.
 */
export const ANSWER_RESULT_MS = 3000;
/**
 * How long `answer` waits for the prompt to leave after its key when it will not type the key
 * again (see {@link guardedAnswer}), ms: the agent may have taken the key and be slow to act on
 * it. Gemini CLI 0.61.0 on a 2-core machine at load 15 drew its folder-trust dialog's restart
 * notice 5 s after the Enter it had read at once, and at load 30 exited for its restart more
 * than 3 s after it drew the notice.
 */
export const ANSWER_SLOW_MS = 10_000;
/**
 * How long `answer` waits, once the agent restarted itself after reading the key, for its new
 * process to show it ready or another prompt, ms: Gemini CLI 0.61.0's new process drew its
 * composer 1.5 s after its restart was seen on a 2-core machine at load 10, 9 s at load 15,
 * and not within 20 s at load 30.
 */
export const RESTART_WAIT_MS = 45_000;
/**
 * Output from the agent this long after the answer's key shows it ran since the key was in
 * its input (the evidence a retry needs, see {@link guardedAnswer}), ms.
 */
const ALIVE_AFTER_MS = 100;
/**
 * A key typed later than this after the dialog last changed (it first showed, or the last
 * arrow key's move of its selection was drawn) is never typed again: the known reason a
 * dialog drops a key is that it came too soon after such a change (Claude Code 2.1.332 after
 * it showed, {@link ANSWER_SETTLE_MS}; Qwen Code 0.24.4 dropped an Enter typed right after
 * the move of its selection was drawn, see {@link guardedAnswer}), ms.
 */
const RETRY_BEFORE_MS = 3 * ANSWER_SETTLE_MS;
/**
 * How long `answer` looks again at a screen that shows the pane not blocked, or another
 * prompt, before it refuses (a screen caught while the agent redraws), ms.
 */
const ANSWER_RELOOK_MS = SYNC_HOLD_MS;
/** Exit code of an `answer` whose key was typed while the prompt stayed on screen. */
export const ANSWER_UNCONFIRMED_EXIT = 5;

/** The keys that answer: the option's digit, when the manifest says its dialogs take one. */
function answerKey(w: PtyPane, p: Prompt, index: number): 'digit' | 'arrows' {
  return w.manifest?.answer?.keys === 'digit' && p.layout === 'vertical' && index < 9 &&
      p.options[index].startsWith(`${index + 1}. `)
    ? 'digit'
    : 'arrows';
}

/**
 * Waits up to {@link KEY_WAIT_MS} for the selection of the prompt `check` reads to leave
 * `from`: reads the PTY every 5 ms and looks (`check`, which throws when the prompt is no
 * longer the confirmed one) at each screen the agent's output changed, so the moment the move
 * was drawn is known within a few ms.
 * @returns the prompt as last seen (its selection still `from` at the bound).
 */
async function awaitMoved(
  w: PtyPane,
  check: () => Promise<Prompt>,
  from: number,
): Promise<Prompt> {
  const deadline = Date.now() + KEY_WAIT_MS;
  let seen = -1;
  for (;;) {
    await sleep(5);
    w.session.readPending();
    if (w.session.chunksOut === seen && Date.now() < deadline) continue;
    seen = w.session.chunksOut;
    const p = await check();
    if (p.selected !== from || Date.now() >= deadline) return p;
  }
}

/**
 * How the screen answers a key: the prompt gone or changed, or still there; `restarted`: the
 * agent restarted itself after reading the key and its new process shows it ready or another
 * prompt; `lost`: it restarted and its new process showed neither within
 * {@link RESTART_WAIT_MS}.
 */
type Outcome = 'gone' | 'moved' | 'same' | 'restarted' | 'lost';

/**
 * Answers the prompt of `w` with option `index`, which the person confirmed on `confirmed`,
 * and returns once the prompt has left the screen.
 *
 * Each key is written only right after a fresh classification shows the confirmed prompt
 * (same question, same options, same details) with the selection where the previous key left
 * it ({@link guardedWrite}), and not before the prompt has been on screen for
 * {@link ANSWER_SETTLE_MS}. Where the manifest says its dialogs take a digit (`[answer] keys =
 * "digit"`) and the option is numbered 1-9, the digit is the one key; otherwise arrow keys
 * move the selection and Enter confirms; the key after an arrow goes only once the agent has
 * drawn that arrow's move (looked at as each output arrives) and {@link KEY_GAP_MS} after it
 * drew it, not after the arrow was written (a slow agent drew Down's move late, and the next
 * key reached it right after).
 *
 * Every look waits out a frame the agent is drawing inside a synchronized update (Qwen Code
 * 0.24.4 redraws its whole screen so for each move: read between two of its pieces, the
 * screen showed no question and no options). A look that shows the pane not blocked, or
 * another prompt, is made again every {@link KEY_GAP_MS} for up to {@link ANSWER_RELOOK_MS}
 * before the refusal (nothing is typed meanwhile, so looking again costs no safety); a
 * prompt asked anew (another episode) is refused at once.
 *
 * Then the screen is watched for {@link ANSWER_RESULT_MS}: the answer counts once two fresh
 * classifications in a row show the pane not blocked, or blocked on another prompt. When the
 * same prompt still shows at the bound, the key is typed once more (through the same guarded
 * write: the confirmed prompt, the same selection, on a fresh look) only when that is provably
 * safe: the key was typed within {@link RETRY_BEFORE_MS} of the dialog's last change (it
 * first showed, or the last arrow's move was drawn: a dialog drops keys that come too soon
 * after it changed), the same prompt with the same selection showed throughout, nothing else
 * was typed into the pane since, and the agent wrote output at least {@link ALIVE_AFTER_MS}
 * after the key (so it ran while the key waited in its input, read it and ignored it). An
 * agent that wrote nothing gets no second key: it may be stalled with the key unread, or may
 * have taken it and be slow to close (test/answer-confirm.test.ts `take-slow`); that it read
 * the key (its input queue empty) does not tell those apart, so it is not taken as evidence.
 * Whenever the key is not typed again, the prompt is watched up to {@link ANSWER_SLOW_MS} from
 * the key before the answer reads as not taken (Gemini CLI 0.61.0 under load acted on its
 * trust dialog's Enter 5 s after reading it). What this trusts: a dialog that took a key shows it (closes, or
 * moves its selection) within {@link ANSWER_RESULT_MS} while it draws anything at all.
 *
 * An agent that restarts itself after reading the key (Gemini CLI 0.61.0 after its
 * folder-trust dialog) leaves the dialog it drew on the screen until its new process draws:
 * the watch then waits up to `restartWaitMs` (default {@link RESTART_WAIT_MS}) for the new
 * process to show the agent ready or another prompt (answered), never types the key again,
 * and reports the same prompt drawn again as still showing (exit 5); see {@link awaitAnswer}. Where the processes of the
 * pane cannot be read (not Linux) or the agent's input queue cannot (no native addon), a
 * restart is not seen and the dialog's leftover counts as still showing.
 *
 * Qwen Code 0.24.4 draws nothing while its dialog waits (after a move, no output for a
 * second, 16 of 16 times), so it never gets a second Enter: at load ~15 one Enter of 8, typed
 * 1 ms after the look that showed Down's move (the move drawn up to 70 ms before), left the
 * dialog on screen with option 3 selected for the whole watch (exit 5,
 * test/answer-qwen-arrows.test.ts); the pacing above (each key {@link KEY_GAP_MS} after the
 * previous one's move was drawn) is what answers that.
 * @param restartWaitMs how long to wait for an agent that restarted after reading the key to
 *   show its new screen, ms.
 * @returns the option answered, as the screen named it.
 * @throws UserError (exit 3) when the pane is not blocked, or the prompt differs from the one
 *   confirmed (it changed or was answered meanwhile), before or between keys; its message
 *   says which keys, if any, were typed before (nothing more is).
 * @throws UserError (exit {@link ANSWER_UNCONFIRMED_EXIT}) when the key was typed but the
 *   prompt is still on screen at the bound.
 */
export async function guardedAnswer(
  w: PtyPane,
  index: number,
  confirmed: ConfirmedPrompt,
  restartWaitMs: number = RESTART_WAIT_MS,
): Promise<string> {
  const sameText = (p: Omit<ConfirmedPrompt, 'episode'>) =>
    p.question === confirmed.question && p.options.join('\n') === confirmed.options.join('\n') &&
    (confirmed.details === undefined ||
      (p.details ?? []).join('\n') === confirmed.details.join('\n'));
  /**
   * The pane's counts right before the guard's first arrow key ({@link PtyPane.foreignKeys},
   * {@link PtyPane.unblocks}); unset before it. Until that key the prompt must be the episode
   * the person confirmed; from then on the screen's part of the episode may change, as the
   * agent redraws the dialog for the move, but no key of anyone else may have reached the
   * pane, and no look may have found it not blocked. Gemini CLI 0.61.0 redraws its whole
   * dialog after a Down, erase then draw, unsynchronized: a look between the two read a
   * blocked screen with no prompt, the next one the dialog again, a new episode; `answer 3`
   * stopped after its own Down ("keys were typed into it") with option 2 selected (tester t10
   * M4; 3 of 4 rounds at load 2 here).
   */
  let own: { foreign: number; unblocks: number } | undefined;
  const episode = () =>
    own
      ? w.foreignKeys === own.foreign && w.unblocks === own.unblocks
      : w.promptEpisode === confirmed.episode;
  /** The keys typed so far, named for a refusal (none yet: empty). */
  const typed: string[] = [];
  /**
   * What a refusal says was typed; after arrow keys alone, also the option selected now when
   * the screen shows the confirmed prompt (an Enter pressed in the pane answers with it).
   */
  const done = () => {
    if (!typed.length) return 'nothing was typed';
    const said = `only ${typed.join(', ')} had been typed (${
      typed.length === 1 ? 'it' : 'they'
    } cannot be taken back); nothing more was typed`;
    if (!typed.every((k) => ARROW_NAMES.has(k)) || w.record.state !== 'blocked') return said;
    const now = promptOn(w.session.terminal, dialogShown(w.record));
    if (!sameText(now) || now.selected < 0) return said;
    return `${said}; "${now.options[now.selected]}" is selected now: an Enter in its pane ` +
      'answers with it';
  };
  const changed = () =>
    new UserError(
      `the prompt on screen is not the one you confirmed; ${done()}`,
      GUARD_EXIT,
    );
  const again = () => newEpisode(done());
  /**
   * The confirmed prompt on screen now. A look that finds the pane not blocked, or another
   * prompt, is made again every KEY_GAP_MS for up to ANSWER_RELOOK_MS before the refusal: a
   * screen read while the agent redraws can show neither (nothing is typed meanwhile).
   */
  const check = async () => {
    const until = Date.now() + ANSWER_RELOOK_MS;
    for (;;) {
      let p: Prompt | undefined;
      let notBlocked: UserError | undefined;
      try {
        p = await currentPrompt(w);
      } catch (e) {
        if (!(e instanceof UserError) || e.exitCode !== GUARD_EXIT || w.session.exit) throw e;
        notBlocked = e;
      }
      if (p && sameText(p)) {
        if (!episode()) throw again(); // the same prompt asked anew: no later look changes that
        return p;
      }
      if (Date.now() >= until) {
        if (!notBlocked) throw changed();
        if (typed.length) notBlocked.message += `; ${done()}`;
        throw notBlocked;
      }
      await sleep(KEY_GAP_MS);
    }
  };

  /** The refusal for the next key, unless the confirmed prompt shows with `selected` selected. */
  const judge = (selected: number) => () => {
    if (w.record.state !== 'blocked') {
      const state = w.record.state;
      return () =>
        new UserError(
          `${w.session.spec.name} is not waiting for an answer (it is ${state}); ${done()}`,
          GUARD_EXIT,
        );
    }
    const p = promptOn(w.session.terminal, dialogShown(w.record));
    if (!sameText(p)) return changed;
    if (!episode()) return again;
    return p.selected === selected ? null : changed;
  };
  let p = await check();
  if (index < 0 || index >= p.options.length) throw new UserError(`no option ${index + 1}`);
  const keys = answerKey(w, p, index);
  if (keys === 'arrows' && p.selected < 0) {
    throw new UserError(
      'cannot see which option is selected on screen; answer in the pane itself',
      GUARD_EXIT,
    );
  }
  // The processes that showed the dialog (an agent may restart itself once it read the key:
  // see awaitAnswer), read while the dialog settles: a /proc scan takes ms on a busy machine,
  // and the key is typed soon after the dialog showed.
  const holders = GroupWatch.of(
    w.foreground.pgid > 0 ? w.foreground.pgid : w.session.pid,
    w.promptSince,
  );
  // A dialog just drawn may not take keys yet (see ANSWER_SETTLE_MS).
  for (;;) {
    const wait = w.promptSince + ANSWER_SETTLE_MS - Date.now();
    if (wait <= 0) break;
    await sleep(Math.min(wait, 100));
    p = await check();
  }
  let moves = 0;
  /** When the last arrow key's effect (the selection moved) was drawn, ms since the epoch. */
  let movedAt = 0;
  while (keys === 'arrows' && p.selected !== index && moves < 20) {
    const from = p.selected;
    // a numbered list moves with ↑/↓, a row of buttons (opencode) with ←/→
    const key = p.layout === 'horizontal'
      ? (from < index ? RIGHT : LEFT)
      : from < index
      ? DOWN
      : UP;
    const counts = { foreign: w.foreignKeys, unblocks: w.unblocks };
    await guardedWrite(w, Buffer.from(key), judge(from));
    // typed: the agent's redraw of the move is the guard's own doing from now on
    own ??= counts;
    moves++;
    typed.push(key === DOWN ? 'Down' : key === UP ? 'Up' : key === RIGHT ? 'Right' : 'Left');
    // The next key (or the Enter) only once this one shows: an agent slow to take keys would
    // otherwise still hold arrows sent on a stale screen, and the Enter would land elsewhere.
    p = await awaitMoved(w, check, from);
    movedAt = Date.now();
    if (p.selected === from) {
      throw new UserError(
        `the selection did not move within ${KEY_WAIT_MS} ms; answer in the pane itself`,
        GUARD_EXIT,
      );
    }
    // ... and KEY_GAP_MS after the agent drew that, not after the key was written: an agent
    // slow to draw the move would otherwise get the next key right after it drew it.
    await sleep(movedAt + KEY_GAP_MS - Date.now());
  }
  if (keys === 'arrows' && p.selected !== index) {
    throw new UserError('could not move the selection to that option', GUARD_EXIT);
  }
  const key = keys === 'digit' ? String(index + 1) : '\r';
  const keyName = keys === 'digit' ? `'${key}'` : 'Enter';
  const selected = p.selected;
  for (let attempt = 1;; attempt++) {
    await guardedWrite(w, Buffer.from(key), judge(selected));
    typed.push(keyName);
    // Whether the prompt is still the one the key went to: by its text and the screen's
    // episode (keys typed by others after ours start a new episode for confirmations, but the
    // dialog on screen is still this one, unanswered).
    const screenEpisode = w.screenEpisode;
    const stillThis = (p: Omit<ConfirmedPrompt, 'episode'>) =>
      sameText(p) && w.screenEpisode === screenEpisode;
    // Counted from the dialog's last change: its first showing, or the move of its selection
    // that the last arrow key drew.
    const early = Date.now() - Math.max(w.promptSince, movedAt) < RETRY_BEFORE_MS;
    const { outcome, retry, restarted } = await awaitAnswer(
      w,
      stillThis,
      sameText,
      selected,
      holders,
      restartWaitMs,
      early && attempt === 1,
    );
    if (outcome === 'gone') return p.options[index];
    if (outcome === 'restarted') {
      w.session.log(`answer: ${keyName} answered; the agent restarted and went on`);
      return p.options[index];
    }
    if (outcome === 'lost') {
      throw new UserError(
        `typed ${keyName} for "${p.options[index]}"; ${w.session.spec.name} restarted after ` +
          `reading it, but its new process showed neither its input nor another prompt within ` +
          `${restartWaitMs / 1000} s; look at the pane`,
        ANSWER_UNCONFIRMED_EXIT,
      );
    }
    if (outcome === 'same' && retry) {
      w.session.log(`answer: ${keyName} left the prompt on screen; typing it once more`);
      continue;
    }
    throw new UserError(
      `typed ${keyName} for "${p.options[index]}", but the prompt is still showing` +
        (outcome === 'moved' ? ' (its selection moved)' : '') +
        (restarted
          ? ` (${w.session.spec.name} restarted after reading it and showed it again)`
          : '') +
        (attempt > 1 ? ', also after a second try' : '') +
        // a slow agent may still take the key (tester9: Qwen at load 40 did, after this said
        // so): telling the person to answer again could answer the next prompt
        '; look at its pane before answering again (a slow agent may still take it)',
      ANSWER_UNCONFIRMED_EXIT,
    );
  }
}

/**
 * Watches `w` after an answer's key for up to {@link ANSWER_RESULT_MS}: `gone` once two fresh
 * classifications {@link KEY_GAP_MS} apart show it not blocked or blocked on another prompt
 * (so the state published is no longer blocked on this one); also `gone` at the bound when
 * the screen shows no prompt while a signal still says blocked; else `moved` when the prompt
 * is still there but its selection left `selected` at some point, else `same`. Each look is
 * made on a whole frame ({@link judgeWhole}). `retry` is true when typing the key again is
 * safe: `mayRetry` (the caller's part: the first key, typed soon after the dialog changed),
 * `same`, nothing else was written to the pane, the agent wrote output at least
 * {@link ALIVE_AFTER_MS} after the key, and no process that held the dialog has ended. When the
 * key is not to be typed again, the watch goes on to {@link ANSWER_SLOW_MS} from the key before
 * `same` or `moved` is said.
 *
 * An agent that restarts itself after reading the key (`holders`, the processes of its
 * foreground group that ran when the dialog showed: one ended after the key was read, its
 * input queue empty, and a process with the same arguments runs in its place, see
 * {@link GroupWatch}) leaves the dialog it drew on the screen until the new process draws
 * over it: Gemini CLI 0.61.0 after `1. Trust folder` draws `Gemini CLI is restarting to apply
 * the trust changes...` under its dialog, exits with code 199 250 ms later, and its launcher
 * starts it again, which draws its composer seconds later (3.5 s on an idle 2-core machine;
 * before, `answer` gave up at the bound with the dialog still on screen, or typed the key a
 * second time into the new process's input). From then on the watch lasts up to
 * `restartWaitMs` more and only the new process's screen counts: `restarted` once it
 * shows the agent ready (idle) or another prompt, on two looks in a row, with output since the
 * new process was seen (idle as one of its manifest's rules reads it: a blank screen, which no
 * rule matches, reads idle too); the same prompt (its text, whatever its episode) drawn again
 * is never `gone` but `same` (or `moved`), at once when the new process had drawn a screen
 * without it before; a screen that shows neither by the bound is `lost`.
 */
async function awaitAnswer(
  w: PtyPane,
  same: (p: Omit<ConfirmedPrompt, 'episode'>) => boolean,
  sameText: (p: Omit<ConfirmedPrompt, 'episode'>) => boolean,
  selected: number,
  holders: GroupWatch | null,
  restartWaitMs: number,
  mayRetry: boolean,
): Promise<{ outcome: Outcome; retry: boolean; restarted: boolean }> {
  const typedAt = Date.now();
  let otherInput = 0;
  let lastOutput = 0;
  let outputSince = 0;
  const offInput = w.session.onInput((d) => (otherInput += d.length));
  const offOutput = w.session.onOutput(() => {
    lastOutput = Date.now();
    outputSince++;
  });
  let moved = false;
  let goneSeen = 0;
  let last: Outcome | 'left' | 'wait' = 'same';
  /** The key was seen read (the agent's input queue empty). */
  let read = false;
  /** When the new process of a restart was seen, ms since the epoch (0: none). */
  let restartedAt = 0;
  /** Since the restart, a look found the screen drawn anew without the prompt. */
  let cleared = false;
  let bound = typedAt + ANSWER_RESULT_MS;
  /** The watch went on past ANSWER_RESULT_MS for an agent silent since the key. */
  let slow = false;
  /** Typing the key again is safe now (see the docstring). */
  const retryable = () =>
    mayRetry && !moved && !slow && otherInput === 0 &&
    lastOutput >= typedAt + ALIVE_AFTER_MS && !holders?.gone().length;
  try {
    for (;;) {
      if (Date.now() >= bound) {
        // no second key: the agent may have taken this one and be slow to act on it
        if (restartedAt || slow || retryable()) break;
        slow = true;
        bound = typedAt + ANSWER_SLOW_MS;
      }
      await sleep(KEY_GAP_MS);
      if (w.session.exit) return { outcome: 'gone', retry: false, restarted: !!restartedAt };
      read ||= w.session.inputUnread() === 0;
      if (!restartedAt && read && holders) {
        const next = holders.restarted();
        if (next) {
          restartedAt = Date.now();
          bound = restartedAt + restartWaitMs;
          outputSince = 0;
          goneSeen = 0;
          w.session.log(
            `answer: the agent restarted after reading the key (pid ${
              holders.gone().map((g) => g.pid).join(', ')
            } ended; pid ${next.pid} runs the same command); watching the new one's screen`,
          );
        }
      }
      last = await judgeWhole(w, (): Outcome | 'left' | 'wait' => {
        if (restartedAt) {
          // only what the new process drew counts: ready for input, or another prompt
          if (outputSince === 0) return 'wait';
          // idle as a rule reads it, not for want of any (a blank screen reads so)
          if (w.record.state === 'idle') {
            return w.record.evaluation?.rule == null ? 'wait' : 'restarted';
          }
          if (w.record.state !== 'blocked') return 'wait';
          const now = promptOn(w.session.terminal, dialogShown(w.record));
          if (sameText(now)) return now.selected === selected ? 'same' : 'moved';
          return now.options.length ? 'restarted' : 'wait';
        }
        if (w.record.state !== 'blocked') return 'gone';
        const now = promptOn(w.session.terminal, dialogShown(w.record));
        if (same(now)) return now.selected === selected ? 'same' : 'moved';
        // another prompt drawn: gone; none readable while a signal still says blocked (a
        // hook's report the screen has not yet outvoted): the prompt left, the state lags
        return now.options.length ? 'gone' : 'left';
      });
      if (last === 'moved') moved = true;
      if (restartedAt && last === 'wait' && outputSince > 0) cleared = true;
      // the new process drew over the old dialog, then drew the same prompt: asked again
      if (cleared && (last === 'same' || last === 'moved')) break;
      goneSeen = last === 'gone' || last === 'restarted' ? goneSeen + 1 : 0;
      if (goneSeen >= 2) {
        return { outcome: last as Outcome, retry: false, restarted: !!restartedAt };
      }
    }
  } finally {
    offInput();
    offOutput();
  }
  if (restartedAt) {
    const outcome = last === 'same' || last === 'moved' ? last : 'lost';
    return { outcome, retry: false, restarted: true };
  }
  if (goneSeen > 0 || last === 'left') return { outcome: 'gone', retry: false, restarted: false };
  return {
    restarted: false,
    outcome: moved ? 'moved' : 'same',
    retry: retryable(),
  };
}
