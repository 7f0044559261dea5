/**
 * A virtual clock for the eval's replay: `now()` in ms and timer functions with the shape of
 * the sweep's {@link SweepTimers}, driven by {@link VirtualClock.advanceTo} instead of the
 * wall clock. Timers fire in time order (ties in the order they were set), each at its own
 * due time, so a replay gives the same result on any machine and never sleeps.
 */
import type { SweepTimers } from '../runtime/sweep.ts';

interface Timer {
  id: number;
  due: number;
  /** Repeat period, ms; 0 for a one-shot timer. */
  every: number;
  f: () => void;
}

/** A clock that moves only when told to; see the file comment. */
export class VirtualClock implements SweepTimers {
  #now: number;
  #next = 1;
  readonly #timers = new Map<number, Timer>();

  /** @param start the clock's first reading, ms (default 0). */
  constructor(start = 0) {
    this.#now = start;
  }

  /** The current time, ms. */
  now = (): number => this.#now;

  setTimeout = (f: () => void, ms: number): number => this.#add(f, ms, 0);

  setInterval = (f: () => void, ms: number): number => this.#add(f, ms, Math.max(1, ms));

  clearTimeout = (handle: unknown): void => {
    this.#timers.delete(handle as number);
  };

  clearInterval = (handle: unknown): void => {
    this.#timers.delete(handle as number);
  };

  #add(f: () => void, ms: number, every: number): number {
    const id = this.#next++;
    const delay = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    this.#timers.set(id, { id, due: this.#now + delay, every, f });
    return id;
  }

  /** Timers pending now. */
  get pending(): number {
    return this.#timers.size;
  }

  /**
   * Moves the clock to `t` (ms; never backwards), firing every timer due at or before `t`,
   * each with the clock set to its due time. A timer set by a firing timer fires too when it
   * is due by `t`. Errors thrown by a timer propagate (the caller's bug, not the replay's).
   */
  advanceTo(t: number): void {
    for (;;) {
      let first: Timer | undefined;
      for (const timer of this.#timers.values()) {
        if (timer.due <= t && (!first || timer.due < first.due)) first = timer;
      }
      if (!first) break;
      this.#now = Math.max(this.#now, first.due);
      if (first.every > 0) first.due += first.every;
      else this.#timers.delete(first.id);
      first.f();
    }
    this.#now = Math.max(this.#now, t);
  }
}
