/**
 * Answering a blocked session's prompt, as the person does it on the board and with
 * `agentwatch answer`: read the prompt (waiting a moment for its options to be drawn), show it,
 * and send the answer with the prompt exactly as shown, and its episode, as `expect` (the
 * session classifies afresh right before writing and refuses when the prompt is not that one
 * any more, also when the same prompt was answered elsewhere and asked again).
 *
 * {@link AnswerFlow} is the board's panel as a state machine: `a` (or a digit) on a blocked
 * session opens it (`reading`, then `choosing`); ↑/↓ (k/j) or a digit change the choice; `y`
 * sends (`sending`), unless the prompt read again then shows other details or options with
 * the same question (then the panel shows it again, nothing typed, and waits for another `y`);
 * n, Esc, Enter, q or Ctrl-C cancel.
 * The result goes to the status line: answered (the session saw the prompt leave its screen),
 * refused (nothing typed), or typed but not taken (the prompt stayed), with the reason.
 */
import {
  answerPrompt,
  endedText,
  type PromptReply,
  readPrompt,
  requestOp,
} from '../../runtime/control-client.ts';
import { lastLines } from '../../runtime/ended-sessions.ts';
import type { SessionInfo } from '../../runtime/protocol.ts';
import { ANSWER_UNCONFIRMED_EXIT, GUARD_EXIT } from '../../runtime/typing-guard.ts';
import type { AnswerPanel } from './answer-panel.ts';

/** How long answering waits for a blocked session's options to be drawn, ms. */
export const OPTIONS_WAIT_MS = 3000;
/** How often the prompt is read again meanwhile, ms. */
const OPTIONS_POLL_MS = 100;

/**
 * The prompt of the blocked session at `socket`. An agent can say it is blocked (a hook,
 * OSC 7501) a moment before its dialog is drawn, so while the session shows no options yet,
 * this asks again for up to `waitMs`.
 * @throws UserError as {@link readPrompt} does.
 */
export async function readAnswerablePrompt(
  socket: string,
  waitMs = OPTIONS_WAIT_MS,
): Promise<PromptReply> {
  const until = Date.now() + waitMs;
  for (;;) {
    const p = await readPrompt(socket);
    if (p.options.length || Date.now() > until) return p;
    await new Promise((r) => setTimeout(r, OPTIONS_POLL_MS));
  }
}

/**
 * Panes smaller than this, in cells, may be too small for an agent's approval dialog: in 8x30
 * Qwen Code 0.24.4 draws only its spinner line (`Waiting for user confirmation...`), and
 * neither Enter nor Esc answers it there (fixtures/qwen-code-narrow/README.md). Made larger,
 * it draws the dialog again only once the dialog fits below what it reprints above it: at
 * 24x80 it did not, at 24x120, 40x80 and {@link DIALOG_SURE} it did (real Qwen Code 0.24.4,
 * test/answer-narrow.test.ts).
 */
export const DIALOG_MIN = { rows: 24, cols: 80 } as const;
/** A size at which every dialog of the agents here showed its options. */
export const DIALOG_SURE = { rows: 32, cols: 120 } as const;

/**
 * Why a blocked session whose screen shows no options cannot be answered from here, and what
 * the person can do: in a pane smaller than {@link DIALOG_MIN} the dialog may not fit (make
 * the pane larger, {@link DIALOG_SURE} is enough: the agent draws it again); otherwise, answer
 * in its pane. `lastLine`: the last line(s) its screen shows, quoted when given. Says that nothing
 * was typed.
 */
export function noOptionsMessage(
  info: { name: string; rows: number; cols: number },
  lastLine?: string,
): string {
  const shows = lastLine ? ` (its screen ends with "${lastLine}")` : '';
  const small = info.rows > 0 && info.cols > 0 &&
    (info.rows < DIALOG_MIN.rows || info.cols < DIALOG_MIN.cols);
  if (!small) {
    return `${info.name} is blocked but its screen shows no numbered options${shows}; ` +
      'nothing was typed: answer in its pane';
  }
  return `${info.name} is blocked, but its pane (${info.cols}x${info.rows}) is too small to ` +
    `show the dialog's options${shows}; nothing was typed: make the pane larger ` +
    `(${DIALOG_SURE.rows} rows x ${DIALOG_SURE.cols} columns is enough; the agent draws its ` +
    'dialog again), then answer';
}

/**
 * {@link noOptionsMessage} for the session at `socket`, with the last lines its screen shows
 * now and its size now (read from its screen; the info's when that fails).
 */
export async function whyNoOptions(
  info: { name: string; rows: number; cols: number; socket: string },
): Promise<string> {
  try {
    const screen = await requestOp(info.socket, 'screen', {});
    // Two lines: a narrow pane wraps the last one ('⠏ Waiting for user confirmat' / 'i…').
    const last = lastLines(String(screen.text), 2).map((l) => l.trim()).join(' / ');
    return noOptionsMessage({ name: info.name, rows: screen.rows, cols: screen.cols }, last);
  } catch {
    return noOptionsMessage(info);
  }
}

