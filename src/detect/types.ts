/**
 * Types shared by the detection layer. Pure data: no I/O, no imports from the layers above.
 *
 * Data flow: PTY bytes -> `src/vt` screen -> {@link ScreenInput} -> rules -> {@link Evaluation}.
 */

/** The state a manifest rule can assign. `exited` is decided by the runtime, never by a rule. */
export type RuleState = 'blocked' | 'working' | 'idle';

/**
 * Every state a session can be in. Besides the rules' states, decided by the runtime from the
 * process, never by a rule:
 * - `shell`: a shell holds the pane's foreground and no agent has run in it (alive, nothing to do);
 * - `running`: a command that is neither an agent nor a shell holds the foreground (`sleep 6`);
 * - `exited`: the process is gone, or the agent that ran ended and its shell is back in the
 *   foreground (DESIGN.md, "the shell is back in the foreground").
 */
export type SessionState = RuleState | 'shell' | 'running' | 'exited';

/** Every {@link SessionState}, in the order the board and the help list them. */
export const SESSION_STATES: readonly SessionState[] = [
  'blocked',
  'working',
  'idle',
  'running',
  'shell',
  'exited',
];

/**
 * What the detection layer reads of a terminal: a snapshot of the visible screen (no
 * scrollback, on purpose: an answered prompt scrolled up must not read as blocked forever).
 */
export interface ScreenInput {
  /** Visible rows, top first, each with trailing blanks trimmed. Length = terminal rows. */
  readonly rows: readonly string[];
  /** `wrapped[i]` is true when row i continues on row i+1 (soft wrap by deferred autowrap). */
  readonly wrapped: readonly boolean[];
  /** The window title (OSC 0 / OSC 2), '' when never set. */
  readonly title: string;
  /** Latest payload per OSC number, without the number and its ';' (7501 -> 'state=idle:app=codex'). */
  readonly osc: ReadonlyMap<number, string>;
}

/** Where a rule looks. Parsed once from the manifest into this union. */
export type Region =
  | { readonly kind: 'screen' }
  /** The last `lines` non-blank logical lines (wrapped rows joined). */
  | { readonly kind: 'bottom'; readonly lines: number }
  /** The logical lines below the last horizontal rule (a row made of `─`/`━`, at least 8 of them). */
  | { readonly kind: 'below_last_rule' }
  | { readonly kind: 'title' }
  /** The latest payload of OSC `number`. */
  | { readonly kind: 'osc'; readonly number: number };

/** The result of evaluating one screen against one manifest. */
export interface Evaluation {
  readonly state: RuleState;
  /** Index of the matching rule in the manifest's `[[rules]]` (0-based), null when none matched. */
  readonly rule: number | null;
  /** The pattern (source text) whose match decided, null when none matched. */
  readonly pattern: string | null;
  /** The matched text, null when none matched. */
  readonly match: string | null;
  /** The region the decisive pattern was matched in, as written in the manifest (e.g. 'bottom 6'). */
  readonly region: string | null;
  /** Human-readable reason, e.g. 'rule 0 (blocked): all 2 patterns matched' or 'no rule matched'. */
  readonly reason: string;
  /**
   * For a working screen, what the agent says it does (its manifest's `[activity]`: Claude
   * Code's spinner text, 'Running the tests…'); absent when it says nothing.
   */
  readonly activity?: string;
  /**
   * When a rule on the agent's in-band state (an OSC region: Claude Code's OSC 7501) decided:
   * the state the screen's own rules give beneath it, that is of the first later rule on a
   * screen region (not a title or OSC one) that matches; null when none matches. Absent when
   * any other rule decided, or none did. An in-band state can lag the screen (Claude Code
   * 2.1.332 keeps OSC 7501 at `working` after a turn ended while its Stop hook runs), and the
   * runtime reads this to tell a new turn from that lag (signals.ts `decide`).
   */
  readonly screenState?: RuleState | null;
}
