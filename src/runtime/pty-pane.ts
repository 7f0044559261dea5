/**
 * A PTY session as a {@link Pane}: the {@link Session} (the agent in our PTY, its screen) and
 * its classification ({@link ScreenPane}: state record, agent match, foreground). What it
 * publishes changes only when a subscriber would see a difference (state, agent, reason,
 * activity, the blocked prompt); typing into it goes through the typing guard.
 */
import { isTerminalReport } from './terminal-report.ts';
import type { Socket } from 'node:net';
import { explain, formatExplain } from '../detect/explain.ts';
import { UserError } from '../errors.ts';
import { reportFromHook } from './integrations/claude-code.ts';
import {
  type ConfirmedPrompt,
  type ExplainReply,
  KILL_GRACE_MS,
  type PromptReply,
  type Replies,
  type RequestArgs,
  type ScreenReply,
  type SessionInfo,
  validSize,
} from './protocol.ts';
import type { Pane } from './pane.ts';
import type { Prompt } from '../detect/prompt.ts';
import { ScreenPane, type ScreenPaneOptions } from './screen-pane.ts';
import type { ExitInfo, Session } from './session.ts';
import { laterReport, type Report, type StateRecord } from './signals.ts';
import {
  choiceIndex,
  currentPrompt,
  dialogShown,
  guardedAnswer,
  guardedSend,
  promptOn,
} from './typing-guard.ts';

/**
 * How long a `blocked` whose dialog cannot be read yet (no options on the screen: a hook, OSC
 * 7501 or a window title said blocked before the agent drew its dialog) is held back from
 * subscribers and the notifier, waiting for the dialog, ms. It is published as soon as the
 * dialog is read, and with what is known once this bound passes. Claude Code 2.1.332 draws its
 * permission dialog about 0.2 s after its PermissionRequest hook fires; Qwen Code 0.24.4 sets
 * its `✳` title about 0.1 s before its dialog shows (fixtures/claude-code/README.md "Hooks",
 * README "watch --json"). Those are an idle machine's figures: at a load of 10 on 2 cores Qwen
 * Code 0.24.4 drew its dialog 0.45 s after its title, half of it first (one frame read in two
 * pieces), and a bound of 0.3 s published 2 of 4 first blocked lines without the question
 * (Claude Code 2.1.332: 2 of 40). The bound only matters for a blocked that never shows a
 * readable dialog; each one that does is published as soon as it is read.
 */
export const PROMPT_WAIT_MS = 2000;
/**
 * While such a blocked is held, the pane looks again this long after the agent's output went
 * quiet (a dialog drawn in several writes is read once whole), at most once per output burst, ms.
 */
export const PROMPT_LOOK_MS = 50;

/** A blocked waiting for its dialog: since when (ms), its timers, its output listener's removal. */
interface Hold {
  since: number;
  /** True once its bound timer fired. */
  over: boolean;
  bound: ReturnType<typeof setTimeout>;
  look?: ReturnType<typeof setTimeout>;
  offOutput: () => void;
}

/** How a PTY pane is set up. */
export interface PtyPaneOptions extends ScreenPaneOptions<Session> {
  /** How long a blocked waits for its dialog before it is published without it, ms (default {@link PROMPT_WAIT_MS}). */
  promptWaitMs?: number;
  /** Where the manifest in force for an id came from ('your folder', 'catalog', ...). */
  sourceOf?: (id: string) => string | null;
}

/** A PTY session served as a pane. */
export class PtyPane extends ScreenPane<Session> implements Pane {
  readonly #changeListeners = new Set<(prev: StateRecord) => void>();
  /** What was last published (see {@link Published}), to tell of a change only. */
  #published?: Published;
  /** Terminals attached now. */
  #attached = 0;
  /** The size before the first terminal attached, restored when the last one leaves. */
  #sizeBeforeAttach?: { rows: number; cols: number };
  /** When an evaluation first saw the prompt now published, ms since the epoch. */
  #promptSince = 0;
  /** The episode of the prompt now published (see {@link promptEpisode}). */
  #promptEpisode = 0;
  /** The prompt read off the screen at terminal version {@link #promptVersion}. */
  #promptRead?: Prompt;
  #promptVersion = -1;
  /** The `dialog` flag {@link promptOn} read {@link #promptRead} with. */
  #promptDialog = false;
  /** The prompt the screen showed at the last evaluation (raw, see {@link promptText}). */
  #shownPrompt = '';
  /**
   * The last prompt with options read in the current blocked spell: what the spell publishes
   * while its dialog cannot be read (drawn over, or erased after the answer while the agent's
   * own signal still says blocked).
   */
  #spellPrompt?: Prompt;
  /** The record whose state the listeners were last told of. */
  #publishedRecord: StateRecord;
  /** While a blocked waits for its dialog ({@link PROMPT_WAIT_MS}): since when, ms; its timers. */
  #hold?: Hold;

