/**
 * A pane whose state is read off a screen: a PTY session (`pty-pane.ts`) or a replayed
 * recording (`src/eval`). It owns its source's classification: the state record, the agent
 * match ({@link matchAgent}), the foreground, and what changed since its last evaluation, so
 * the sweep only decides when to look ({@link ScreenPane.evaluateIfDue}) and the typing guard
 * can look afresh ({@link ScreenPane.classifyNow}).
 */
import type { Manifest } from '../detect/manifest.ts';
import { Evaluator } from '../detect/evaluator.ts';
import { inputBox } from '../detect/evaluate.ts';
import type { ScreenSnapshot } from '../vt/terminal.ts';
import { type AgentMatch, classifyForeground, matchAgent } from './agent-match.ts';
import type { ExitInfo, SessionSpec } from './session.ts';
import {
  decide,
  type Foreground,
  type ForegroundRead,
  initialState,
  type Report,
  STARTING_STILL_MS,
  type StateRecord,
  UNKNOWN_FOREGROUND,
} from './signals.ts';

/**
 * What a screen pane reads of its source: a {@link Session} (a PTY), or a replayed recording
 * (`src/eval`). The pane bumps `inputsVersion` when the foreground or the manifest changes.
 */
export interface SweptSession {
  readonly id: string;
  readonly spec: Pick<SessionSpec, 'agent' | 'command' | 'args'>;
  readonly terminal: {
    readonly version: number;
    snapshot(): ScreenSnapshot;
    /** Inside a synchronized update (DEC mode 2026): part of a frame ({@link Terminal}). */
    readonly synchronizedUpdate?: boolean;
    /** What changed since `markSeen` ({@link Terminal.changedRows} and the others below). */
    readonly changedRows?: Uint8Array;
    readonly changedRowCount?: number;
    readonly titleChanged?: boolean;
    readonly otherOscChanged?: boolean;
    markSeen?(): void;
  };
  inputsVersion: number;
  readonly exit: ExitInfo | null;
  readonly report: Report | null;
  /** When its PTY was last resized, ms since the epoch (0: never). */
  readonly resizedAt?: number;
  /** `terminal.version` right after that resize (the screen not drawn on since while equal). */
  readonly resizedVersion?: number;
  onOutput(listener: (data: Uint8Array) => void): () => void;
  onExit(listener: (exit: ExitInfo) => void): () => void;
}

/** What a screen pane classifies with. */
export interface ScreenPaneOptions<S extends SweptSession> {
  /**
   * Manifests by id. When it returns another Map than before (a manifest was reloaded), the
   * pane's agent is matched again and it is evaluated afresh.
   */
  manifests: () => ReadonlyMap<string, Manifest>;
  /** Reads the source's foreground; null when unknown. */
  foreground: (session: S) => ForegroundRead | null;
  /** How long a report lives unless the screen agrees, ms (default 60 s). */
  reportTtlMs?: number;
  now?: () => number;
}

/**
 * The longest a screen inside a synchronized update (DEC mode 2026) is left unread, ms: a
 * program that never ends its update is read anyway, as terminals time such an update out.
 */
export const SYNC_HOLD_MS = 500;

/**
 * The longest a resized screen is left unread until its program draws on it, ms. Right after a
 * resize the screen holds the old frame cut or padded to the new size, which no rule was
 * written for: opencode 1.18.33's permission panel cut from 120 to 80 columns lost its
 * `enter confirm` and read idle until opencode redrew it (it first asks for the window's size
 * in pixels, `CSI 14 t`, which draws nothing, and redraws 50-150 ms later, inside a
 * synchronized update). The screen is looked at as soon as the program has drawn anything on
 * it, or after this bound (a program that does not redraw on SIGWINCH).
 */
export const RESIZE_HOLD_MS = 1000;

/**
 * How many evaluations in a row must have seen the same one row change (and the title, or
 * not) while the agent works before that change is taken for its spinner
 * ({@link ScreenPane.onlySpinnerChanged}).
 */
export const SPINNER_STREAK = 2;

/**
 * What changed on a screen since its last look, as one number: 0 nothing visible (the cursor,
 * a mode), 1 the title only, `2 + 2 * row + (title changed ? 1 : 0)` one visible row (and
 * maybe the title), -1 more than that (several rows, a scroll, another OSC payload) or unknown
 * (a source that does not tell).
 */
function changeKey(t: SweptSession['terminal']): number {
  if (t.changedRows === undefined || t.otherOscChanged !== false) return -1;
  const n = t.changedRowCount;
  const title = t.titleChanged ? 1 : 0;
  if (n === 0) return title;
  if (n !== 1) return -1;
  return 2 + 2 * t.changedRows.indexOf(1) + title;
}

