/**
 * The simulated user of the simulated agent (DESIGN.md section 1, the seed's bot): it types a
 * task 3-10 s after the agent goes idle and answers a permission prompt 3-8 s after it
 * appears, one key at a time, 35-75 ms apart (the capture driver's pace).
 *
 * The user is told the agent's state by whoever drives it ({@link SimUser.see}): the demo and
 * the eval feed it the agent's TRUE state from the truth file ({@link TruthFollower}), like a
 * person who looks at the real screen. Feeding it the sweep's state would also work (the sweep
 * is the product), but then a detection mistake would stall the user and hide the mistake
 * instead of showing it on the board.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { TrueState } from './agent.ts';
import { Rng } from './rng.ts';

/** One line of a truth file. */
export interface TruthEvent {
  /** ms since the epoch. */
  t: number;
  state: TrueState;
  /** On the line that ends a permission prompt: the option number the agent got (1-based). */
  answer?: number;
}

/** Delay before typing a task once the agent is idle, ms. */
export const TASK_DELAY_MS: readonly [number, number] = [3000, 10000];
/** Delay before answering a prompt once it shows, ms. */
export const ANSWER_DELAY_MS: readonly [number, number] = [3000, 8000];
/** Gap between two keys, ms. */
export const KEY_GAP_MS: readonly [number, number] = [35, 75];

const TASKS = [
  'please create hello.txt',
  'fix the off-by-one bug in the loop',
  'run the tests',
  'clean up the build output',
  'update the greeting in greet.py',
  'check the project',
  'stage the fix',
];

/**
 * Follows a truth file written by `agentwatch sim-agent --truth FILE`: reads new complete
 * lines every `pollMs` and calls `onEvent` for each. A missing file is waited for; a garbled
 * line is skipped.
 */
export class TruthFollower {
  readonly events: TruthEvent[] = [];
  #offset = 0;
  #pending = '';
  #timer: ReturnType<typeof setInterval>;

  constructor(readonly path: string, readonly onEvent: (e: TruthEvent) => void, pollMs = 50) {
    this.#timer = setInterval(() => this.poll(), pollMs);
    this.#timer.unref?.();
  }

  /** The last state read, null before the first line. */
  get state(): TrueState | null {
    return this.events.length ? this.events[this.events.length - 1].state : null;
  }

  /** Reads what was appended since the last poll. */
  poll(): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return; // not written yet
    }
    try {
      const buf = Buffer.alloc(64 * 1024);
      let n: number;
      while ((n = readSync(fd, buf, 0, buf.length, this.#offset)) > 0) {
        this.#offset += n;
        this.#pending += buf.subarray(0, n).toString('utf8');
      }
    } finally {
      closeSync(fd);
    }
    let nl: number;
    while ((nl = this.#pending.indexOf('\n')) >= 0) {
      const line = this.#pending.slice(0, nl);
      this.#pending = this.#pending.slice(nl + 1);
      try {
        const e = JSON.parse(line) as TruthEvent;
        if (typeof e.t !== 'number' || typeof e.state !== 'string') continue;
        this.events.push(e);
        this.onEvent(e);
      } catch {
        // a garbled line
      }
    }
  }

  /** Stops polling (after a last read). */
  stop(): void {
    clearInterval(this.#timer);
    this.poll();
  }
}

/** How a simulated user is set up. */
export interface SimUserOptions {
  seed: number;
  /** Where keys go: a hosted session (`Session.write`) or a PTY. */
  target: { write(data: string): void };
  /** Time factor, as the agent's `--speed` (default 1). */
  speed?: number;
  /** Called after each action, for logs. */
  onAction?: (what: 'task' | 'answer', detail: string) => void;
}

/** The simulated user; see the file comment. */
export class SimUser {
  readonly rng: Rng;
  readonly speed: number;
  readonly stats = { tasksTyped: 0, promptsAnswered: 0, yes: 0, always: 0, no: 0 };
  #state: string | null = null;
  #generation = 0;
  #timer?: ReturnType<typeof setTimeout>;
  #stopped = false;

  constructor(readonly options: SimUserOptions) {
    this.rng = new Rng(options.seed);
    this.speed = options.speed && options.speed > 0 ? options.speed : 1;
  }

  /**
   * Tells the user what the agent is doing now ('idle', 'working', 'blocked', 'exited'). A
   * change cancels what the user was about to do and plans the reaction to the new state.
   */
  see(state: string): void {
    if (this.#stopped || state === this.#state) return;
    this.#state = state;
    const gen = ++this.#generation;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (state === 'idle') this.#after(TASK_DELAY_MS, gen, () => this.#typeTask(gen));
    else if (state === 'blocked') this.#after(ANSWER_DELAY_MS, gen, () => this.#answer(gen));
  }

  /** Stops reacting; keys being typed stop at the next gap. */
  stop(): void {
    this.#stopped = true;
    this.#generation++;
    if (this.#timer) clearTimeout(this.#timer);
  }

  #after(range: readonly [number, number], gen: number, act: () => Promise<void>): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (gen === this.#generation) void act();
    }, this.rng.between(...range) / this.speed);
  }

  async #keys(keys: string[], gen: number): Promise<boolean> {
    for (let i = 0; i < keys.length; i++) {
      if (gen !== this.#generation) return false;
      if (i > 0) {
        await new Promise((r) => setTimeout(r, this.rng.between(...KEY_GAP_MS) / this.speed));
      }
      if (gen !== this.#generation) return false;
      try {
        this.options.target.write(keys[i]);
      } catch {
        return false; // the session is gone
      }
    }
    return true;
  }

  async #typeTask(gen: number): Promise<void> {
    const task = this.rng.pick(TASKS);
    if (await this.#keys([...task, '\r'], gen)) {
      this.stats.tasksTyped++;
      this.options.onAction?.('task', task);
    }
  }

  async #answer(gen: number): Promise<void> {
    // Mostly Enter on the selected "1. Yes"; sometimes "2" (don't ask again); sometimes No.
    const r = this.rng.next();
    const [key, kind] = r < 0.7
      ? ['\r', 'yes']
      : r < 0.8
      ? ['1', 'yes']
      : r < 0.9
      ? ['2', 'always']
      : r < 0.95
      ? ['3', 'no']
      : ['\x1b', 'no'];
    if (await this.#keys([key], gen)) {
      this.stats.promptsAnswered++;
      this.stats[kind as 'yes' | 'always' | 'no']++;
      this.options.onAction?.('answer', kind);
    }
  }
}
