/**
 * The sweep schedules panes ({@link ScreenPane}: each classifies itself): every `intervalMs`
 * (default 700 ms, the seed's SWEEP_INTERVAL) each pane refreshes its inputs (manifests,
 * foreground) and, when its screen or inputs changed since its last evaluation, is classified
 * again; unchanged panes cost one integer compare. Past {@link PANES_PER_TICK_PART} panes that
 * round is spread over the interval in parts, so that it never holds the event loop for all
 * panes at once. In adaptive mode a session that changes is
 * also evaluated soon after its output, at most once every {@link ADAPTIVE_MIN_MS}; one timer
 * serves every such look at the end of its {@link ADAPTIVE_SLOT_MS} slot (a look already due
 * waits for the end of the current slot), so a thousand spinning panes share at most 40
 * wake-ups a second, and a wake-up touches only the panes due in it. A working session whose
 * screen changes only where its spinner turns (the same one row, and the title, at each of its
 * last looks: {@link ScreenPane.onlySpinnerChanged}) is looked at every {@link SPINNER_LOOK_MS}
 * instead; any other change is looked at as above. A session waiting for a
 * working -> idle confirmation stays due until it is confirmed or dropped.
 */
import { IDLE_CONFIRM_MS, type StateRecord } from './signals.ts';
import type { Session } from './session.ts';
import { ScreenPane, type ScreenPaneOptions, type SweptSession } from './screen-pane.ts';

export type { SweptSession } from './screen-pane.ts';
export type { ForegroundRead } from './signals.ts';

/** The sweep interval's default, ms. */
export const DEFAULT_INTERVAL_MS = 700;
/** In adaptive mode, the shortest time between two evaluations of one session, ms. */
export const ADAPTIVE_MIN_MS = 100;
/**
 * In adaptive mode, the shortest time between two evaluations of a working session whose
 * screen changed only where its spinner did ({@link ScreenPane.onlySpinnerChanged}), ms: a
 * spinner's frame (10 Hz) is not news; a change anywhere else is looked at after
 * {@link ADAPTIVE_MIN_MS} as always.
 */
export const SPINNER_LOOK_MS = 300;
/**
 * In adaptive mode, the slot adaptive looks are served in, ms: a look due at time T runs at
 * the end of T's slot (T rounded up to a multiple of this; a T already past, at the end of
 * the current slot), so at most 1000 / this wake-ups a second serve any number of sessions,
 * each at most this much later than due.
 */
export const ADAPTIVE_SLOT_MS = 25;

/**
 * A periodic sweep of more panes than this is spread over the interval in parts (at most
 * {@link MAX_TICK_PARTS}), each visiting its share of the panes, so that a thousand panes'
 * foreground reads and looks do not hold the event loop in one go; every pane is still
 * visited once per interval.
 */
export const PANES_PER_TICK_PART = 32;
/** The most parts one periodic sweep is spread over. */
export const MAX_TICK_PARTS = 28;

/** The end of the slot that holds time `t` (ms since the epoch). */
function slotEnd(t: number): number {
  return Math.ceil(t / ADAPTIVE_SLOT_MS) * ADAPTIVE_SLOT_MS;
}

/**
 * A periodic sweep under way: the panes it visits, the index of the next, the parts it is
 * spread over, the parts taken and the timer of the next part.
 */
interface Round<S extends SweptSession> {
  panes: ScreenPane<S>[];
  next: number;
  parts: number;
  part: number;
  timer?: unknown;
}

/**
 * The timer functions the sweep uses: the global ones by default, a virtual clock's in the
 * eval's replay (so that a recording replays deterministically, without sleeping).
 */