/**
 * How `now`, the prompt read again right after the person confirmed, compares with `shown`,
 * the one they confirmed: `same` (text and episode: answer it); `details` (the same question
 * and options with other details: the pane was resized and shows more or less of what it
 * approves, or it asks about another command; show it and ask again, nothing typed);
 * `options` (the same question with other options: a resized pane shows more or fewer of
 * them, as Claude Code 2.1.332's Bash dialog does, "1. Yes" alone with "↑ 5 more lines" in
 * 30x8 and four options in 120x32; show it and ask again, nothing typed); `other` (another
 * question, or the same prompt asked again after it was answered: the session's guard refuses
 * it, saying which).
 */
export function compareShown(
  shown: { question?: string; options?: string[]; details?: string[]; episode?: number },
  now: PromptReply,
): 'same' | 'details' | 'options' | 'other' {
  const join = (a: readonly string[] | undefined) => (a ?? []).join('\n');
  if ((shown.question ?? '') !== now.question) return 'other';
  if (join(shown.options) !== join(now.options)) return 'options';
  if (join(shown.details) !== join(now.details)) return 'details';
  return shown.episode === now.episode ? 'same' : 'other';
}

/** The first line of an error's message (refusals list the prompt on further lines). */
export function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0];
}

/** What an {@link AnswerFlow} asks of the board that holds it. */
export interface AnswerFlowHost {
  /** The session's latest info, as the board has it (undefined when it is gone). */
  latest(id: string): SessionInfo | undefined;
  /**
   * The panel closed: `message` goes to the status line. `byItself`: not by the person's key
   * nor their answer (its prompt answered elsewhere, its session gone), so keys they typed
   * for it may be on their way.
   */
  closed(message: string, byItself?: boolean): void;
  /** Something the panel shows changed: draw a frame. */
  render(): void;
}

/**
 * The answer panel's state: what is drawn, plus the session's control socket and the episode
 * of the prompt read (the session answers only that one: not the same prompt asked again).
 */
type OpenPanel = AnswerPanel & { socket: string; episode?: number };

/** The board's answer panel; see the file comment. */
export class AnswerFlow {
  #panel: OpenPanel | null = null;

  constructor(readonly host: AnswerFlowHost) {}

  /** The open panel, to draw; null when none is. */
  get panel(): AnswerPanel | null {
    return this.#panel;
  }

