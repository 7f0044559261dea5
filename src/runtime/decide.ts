/**
 * The session's state as a pure function of the previous state record, the latest inputs and
 * an injected `now` (ms). The sweep only gathers inputs and applies the result, so tests need
 * no real timers (the herdr habit).
 *
 * Order (DESIGN.md "How the signals combine"): the PTY child's exit; then "the shell is back
 * in the foreground" (exited, whatever the screen still shows); then the screen rules.
 * Reports from hooks join this order in `signals.ts`.
 */
import type { Evaluation, SessionState } from '../detect/types.ts';

/**
 * How long an `idle` read must last before a `working` session is shown idle, in ms: a
 * spinner that flickers between frames must not flap working -> idle -> working. The idle
 * must be seen again on a later evaluation at least this long after the first.
 * Idle or working -> blocked never waits.
 */
export const IDLE_CONFIRM_MS = 250;

/** Names of shells: when one holds the PTY's foreground, no agent runs there. */
export const SHELLS: ReadonlySet<string> = new Set([
  'bash',
  'zsh',
  'sh',
  'dash',
  'fish',
  'ksh',
  'mksh',
  'tcsh',
  'csh',
  'nu',
  'pwsh',
  'xonsh',
  'elvish',
  'login',
]);

/** Who holds the terminal, as the runtime sees it. */
export type ForegroundKind = 'agent' | 'shell' | 'other' | 'unknown';

/** Which input decided a state. */
export type DecidedBy = 'exit' | 'foreground' | 'screen' | 'report' | 'start';

/** Everything the decision reads. */
export interface DecideInput {
  /** Current time, ms. */
  now: number;
  /** The screen rules' evaluation; null when no manifest applies (no agent known). */
  evaluation: Evaluation | null;
  /** Who holds the PTY's foreground process group. */
  foreground: ForegroundKind;
  /** Name of the foreground process leader, '' when unknown. */
  foregroundName: string;
  /** The PTY child's exit, null while it runs. */
  exit: { code: number; signal?: number } | null;
}

/** A session's state with when it began and why. */
export interface StateRecord {
  state: SessionState;
  /** When this state began, ms. */
  since: number;
  /** Human-readable reason ('rule 0 (blocked) matched "Do you want to proceed?"'). */
  reason: string;
  by: DecidedBy;
  /** Set while a working -> idle change waits for confirmation: when idle was first read, ms. */
  idleSeenAt?: number;
  /** The evaluation behind the state, when the screen decided. */
  evaluation?: Evaluation;
}

/** The record of a session that has just started: idle (no prompt submitted yet). */
export function initialState(now: number): StateRecord {
  return { state: 'idle', since: now, reason: 'started', by: 'start' };
}

function next(
  prev: StateRecord,
  state: SessionState,
  now: number,
  reason: string,
  by: DecidedBy,
  evaluation?: Evaluation,
): StateRecord {
  const since = prev.state === state ? prev.since : now;
  return { state, since, reason, by, evaluation };
}

/** Decides the state from `input`; `prev` is the last record (its `since` is kept when unchanged). */
export function decide(prev: StateRecord, input: DecideInput): StateRecord {
  const { now } = input;
  if (input.exit) {
    const how = input.exit.signal ? `signal ${input.exit.signal}` : `code ${input.exit.code}`;
    return next(prev, 'exited', now, `process exited with ${how}`, 'exit');
  }
  if (input.foreground === 'shell') {
    return next(
      prev,
      'exited',
      now,
      `the shell (${input.foregroundName}) is in the foreground`,
      'foreground',
    );
  }
  const ev = input.evaluation;
  if (!ev) {
    return next(
      prev,
      'idle',
      now,
      `no manifest for the foreground process ${input.foregroundName || '(unknown)'}`,
      'foreground',
    );
  }
  if (ev.state === 'idle' && prev.state === 'working') {
    const seen = prev.idleSeenAt ?? now;
    if (now - seen < IDLE_CONFIRM_MS) return { ...prev, idleSeenAt: seen };
  }
  return next(prev, ev.state, now, ev.reason, 'screen', ev);
}