  constructor(session: Session, readonly options: PtyPaneOptions) {
    super(session, options);
    this.#publishedRecord = this.record;
    this.onClassified(() => this.#classified());
    // Keys that reach the agent while it shows a prompt, other than the typing guard's own
    // (the person's in the pane, an attached board's), may have answered it: what follows is a
    // new episode, so a confirmation made before does not carry over to the dialog drawn next,
    // even one with the same text (tester7: `1` in Gemini's pane and `y` on the board at
    // once answered both dialogs of a two-command turn, the second never shown). A chunk of
    // the person's terminal's own reports is no key (focus out as they switch to the window
    // they answer from: Gemini CLI 0.61.0 turns focus reporting on).
    session.onInput((data) => {
      if (!this.guardWriting && this.#shownPrompt && !isTerminalReport(data)) this.#foreignKeys++;
    });
  }

  /** True while the typing guard writes its own bytes (they start no new episode). */
  guardWriting = false;

  get name(): string {
    return this.session.spec.name;
  }

  get socket(): string {
    return this.session.spec.socket;
  }

  get pid(): number {
    return this.session.pid;
  }

  get exit(): ExitInfo | null {
    return this.session.exit;
  }

  /**
   * When an evaluation first saw the blocked prompt it shows now (its question, options and
   * details; the selection aside), ms since the epoch; for the typing guard, which lets a new
   * dialog settle before answering it. Later than the agent drew it by up to one sweep.
   */
  get promptSince(): number {
    return this.#promptSince;
  }

  /**
   * The episode of the blocked prompt shown now: a number bumped each time an evaluation sees a
   * prompt appear after the pane was not blocked, or the prompt change (its question, options
   * or details; the selection aside), at the moment {@link promptSince} is set, each time
   * keys other than the typing guard's reach the agent while a prompt shows, and each time an
   * answer ends. `answer` types
   * only into the episode the person confirmed, so a confirmation never carries over to the same
   * prompt asked again after it was answered elsewhere.
   */
  get promptEpisode(): number {
    // all three only grow: any of them changes the sum
    return this.#promptEpisode + this.#foreignKeys + this.#answers;
  }

  /**
   * The screen's part of {@link promptEpisode}: bumped only when an evaluation sees a prompt
   * appear or change, not by keys; whether a prompt an answer's key was typed into is still
   * the one on screen.
   */
  get screenEpisode(): number {
    return this.#promptEpisode;
  }

  /** Keys other than the typing guard's that reached the agent while a prompt showed. */
  #foreignKeys = 0;
  /** Answers that ended (typed or refused): each spends the episode it was confirmed for. */
  #answers = 0;

  /**
   * The keys' part of {@link promptEpisode}: how many times input other than the typing
   * guard's own, and other than a terminal's reports ({@link isTerminalReport}), reached the
   * agent while a prompt showed (only grows).
   */
  get foreignKeys(): number {
    return this.#foreignKeys;
  }

  /** The last evaluation found the pane blocked. */
  #evaluatedBlocked = false;
  #unblocks = 0;

  /**
   * How many times an evaluation found the pane not blocked right after one that found it
   * blocked (only grows): a prompt that stayed unchanged across it did not stay on screen.
   */
  get unblocks(): number {
    return this.#unblocks;
  }

  onChange(listener: (prev: StateRecord) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /**
   * After an evaluation: tells the listeners when the state changed, or when the info changed
   * without a state change (its agent became known, the reason changed, a blocked prompt
   * appeared or changed after a report said blocked), so subscribers see it. Compared field
   * by field: an evaluation that changes nothing builds no info.
   *
   * A blocked spell is published with its dialog: one that begins before its dialog can be
   * read waits for it up to {@link PROMPT_WAIT_MS} (looking again as the agent draws), and
   * one whose dialog goes (erased after the answer while the agent still says blocked) keeps
   * the prompt it showed. A blocked that ends within the wait without any dialog is not
   * published: the agent drew nothing anyone could answer.
   */
  #classified(): void {
    const blocked = this.record.state === 'blocked';
    const raw = blocked ? this.#prompt() : undefined;
    // The typing guard's episodes follow the screen itself, never the prompt kept for the
    // spell: the same dialog asked again after its answer is a new episode.
    const shown = raw ? promptText(raw) : '';
    if (shown !== this.#shownPrompt) {
      this.#shownPrompt = shown;
      this.#promptSince = Date.now();
      if (shown) this.#promptEpisode++;
    }
    if (!blocked && this.#evaluatedBlocked) this.#unblocks++;
    this.#evaluatedBlocked = blocked;
    if (!blocked) this.#spellPrompt = undefined;
    else if (raw!.options.length) this.#spellPrompt = raw;
    const last = this.#publishedRecord;
    if (blocked && !this.#spellPrompt && last.state !== 'blocked' && !this.#waited()) return;
    this.#release();
    const next = published(this, () => this.#publishedPrompt());
    const transition = this.record.state !== last.state;
    if (!transition && this.#published && samePublished(this.#published, next)) return;
    this.#published = next;
    this.#publishedRecord = this.record;
    for (const l of this.#changeListeners) {
      try {
        l(last);
      } catch {
        // a listener's failure never disturbs the sweep
      }
    }
  }

  /**
   * A blocked whose dialog cannot be read yet: starts waiting for it (a look soon after each
   * output, and one when the wait is over); true once the wait is over (publish it as it is).
   */
  #waited(): boolean {
    const now = Date.now();
    const wait = this.options.promptWaitMs ?? PROMPT_WAIT_MS;
    if (this.#hold) return this.#hold.over || now - this.#hold.since >= wait;
    const hold: Hold = {
      since: now,
      over: false,
      bound: setTimeout(() => {
        hold.over = true;
        this.#look();
      }, wait),
      offOutput: this.session.onOutput(() => {
        if (hold.look) clearTimeout(hold.look);
        hold.look = setTimeout(() => this.#look(), PROMPT_LOOK_MS);
        hold.look.unref?.();
      }),
    };
    hold.bound.unref?.();
    this.#hold = hold;
    return false;
  }

  /** A look while a blocked waits for its dialog. */
  #look(): void {
    if (!this.#hold) return;
    try {
      this.classifyNow();
    } catch {
      // a failed look is retried by the sweep
    }
  }

  /** Ends the wait for a dialog, if any. */
  #release(): void {
    const hold = this.#hold;
    if (!hold) return;
    this.#hold = undefined;
    clearTimeout(hold.bound);
    if (hold.look) clearTimeout(hold.look);
    hold.offOutput();
  }

  /** The prompt a blocked info carries: the screen's, or the spell's last readable one. */
  #publishedPrompt(): Prompt {
    const p = this.#prompt();
    return p.options.length ? p : this.#spellPrompt ?? p;
  }

  info(): SessionInfo {
    const s = this.session;
    const info: SessionInfo = {
      id: s.id,
      name: s.spec.name,
      agent: this.manifest?.id ?? '',
      state: this.record.state,
      since: this.record.since,
      reason: this.record.reason,
      by: this.record.by,
      pid: s.pid,
      command: [s.spec.command, ...s.spec.args],
      foreground: this.foreground.name,
      rows: s.terminal.rows,
      cols: s.terminal.cols,
      startedAt: s.startedAt,
      lastOutput: s.lastOutput,
      exit: s.exit,
      host: process.pid,
      socket: s.spec.socket,
    };
    if (s.tty) info.tty = s.tty;
    if (s.resizedAt) info.resizedAt = s.resizedAt;
    if (this.record.state === 'idle' && !this.record.worked) info.fresh = true;
    const activity = this.record.state === 'working' ? this.record.evaluation?.activity : undefined;
    if (activity) info.activity = activity;
    if (this.record.state === 'blocked') {
      const p = this.#publishedPrompt();
      if (p.question) info.question = p.question;
      if (p.options.length) info.options = p.options;
      if (p.details.length) info.details = p.details;
    }
    return info;
  }

  /**
   * The prompt on the screen ({@link promptOn}), read once per screen version: an evaluation
   * that publishes reads it for its comparison and for the info.
   */
  #prompt(): Prompt {
    const version = this.session.terminal.version;
    const dialog = dialogShown(this.record);
    if (this.#promptVersion !== version || !this.#promptRead || this.#promptDialog !== dialog) {
      this.#promptRead = promptOn(this.session.terminal, dialog);
      this.#promptVersion = version;
      this.#promptDialog = dialog;
    }
    return this.#promptRead;
  }

  screen(): ScreenReply {
    const t = this.session.terminal;
    return { text: t.screenText(), title: t.title, rows: t.rows, cols: t.cols, cursor: t.cursor };
  }

  events(): string[] {
    return this.session.events();
  }

  log(line: string): void {
    this.session.log(line);
  }

  explain(): ExplainReply {
    this.classifyNow(); // afresh, like the typing guard
    const s = this.session;
    const m = this.manifest;
    const snapshot = s.terminal.snapshot();
    return {
      session: this.info(),
      decidedBy: this.record.by,
      reason: this.record.reason,
      report: s.report,
      foreground: this.foreground,
      manifest: m
        ? `${m.id} ${m.version} (${this.options.sourceOf?.(m.id) ?? 'source'}: ${m.source})`
        : null,
      screen: s.terminal.screenText(),
      title: snapshot.title,
      rules: m ? formatExplain(explain(snapshot, m)) : 'no manifest applies\n',
      events: s.events(),
    };
  }

  async prompt(): Promise<PromptReply> {
    const p = await currentPrompt(this);
    return { ...p, episode: this.promptEpisode };
  }

  send(text: string, opts: { enter: boolean; append: boolean }): Promise<number> {
    return this.#oneAtATime(() => guardedSend(this, text, opts.enter, opts.append));
  }

  /**
   * Answers the prompt the person confirmed (see {@link guardedAnswer}), after any answer or
   * send to this pane under way has ended; once it ended, typed or refused, the episode it was
   * confirmed for is spent ({@link promptEpisode} changes): a second answer confirmed on the
   * same reading, from another terminal or the board at the same moment, is refused with
   * nothing typed. Before, both passed their checks while the agent had read the first key but
   * not yet redrawn, and both keys were typed: the second one into whatever it drew next.
   */
  answer(choice: string, expect: ConfirmedPrompt): Promise<string> {
    return this.#oneAtATime(async () => {
      try {
        return await guardedAnswer(this, choiceIndex(choice, expect.options), expect);
      } finally {
        this.#answers++;
      }
    });
  }

  /** The end of the last guarded write (send or answer) queued on this pane. */
  #typing: Promise<unknown> = Promise.resolve();

  /** Runs `write` once every guarded write queued before it has ended, whatever their outcome. */
  #oneAtATime<T>(write: () => Promise<T>): Promise<T> {
    const run = this.#typing.then(write, write);
    this.#typing = run.catch(() => {});
    return run;
  }

  cancel(): number {
    throw new UserError(
      `cancel: ${this.name} is a terminal session, not an ACP one; press Esc in its pane`,
    );
  }

  report(args: RequestArgs['report']): void {
    const state = args.state === 'done' ? 'idle' : args.state;
    if (state !== 'working' && state !== 'blocked' && state !== 'idle') {
      throw new UserError(`report: unknown state '${args.state}' (working, blocked, idle, done)`);
    }
    const said = `report ${state} (${args.detail ?? ''})`;
    const kept = this.#keepReport(said, {
      state,
      at: firedAt(args.firedAt),
      source: args.detail || `report ${args.state}`,
    });
    if (!kept) return;
    // Our PreToolUse hook reported: the agent decides (or has decided) whether to ask
    // permission for the tool. Counted from the report's arrival, the later of the two moments.
    this.toolPendingAt = /^hook PreToolUse\b/.test(args.detail ?? '') ? Date.now() : undefined;
    this.session.log(said);
    this.classifyNow(); // a report is news: no need to wait for the next sweep
  }

  /**
   * Keeps `report` as the session's report when its hook fired after the one kept
   * ({@link laterReport}); else logs `said` as stale and keeps the one it has.
   * @returns whether `report` was kept.
   */
  #keepReport(said: string, report: Report): boolean {
    const kept = laterReport(this.session.report, report);
    if (!kept) {
      const before = this.session.report!.at - report.at;
      this.session.log(`${said} ignored: fired ${before} ms before the report kept`);
      return false;
    }
    this.session.setReport(kept);
    return true;
  }

  /**
   * When the agent last reported a tool call it may not yet have decided to ask permission
   * for (its PreToolUse hook: Claude Code 2.1.332 runs the tool or draws its permission dialog
   * once its PreToolUse hooks end, at once for ours, which run in the background), ms since the
   * epoch at arrival, which is after the agent went on; undefined once a report or notice that
   * fired later came. For the typing guard, which does not type until a moment after it.
   */
  toolPendingAt: number | undefined;

  notify(args: RequestArgs['notify']): Replies['notify'] {
    const reading = reportFromHook(
      'Notification',
      typeof args.payload === 'string' ? args.payload : JSON.stringify(args.payload),
    )!;
    if (!reading.ok) {
      this.session.log(reading.error); // malformed: ignored, logged
      return { ignored: reading.error };
    }
    const report = { state: reading.state, at: firedAt(args.firedAt), source: reading.source };
    if (!this.#keepReport(reading.source, report)) {
      return { ignored: 'fired before the report kept' };
    }
    this.toolPendingAt = undefined;
    this.session.log(reading.source);
    this.classifyNow();
    return {};
  }

  resize(rows: number, cols: number): void {
    this.session.resize(rows, cols);
  }

  attached(): boolean {
    return this.#attached > 0;
  }

  attach(socket: Socket, size: RequestArgs['attach'], onInput: () => void): void {
    const session = this.session;
    socket.write(JSON.stringify({ ok: true, op: 'attach' }) + '\n');
    // The attaching terminal's size applies while it is attached; the size before it comes
    // back when the last attached terminal leaves (a `run` session is the person's own
    // terminal's size, and it must not stay at the board's).
    this.#sizeBeforeAttach ??= { rows: session.terminal.rows, cols: session.terminal.cols };
    if (validSize(size.rows, size.cols)) session.resize(size.rows, size.cols!);
    // While a real terminal is attached, it answers the agent's queries (DSR, DA, OSC 10/11):
    // our own replies would reach the agent twice. Headless again once the last one detaches.
    this.#attached++;
    session.headless = false;
    // Redraw what our screen shows, then stream the agent's bytes as they come.
    socket.write(redraw(session));
    const off = session.onOutput((data) => {
      if (!socket.destroyed) socket.write(data);
    });
    const offExit = session.onExit(() => socket.end());
    socket.on('data', (d: Buffer) => {
      onInput();
      session.write(d);
    });
    socket.on('close', () => {
      off();
      offExit();
      if (--this.#attached > 0) return;
      this.#attached = 0;
      session.headless = session.spec.headless;
      const before = this.#sizeBeforeAttach;
      this.#sizeBeforeAttach = undefined;
      if (before && !session.exit) session.resize(before.rows, before.cols);
    });
  }

  /**
   * Ends the session ({@link Session.end}): SIGHUP to the child's process group, SIGKILL after
   * {@link KILL_GRACE_MS}; resolves once the child and every process of its group and of the
   * PTY's foreground group (as last read) have ended, or the bounds passed.
   */
  kill(): Promise<ExitInfo | null> {
    return this.session.end(
      KILL_GRACE_MS,
      () => this.session.hangupGroup(),
      () => [this.foreground.pgid],
    );
  }
}