  /**
   * The `a` (or digit) key on `info`: on a blocked session, opens the panel and reads the
   * prompt (`choice`, 0-based, preselects an option; else the one the dialog marks) and
   * returns undefined; otherwise returns what to say instead.
   */
  open(info: SessionInfo | undefined, choice?: number): string | undefined {
    if (!info) return 'no session to answer';
    if (info.state !== 'blocked') {
      return `${info.name} is not waiting for an answer (it is ${info.state})`;
    }
    const panel: OpenPanel = {
      id: info.id,
      name: info.name,
      socket: info.socket,
      phase: 'reading',
      choice: choice ?? 0,
    };
    this.#panel = panel;
    const close = (message: string) => {
      this.#close(panel, message);
      this.host.render();
    };
    readAnswerablePrompt(info.socket).then((p) => {
      if (this.#panel !== panel) return; // cancelled meanwhile
      if (!p.options.length) {
        void whyNoOptions(info).then((why) => {
          if (this.#panel === panel) close(why);
        });
        return;
      }
      if (choice !== undefined && choice >= p.options.length) {
        close(`${info.name}'s prompt has no option ${choice + 1}: ${p.options.join(' | ')}`);
        return;
      }
      panel.question = p.question;
      panel.options = p.options;
      panel.details = p.details;
      panel.detailsCut = p.detailsCut === true;
      panel.episode = p.episode;
      panel.choice = choice ?? Math.max(0, p.selected);
      panel.phase = 'choosing';
      this.host.render();
    }, (e) => {
      if (this.#panel === panel) close(firstLine(e));
    });
    return undefined;
  }

  /** Closes the panel when it is open on session `id`, with `message`. */
  closeOn(id: string, message: string): void {
    if (this.#panel?.id === id) this.#close(this.#panel, message, true);
  }

  /**
   * Closes `panel` if it is still the open one, with `message` on the status line; `byItself`
   * see {@link AnswerFlowHost.closed}.
   */
  #close(panel: OpenPanel, message: string, byItself = false): void {
    if (this.#panel !== panel) return;
    this.#panel = null;
    this.host.closed(message, byItself);
  }

  /**
   * A key while the panel is open. While the prompt is read only cancelling works (a `y`
   * typed before the panel showed the prompt confirms nothing); while the answer is on its
   * way, nothing does.
   */
  key(key: string): void {
    const panel = this.#panel;
    if (!panel || panel.phase === 'sending') return;
    if (['n', 'N', '\x1b', '\r', '\n', 'q', '\x03'].includes(key)) {
      this.#close(panel, `${panel.name}: not answered`);
      this.host.render();
      return;
    }
    if (panel.phase !== 'choosing' || !panel.options) return;
    const last = panel.options.length - 1;
    if (key === '\x1b[A' || key === '\x1bOA' || key === 'k') {
      panel.choice = Math.max(0, panel.choice - 1);
    } else if (key === '\x1b[B' || key === '\x1bOB' || key === 'j') {
      panel.choice = Math.min(last, panel.choice + 1);
    } else if (/^[1-9]$/.test(key) && Number(key) - 1 <= last) {
      panel.choice = Number(key) - 1;
    } else if (key === 'y' || key === 'Y') {
      void this.#confirmed(panel);
    } else return;
    this.host.render();
  }

  /**
   * Follows the sessions' latest infos while a panel waits for y/n: when its session no longer
   * shows a prompt (answered in its pane or by another `answer`, or ended), the panel closes
   * with a status saying so (a `y` could only be refused).
   */
  follow(infos: readonly SessionInfo[]): void {
    const panel = this.#panel;
    if (!panel || panel.phase !== 'choosing') return;
    const info = infos.find((i) => i.id === panel.id);
    if (!info) this.#close(panel, `${panel.name} is gone; nothing typed`, true);
    else if (info.state === 'exited') {
      this.#close(panel, `${panel.name} has exited; nothing typed`, true);
    } else if (info.state !== 'blocked') {
      this.#close(
        panel,
        `${panel.name}: answered elsewhere (${info.state} now); nothing typed`,
        true,
      );
    }
  }

  /**
   * `y`: reads the prompt once more and answers it when it is still the one the panel shows.
   * When it shows other details or options with the same question (its pane was made taller
   * and shows more of what it approves, or it asks about another command), the panel shows
   * them and waits for another `y` (the same option number; closed, nothing typed, when the
   * prompt no longer shows that many): the person confirms what they saw. Anything else is
   * sent as shown, and the session's guard refuses it, saying why.
   */
  async #confirmed(panel: OpenPanel): Promise<void> {
    panel.phase = 'sending';
    let now: PromptReply;
    try {
      now = await readPrompt(panel.socket);
    } catch (e) {
      this.#close(panel, `${panel.name}: not answered: ${firstLine(e)}; nothing typed`);
      this.host.render();
      return;
    }
    if (this.#panel !== panel) return;
    const compared = compareShown(panel, now);
    if (compared === 'options' && panel.choice >= now.options.length) {
      this.#close(
        panel,
        `${panel.name}: not answered: its prompt now shows ${now.options.length} option(s) ` +
          `(its pane was resized), not option ${panel.choice + 1}; nothing typed`,
      );
      this.host.render();
      return;
    }
    if (compared === 'details' || compared === 'options') {
      panel.options = now.options;
      panel.details = now.details;
      panel.detailsCut = now.detailsCut === true;
      panel.episode = now.episode;
      panel.note = compared === 'options'
        ? 'its prompt now shows other options (its pane was resized); nothing typed: read ' +
          'them, then y'
        : 'its prompt now shows other details (its pane was resized, or it asks about ' +
          'another command); nothing typed: read them, then y';
      panel.phase = 'choosing';
      this.host.render();
      return;
    }
    await this.#send(panel);
  }

  /** Sends the answer for the panel's choice, with the prompt as the panel shows it. */
  async #send(panel: OpenPanel): Promise<void> {
    const options = panel.options ?? [];
    let message: string;
    try {
      const { answered, ended } = await answerPrompt(panel.socket, panel.choice + 1, {
        question: panel.question ?? '',
        options,
        details: panel.details,
        episode: panel.episode ?? 0,
      });
      message = `answered ${panel.name}: '${answered}'` +
        (ended ? `; ${panel.name} then ended (${endedText(ended)})` : '');
    } catch (e) {
      // Exit code 3: the guard refused (not blocked, or not the prompt confirmed), nothing
      // typed; 5: the answer was typed but the prompt stayed on screen.
      const code = (e as { exitCode?: number }).exitCode;
      const what = code === GUARD_EXIT
        ? 'refused'
        : code === ANSWER_UNCONFIRMED_EXIT
        ? 'answer not taken'
        : 'not answered';
      // The reason may say 'refused: ...' itself: said once
      message = `${panel.name}: ${what}: ${firstLine(e).replace(/^refused: /, '')}`;
    }
    this.#close(panel, message);
    this.host.render();
  }
}
