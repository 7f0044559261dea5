/**
 * Holding the person's input to a pane while agentwatch types into it: keys typed in the
 * pane (run's stdin, an attached board's terminal) while `send` writes its text and its Enter
 * would be mixed into the text and submitted with it (tester, Gemini CLI 0.61.0, 3 of 5: the
 * send waits a second or more for the agent to read and echo the text before its Enter). While
 * a hold lasts, the person's bytes are kept, in order, and written right after it ends.
 *
 * What is not held:
 * - a chunk that holds only terminal reports ({@link isTerminalReport}: a cursor position, a
 *   colour, device attributes): they answer the agent's own queries, and an agent may wait for
 *   them before it reads anything else; they are no typing, so they cannot end up in the text;
 * - a chunk with Ctrl-C in it ({@link isInterrupt}): the person's way to stop the agent passes
 *   at once. It ends every hold: what was held goes first, then the chunk (the person's own
 *   bytes stay in their order), and the hold's owner is told ({@link InputHold.broken}), so
 *   `send` presses no Enter after it.
 *
 * Bounds: at most {@link HOLD_MAX_BYTES} held (a byte more ends every hold, and what was held
 * goes at once, then that chunk), at most the `maxMs` each hold was given (then every hold
 * ends and what was held goes). So no stuck writer keeps the person's keys; an owner whose
 * hold ended that way sees why in {@link InputHold.broken}.
 */
import { isTerminalReport } from './terminal-report.ts';

/** The most bytes of the person's input held at once (64 KiB). */
export const HOLD_MAX_BYTES = 64 * 1024;

/**
 * Why a hold ended before its owner released it: `interrupt` (the person pressed Ctrl-C),
 * `full` ({@link HOLD_MAX_BYTES} reached), `time` (a hold's `maxMs` passed), `exit` (the
 * agent exited).
 */
export type HoldBreak = 'interrupt' | 'full' | 'time' | 'exit';

/** One hold, as its owner sees it. */
export interface InputHold {
  /**
   * Ends this hold; once no other hold remains, the input held is written (in the order it
   * came). Calling it again does nothing.
   */
  release(): void;
  /** Why the hold ended before {@link release}; null while it holds, and after release. */
  readonly broken: HoldBreak | null;
}

/**
 * Ctrl-C as a terminal sends it: the byte 0x03 (legacy keys), the kitty keyboard protocol's
 * `CSI 99;5u` (with an event type, `CSI 99;5:1u`; Gemini CLI and Claude Code turn it on in a
 * terminal that has it), or xterm's modifyOtherKeys `CSI 27;5;99~`.
 */
export function isInterrupt(d: Uint8Array): boolean {
  if (d.includes(3)) return true;
  if (!d.includes(0x1b)) return false;
  return /\x1b\[99(?::\d*)*;5(?::[12])?u|\x1b\[27;5;99~/.test(
    Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('latin1'),
  );
}

/**
 * The holds of one pane's input and what they keep. Its owner (the {@link Session}) passes
 * the person's every chunk through {@link take}; `write` is how held input finally goes to
 * the agent (in order, after anything taken earlier).
 */
export class InputHolder {
  readonly #holds = new Set<{ broken: HoldBreak | null; timer: ReturnType<typeof setTimeout> }>();
  #queue: Buffer[] = [];
  #size = 0;

  /**
   * @param write writes bytes to the agent now (what the session does with unheld input).
   * @param log a line for the session's event log: that it holds input (at the first chunk
   *   held), how many bytes it wrote once the holds ended, why a hold broke.
   */
  constructor(
    private readonly write: (bytes: Buffer) => void,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** Bytes held now. */
  get held(): number {
    return this.#size;
  }

  /** True while any hold lasts. */
  get holding(): boolean {
    return this.#holds.size > 0;
  }

  /**
   * Starts a hold that lasts until released, and at most `maxMs` (ms; then every hold ends,
   * {@link HoldBreak} `time`, and the input held is written).
   */
  hold(maxMs: number): InputHold {
    const h = {
      broken: null as HoldBreak | null,
      timer: setTimeout(() => this.end('time'), maxMs),
    };
    h.timer.unref?.();
    this.#holds.add(h);
    return {
      release: () => {
        if (!this.#holds.delete(h)) return;
        clearTimeout(h.timer);
        if (!this.#holds.size) this.#flush();
      },
      get broken() {
        return h.broken;
      },
    };
  }

  /**
   * Offers one chunk of the person's input.
   * @returns true when it is held (written later, in order); false when the caller writes it
   *   now: no hold, a chunk of terminal reports alone, Ctrl-C, or more than
   *   {@link HOLD_MAX_BYTES} held (in the last two cases every hold has ended and what was
   *   held has been written, so the chunk goes after it).
   */
  take(bytes: Buffer): boolean {
    if (!this.#holds.size || isTerminalReport(bytes)) return false;
    if (isInterrupt(bytes)) {
      this.end('interrupt');
      return false;
    }
    if (this.#size + bytes.length > HOLD_MAX_BYTES) {
      this.end('full');
      return false;
    }
    if (!this.#queue.length) this.log('holding the input typed while agentwatch types');
    this.#queue.push(bytes);
    this.#size += bytes.length;
    return true;
  }

  /** Ends every hold (each one's `broken` says `why`) and writes what they held. */
  end(why: HoldBreak): void {
    if (!this.#holds.size) return;
    for (const h of this.#holds) {
      h.broken = why;
      clearTimeout(h.timer);
    }
    this.#holds.clear();
    this.log(`input hold broken (${why})`);
    this.#flush();
  }

  #flush(): void {
    if (!this.#queue.length) return;
    const bytes = Buffer.concat(this.#queue);
    this.#queue = [];
    this.#size = 0;
    this.log(`input held while typing: ${bytes.length} bytes, written now`);
    this.write(bytes);
  }
}