/** A source followed by its screen, with its state and agent. */
export class ScreenPane<S extends SweptSession = SweptSession> {
  record: StateRecord;
  /** The agent in force and why ({@link matchAgent}). */
  match: AgentMatch;
  foreground: Foreground = UNKNOWN_FOREGROUND;
  /** terminal.version at the last evaluation. */
  screenVersion = -1;
  /** When an evaluation last saw the screen changed, ms since the epoch (0: never). */
  screenChangedAt = 0;
  inputsVersion = -1;
  /** When it was last evaluated, ms since the epoch (0: never). */
  lastEvalAt = 0;
  /** Evaluations so far. */
  evaluations = 0;
  /** Its rules' results on the last screen, so an evaluation re-tests only what changed. */
  evaluator?: Evaluator;
  /** The last foreground read and the manifests it was matched against (to skip a rematch). */
  lastRead?: { fg: ForegroundRead; manifests: ReadonlyMap<string, Manifest> };
  /**
   * The change ({@link changeKey}) that each of the last {@link SPINNER_STREAK} evaluations
   * saw while the agent worked, taken for its spinner; -1 when there is none.
   */
  spinnerChange = -1;
  /** The last non-zero change an evaluation saw, and how many evaluations in a row saw it. */
  #lastChange = -1;
  #streak = 0;
  /** The manifests Map seen at the last refresh, to notice a reload. */
  #seen?: ReadonlyMap<string, Manifest>;
  /** Since when the screen has been seen inside a synchronized update, ms (undefined: not). */
  #syncSince?: number;
  readonly #now: () => number;
  readonly #classified = new Set<(prev: StateRecord, ms: number) => void>();

  /**
   * Starts following `session`; an agent begins starting (working) until a look says otherwise,
   * any other command idle ({@link initialState}).
   */
  constructor(readonly session: S, readonly paneOptions: ScreenPaneOptions<S>) {
    this.#now = paneOptions.now ?? Date.now;
    // The agent is known from the start when forced or named by the command: `info` names
    // it before the first sweep. One whose input box is known (`[input] box`) is starting
    // (working) until it draws it; any other until it draws anything.
    this.match = this.#matchNow(paneOptions.manifests(), false);
    const m = this.match.manifest;
    this.record = initialState(this.#now(), !m ? false : m.input?.box.length ? 'box' : 'blank');
  }

  get id(): string {
    return this.session.id;
  }

  /** The manifest in force, null when none applies. */
  get manifest(): Manifest | null {
    return this.match.manifest;
  }

  /**
   * Calls `listener` after every evaluation, with the record before it and the evaluation's
   * duration (ms); returns a function that removes it. Listeners' errors propagate.
   */
  onClassified(listener: (prev: StateRecord, ms: number) => void): () => void {
    this.#classified.add(listener);
    return () => this.#classified.delete(listener);
  }

  #matchNow(manifests: ReadonlyMap<string, Manifest>, keepPrevious = true): AgentMatch {
    const s = this.session;
    return matchAgent({
      forced: s.spec.agent,
      foreground: this.foreground,
      command: [s.spec.command, ...s.spec.args],
      previous: keepPrevious ? this.match?.manifest?.id : undefined,
    }, manifests);
  }