export interface SweepTimers {
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(f: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const GLOBAL_TIMERS: SweepTimers = {
  setTimeout: (f, ms) => setTimeout(f, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  setInterval: (f, ms) => setInterval(f, ms),
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
};

/** Lets the process exit while `handle` (a Node timer) is pending; a no-op for other handles. */
function unref(handle: unknown): void {
  (handle as { unref?: () => void } | undefined)?.unref?.();
}

/** What the sweep needs from its host. */
export interface SweepOptions<S extends SweptSession = Session> extends ScreenPaneOptions<S> {
  intervalMs?: number;
  adaptive?: boolean;
  /** Called at the start of every tick, before the panes refresh (hot reload's stat check). */
  refresh?: () => void;
  /** Called when a pane's state changes (not when only the reason changes). */
  onTransition?: (pane: ScreenPane<S>, prev: StateRecord) => void;
  /** Called after every evaluation (for the board's timers and explain). */
  onEvaluated?: (pane: ScreenPane<S>) => void;
  /** Timer functions (default: the global ones). */
  timers?: SweepTimers;
}

/**
 * Schedules panes: when to refresh and evaluate each ({@link ScreenPane} does both). It holds
 * no state of a pane but when its next adaptive look is due.
 */
export class Sweep<S extends SweptSession = Session> {
  readonly panes = new Map<string, ScreenPane<S>>();
  readonly intervalMs: number;
  readonly adaptive: boolean;
  #timer?: unknown;
  readonly #now: () => number;
  readonly #timers: SweepTimers;
  /** Adaptive looks to take: the end of the slot each pane is looked at in (ms since the epoch). */
  readonly #due = new Map<ScreenPane<S>, number>();
  /** The same looks by slot end: what one wake-up serves. */
  readonly #slots = new Map<number, Set<ScreenPane<S>>>();
  /** The one timer serving {@link #slots}, and the time it fires at. */
  #slotTimer?: unknown;
  #slotAt = Infinity;
  /** The periodic sweep under way, if any. */
  #round?: Round<S>;
  /** What to undo when a pane is removed. */
  readonly #offs = new Map<ScreenPane<S>, () => void>();
  /** Totals, for the benchmark. */
  readonly stats = { ticks: 0, evaluations: 0, evalMs: 0 };

  constructor(readonly options: SweepOptions<S>) {
    this.intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    this.adaptive = options.adaptive ?? false;
    this.#now = options.now ?? Date.now;
    this.#timers = options.timers ?? GLOBAL_TIMERS;
  }

  /** Follows `session` in a new {@link ScreenPane} classified with this sweep's options. */
  add(session: S): ScreenPane<S> {
    return this.addPane(new ScreenPane(session, this.options));
  }

  /** Schedules `pane` (made by the caller, e.g. a PTY pane); returns it. */
  addPane<P extends ScreenPane<S>>(pane: P): P {
    this.panes.set(pane.id, pane);
    const offs = [
      pane.onClassified((prev, ms) => this.#classified(pane, prev, ms)),
      pane.session.onExit(() => pane.classifyNow()),
    ];
    if (this.adaptive) {
      offs.push(
        pane.session.onOutput(() =>
          this.#schedule(pane, pane.onlySpinnerChanged() ? SPINNER_LOOK_MS : ADAPTIVE_MIN_MS)
        ),
      );
    }
    this.#offs.set(pane, () => offs.forEach((off) => off()));
    return pane;
  }

  /** Stops following pane `id`. */
  remove(id: string): void {
    const pane = this.panes.get(id);
    if (pane) {
      this.#unschedule(pane);
      this.#offs.get(pane)?.();
      this.#offs.delete(pane);
    }
    this.panes.delete(id);
  }

  /**
   * Starts the periodic sweep: every `intervalMs` a round visits every pane ({@link tick}'s
   * work), spread in parts over the interval when there are more than
   * {@link PANES_PER_TICK_PART} panes.
   */
  start(): void {
    this.#timer ??= this.#timers.setInterval(() => this.#startRound(), this.intervalMs);
    unref(this.#timer);
  }

  stop(): void {
    if (this.#timer) this.#timers.clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#round?.timer !== undefined) this.#timers.clearTimeout(this.#round.timer);
    this.#round = undefined;
    if (this.#slotTimer !== undefined) this.#timers.clearTimeout(this.#slotTimer);
    this.#slotTimer = undefined;
    this.#slotAt = Infinity;
    this.#due.clear();
    this.#slots.clear();
  }

  /** After each evaluation of `pane`: its confirmation look, the host's callbacks, the totals. */
  #classified(pane: ScreenPane<S>, prev: StateRecord, ms: number): void {
    this.stats.evaluations++;
    this.stats.evalMs += ms;
    // In adaptive mode a pending working -> idle is confirmed by its own look, not by the
    // next tick or the next output (a quiet idle screen brings neither soon).
    if (this.adaptive && pane.record.idleSeenAt !== undefined) {
      this.#schedule(pane, IDLE_CONFIRM_MS);
    }
    if (pane.record.state !== prev.state) this.options.onTransition?.(pane, prev);
    this.options.onEvaluated?.(pane);
  }

  /** Asks for an adaptive look at `pane` once `after` ms have passed since its last evaluation. */
  #schedule(pane: ScreenPane<S>, after = ADAPTIVE_MIN_MS): void {
    const slot = slotEnd(Math.max(pane.lastEvalAt + after, this.#now()));
    const due = this.#due.get(pane);
    if (due !== undefined && due <= slot) return;
    if (due !== undefined) this.#slots.get(due)?.delete(pane);
    this.#due.set(pane, slot);
    let panes = this.#slots.get(slot);
    if (!panes) this.#slots.set(slot, panes = new Set());
    panes.add(pane);
    this.#arm(slot);
  }

  /** Drops `pane`'s pending adaptive look. */
  #unschedule(pane: ScreenPane<S>): void {
    const due = this.#due.get(pane);
    if (due === undefined) return;
    this.#due.delete(pane);
    this.#slots.get(due)?.delete(pane);
  }

  /** Makes the slot timer fire at `slot` (a slot's end, ms since the epoch) or earlier. */
  #arm(slot: number): void {
    if (this.#slotTimer !== undefined && this.#slotAt <= slot) return;
    if (this.#slotTimer !== undefined) this.#timers.clearTimeout(this.#slotTimer);
    this.#slotAt = slot;
    this.#slotTimer = this.#timers.setTimeout(
      () => this.#serve(),
      Math.max(0, slot - this.#now()),
    );
    unref(this.#slotTimer);
  }

  /** Takes the adaptive looks of the slots that have ended, then sets the timer for the next. */
  #serve(): void {
    this.#slotTimer = undefined;
    this.#slotAt = Infinity;
    const now = this.#now();
    for (const [slot, panes] of this.#slots) {
      if (slot > now) continue; // a later slot (one added while serving is later too)
      this.#slots.delete(slot);
      for (const pane of panes) {
        this.#due.delete(pane);
        if (!this.panes.has(pane.id)) continue;
        try {
          pane.evaluateIfDue();
        } catch {
          // one pane's failure must not stop the looks at the others
        }
      }
    }
    let next = Infinity;
    for (const [slot, panes] of this.#slots) {
      if (panes.size === 0) this.#slots.delete(slot);
      else if (slot < next) next = slot;
    }
    if (next < Infinity) this.#arm(next);
  }

  /** One sweep now: refreshes every pane (manifests, foreground), evaluates those that are due. */
  tick(): void {
    this.#refreshSources();
    for (const pane of this.panes.values()) this.#visit(pane);
  }

  /** At the start of a sweep: the totals and the host's refresh (hot reload's stat check). */
  #refreshSources(): void {
    this.stats.ticks++;
    try {
      this.options.refresh?.();
    } catch {
      // a reload's failure keeps the manifests in force; the sweep goes on
    }
  }

  /** Refreshes `pane` and evaluates it when due. */
  #visit(pane: ScreenPane<S>): void {
    try {
      pane.refresh();
      pane.evaluateIfDue();
    } catch {
      // One pane's failure must not stop the sweep of the others; it is retried next tick.
    }
  }

  /**
   * The periodic sweep's round: what is left of the previous round is visited first (its
   * parts came late), then the panes of this one, in parts `intervalMs / parts` apart.
   */
  #startRound(): void {
    const previous = this.#round;
    if (previous) {
      if (previous.timer !== undefined) this.#timers.clearTimeout(previous.timer);
      previous.part = previous.parts;
      this.#takePart(previous);
    }
    const panes = [...this.panes.values()];
    const parts = Math.min(
      MAX_TICK_PARTS,
      Math.max(1, Math.ceil(panes.length / PANES_PER_TICK_PART)),
    );
    this.#refreshSources();
    const round: Round<S> = { panes, next: 0, parts, part: 0 };
    this.#round = round;
    this.#takePart(round);
  }

  /** Visits the panes of `round`'s next part (all that are left after its last) and arms the part after. */
  #takePart(round: Round<S>): void {
    round.timer = undefined;
    round.part++;
    const end = round.part >= round.parts
      ? round.panes.length
      : Math.ceil(round.panes.length * round.part / round.parts);
    for (; round.next < end; round.next++) {
      const pane = round.panes[round.next];
      if (this.panes.get(pane.id) === pane) this.#visit(pane);
    }
    if (round.next >= round.panes.length) {
      if (this.#round === round) this.#round = undefined;
      return;
    }
    round.timer = this.#timers.setTimeout(() => {
      if (this.#round === round) this.#takePart(round);
    }, this.intervalMs / round.parts);
    unref(round.timer);
  }
}