/**
 * When a hook fired, from what it says (`firedAt`, ms since the epoch), kept within the last
 * 30 s and never after now; now when it says nothing usable.
 */
export function firedAt(said: unknown, now = Date.now()): number {
  return typeof said === 'number' && Number.isFinite(said)
    ? Math.min(now, Math.max(now - 30_000, said))
    : now;
}

/**
 * What a subscriber sees change: state, agent, reason, what a working agent says it does
 * and, when blocked, the prompt.
 */
interface Published {
  state: string;
  agent: string;
  reason: string;
  by: string;
  /** What a working agent says it does (SessionInfo.activity), '' when nothing. */
  activity: string;
  /** The prompt's question, options and details, joined; '' unless blocked. */
  prompt: string;
}

/**
 * The {@link Published} fields of `pane` now; `promptNow` reads the prompt on its screen, only
 * when it is blocked.
 */
function published(pane: PtyPane, promptNow: () => Prompt): Published {
  const r = pane.record;
  const prompt = r.state === 'blocked' ? promptText(promptNow()) : '';
  return {
    state: r.state,
    agent: pane.manifest?.id ?? '',
    reason: r.reason,
    by: r.by,
    activity: (r.state === 'working' && r.evaluation?.activity) || '',
    prompt,
  };
}

/** A prompt's question, options and details, joined (what tells two prompts apart). */
function promptText(p: Prompt): string {
  return `${p.question}\0${p.options.join('\0')}\0\0${p.details.join('\0')}`;
}

function samePublished(a: Published, b: Published): boolean {
  return a.state === b.state && a.agent === b.agent && a.reason === b.reason && a.by === b.by &&
    a.activity === b.activity && a.prompt === b.prompt;
}

/** Paints `session`'s screen text on a client terminal: clear, each row, cursor back in place. */
export function redraw(session: Session): string {
  const t = session.terminal;
  let out = '\x1b[0m\x1b[H\x1b[2J';
  for (let y = 0; y < t.rows; y++) out += `\x1b[${y + 1};1H${t.rowText(y)}`;
  out += `\x1b[${t.cursor.row + 1};${t.cursor.col + 1}H`;
  return out;
}