  /** Takes `match`; a manifest that changed makes the pane due. */
  #take(match: AgentMatch): void {
    if (match.manifest !== this.match.manifest) this.session.inputsVersion++;
    this.match = match;
  }

  /**
   * Reads what is not the source's own output: the manifests in force (a reload re-matches
   * the agent) and the foreground (a new leader re-matches it too). Cheap when nothing
   * changed: one Map compare and the foreground reader's own cache.
   */
  refresh(): void {
    const manifests = this.paneOptions.manifests();
    if (this.#seen !== undefined && manifests !== this.#seen) this.#take(this.#matchNow(manifests));
    this.#seen = manifests;
    this.#readForeground(manifests);
  }

  #readForeground(manifests: ReadonlyMap<string, Manifest>): void {
    const s = this.session;
    if (s.exit) return;
    const fg = this.paneOptions.foreground(s);
    if (!fg) {
      this.lastRead = undefined;
      if (this.foreground.kind !== 'unknown') {
        this.foreground = UNKNOWN_FOREGROUND;
        s.inputsVersion++;
      }
      return;
    }
    // The same read (a foreground reader returns its previous answer while the group is the
    // same) against the same manifests: nothing to match again.
    if (this.lastRead?.fg === fg && this.lastRead.manifests === manifests) return;
    this.lastRead = { fg, manifests };
    const next = classifyForeground(fg, manifests);
    if (next.kind !== this.foreground.kind || next.name !== this.foreground.name) {
      s.inputsVersion++;
    }
    this.foreground = next;
    // A shell back in front: the agent that ran (if any) ended and its rules no longer apply; a
    // command started next (`sleep 6`) reads `running`, not the old agent's screen.
    this.#take(this.#matchNow(manifests));
  }

  /** True when its screen or inputs changed since the last evaluation, or a decision waits. */
  due(): boolean {
    const s = this.session;
    // A live report is due too: it may have expired or lost its grace since the last look.
    return s.terminal.version !== this.screenVersion || s.inputsVersion !== this.inputsVersion ||
      this.record.idleSeenAt !== undefined ||
      // a starting screen that stays still stops reading working after a while
      (this.record.starting === true && this.#now() - this.screenChangedAt >= STARTING_STILL_MS) ||
      (s.report !== null && this.record.reportDroppedAt !== s.report.at);
  }

  /**
   * True while the screen was resized less than {@link RESIZE_HOLD_MS} ago and its program has
   * drawn nothing on it since: the screen is the old frame at the new size. Left unread, the
   * screen stays due. (Only until the first drawing: output that goes on after it, a spinner or
   * the agent at work, is read as always.)
   */
  #resizeHeld(now: number): boolean {
    const s = this.session;
    const at = s.resizedAt ?? 0;
    if (!at || now - at >= RESIZE_HOLD_MS || s.exit) return false;
    return s.terminal.version === s.resizedVersion;
  }

  /**
   * True when, since its last evaluation, the screen changed only where a working agent's
   * spinner changed before each of its last {@link SPINNER_STREAK} evaluations (one row, and
   * the title if the spinner's change held it) or not visibly at all: the sweep may look later
   * than at a change elsewhere. A prompt drawn changes other rows (a dialog, a scroll).
   */
  onlySpinnerChanged(): boolean {
    const spin = this.spinnerChange;
    if (spin < 1) return false;
    const now = changeKey(this.session.terminal);
    if (now === 0 || now === spin) return true;
    if (now === 1) return (spin & 1) === 1;
    return now > 1 && (now | 1) === (spin | 1) && (now & 1) <= (spin & 1);
  }

  /** Evaluates when {@link due}. */
  evaluateIfDue(): void {
    if (this.due()) this.classifyNow();
  }

  /** Classifies the pane afresh, whatever the last sweep said (the typing guard calls this). */
  classifyNow(): StateRecord {
    const t0 = performance.now();
    const s = this.session;
    if (!this.match.manifest) this.#take(this.#matchNow(this.paneOptions.manifests()));
    const now = this.#now();
    // A frame drawn inside a synchronized update and read in part (opencode 1.18 writes one in
    // pieces tens of ms apart: its permission panel half erased, the button row still there,
    // read as another prompt) is not looked at, as a terminal would not show it; the screen stays
    // due, and is looked at once the frame ends, or after SYNC_HOLD_MS in any case.
    if (s.terminal.synchronizedUpdate) {
      this.#syncSince ??= now;
      if (now - this.#syncSince < SYNC_HOLD_MS && this.evaluations > 0) return this.record;
    } else this.#syncSince = undefined;
    if (this.#resizeHeld(now) && this.evaluations > 0) return this.record;
    if (s.terminal.version !== this.screenVersion) this.screenChangedAt = now;
    this.screenVersion = s.terminal.version;
    const change = changeKey(s.terminal);
    s.terminal.markSeen?.();
    this.inputsVersion = s.inputsVersion;
    const manifest = this.match.manifest;
    const evaluation = manifest
      ? (this.evaluator ??= new Evaluator()).evaluate(s.terminal.snapshot(), manifest)
      : null;
    const prev = this.record;
    this.record = decide(prev, {
      now,
      evaluation,
      foreground: this.foreground.kind,
      foregroundName: this.foreground.name,
      exit: s.exit,
      report: s.report,
      reportTtlMs: this.paneOptions.reportTtlMs,
      inputDrawn: manifest?.input?.box.length && !prev.inputSeen
        ? inputBox(s.terminal.snapshot(), manifest) !== 'absent'
        : undefined,
      screenChangedAt: this.screenChangedAt,
      blank: prev.drawnSeen ? undefined : s.terminal.snapshot().rows.every((r) => r === ''),
    });
    if (change !== 0) {
      this.#streak = change > 0 && change === this.#lastChange
        ? this.#streak + 1
        : change > 0
        ? 1
        : 0;
      this.#lastChange = change;
    }
    this.spinnerChange = this.record.state === 'working' && this.#streak >= SPINNER_STREAK
      ? this.#lastChange
      : -1;
    this.lastEvalAt = now;
    this.evaluations++;
    const ms = performance.now() - t0;
    for (const l of this.#classified) l(prev, ms);
    return this.record;
  }
}
