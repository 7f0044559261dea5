/**
 * Combines a session's signals into its state: a pure function of the previous record, the
 * latest inputs and an injected `now` (ms), so tests need no timers.
 *
 * Order (DESIGN.md "How the signals combine", and its decision on the foreground):
 * 1. the PTY child exited -> `exited`;
 * 2. a shell holds the foreground -> `exited` when an agent ran in the pane before (it ended),
 *    `shell` when none ever did, whatever the screen still shows;
 * 2b. a command that is no agent holds the foreground and no manifest applies -> `running`;
 * 3. a `blocked` read from the screen always counts (the one alert never suppressed);
 * 4. a recent report from the agent (hooks: `report`, `notify`) -> its state;
 * 5. the other screen rules (working, idle; no rule matched -> idle).
 *
 * Reports go stale or go missing (a hook failed silently, the person pressed Esc and no hook
 * fired), so a report stops counting when:
 * - the screen contradicts it: after the report, a working or idle rule matched and no blocked
 *   rule did, and either the screen had agreed with the report since it came, or
 *   {@link REPORT_GRACE_MS} passed; an in-band state (an OSC rule) that has not changed since
 *   a working or idle report came is older than that report and does not contradict it, while
 *   the screen's rules beneath it do once they agreed with the report since it came (a new turn
 *   the in-band state has not told yet). A prompt is drawn about 0.2 s after its
 *   PermissionRequest hook (Claude Code 2.1.332, fixtures/claude-code/README.md "Hooks"). A blocked report
 *   that comes after the screen showed a dialog since the previous report is that dialog's
 *   (a slow hook can report after the person answered) and counts as agreed;
 * - it is older than the TTL and the screen does not agree;
 * - the agent's in-band state (an OSC rule) changed after the report's hook fired, to a state
 *   that is not the report's: the agent said something newer (a Stop report that comes after
 *   the next prompt made Claude Code's OSC 7501 say working again: agentwatch's hooks run in
 *   the background and can report late).
 * A session that has only started is idle. Working -> idle read from the screen waits for a
 * second evaluation {@link IDLE_CONFIRM_MS} later (spinner frames flicker); nothing waits
 * before `blocked`.
 */
import type { Evaluation, RuleState, SessionState } from '../detect/types.ts';

/** Time a working -> idle read off the screen must hold before it counts, ms. */
export const IDLE_CONFIRM_MS = 250;
/** Time after a report during which a contradicting screen is not yet trusted, ms. */
export const REPORT_GRACE_MS = 1500;
/** Default lifetime of a report the screen does not agree with, ms. */
export const DEFAULT_REPORT_TTL_MS = 60_000;
/**
 * How long a starting agent's screen (no rule matched, no input box drawn yet) may stay still
 * before it stops reading working, ms. Qwen Code 0.24.4 draws its composer about 4 s after it
 * starts and animates a spinner meanwhile; a screen that no rule knows and that has not changed
 * for this long is no start-up any more but a screen waiting for the person (a dialog no rule
 * knows yet): it reads idle, so that `wait --until idle` returns and the board stops saying
 * "starting".
 */
export const STARTING_STILL_MS = 45_000;

/**
 * The reason of a pane whose agent has drawn nothing yet (its screen blank since it started):
 * starting, read as working; `send` types nothing into it.
 */
export const NOTHING_DRAWN = 'starting: nothing drawn yet';

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

/** Options of a shell (bash 5, dash, zsh) whose value is the next argument. */
const SHELL_VALUE_OPTIONS = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);

/**
 * True when a shell started with `argv` (argv[0] first) runs a script instead of waiting at
 * its prompt for a person: a command string (`bash -c 'a; b'`, grouped as in `sh -ec`, fish's
 * `--command`, nu's `--commands`, pwsh's `-Command` and `-File`) or a script file operand
 * (`bash deploy.sh`), as bash(1) INVOCATION and dash(1) describe them. Options that take a
 * value (`-o vi`, `-O extglob`, `--rcfile F`) are skipped with it; `-i`, `-l`, `-s` (commands
 * from standard input) leave it a prompt; so does an argv that could not be read (empty).
 */
export function shellRunsScript(argv: readonly string[]): boolean {
  for (let k = 1; k < argv.length; k++) {
    const a = argv[k];
    if (a === '--') return k + 1 < argv.length;
    if (SHELL_VALUE_OPTIONS.has(a)) {
      k++;
      continue;
    }
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || /^--?(?:command|commands|file)$/i.test(a)) return true;
    if (a.startsWith('-') || a.startsWith('+')) continue;
    return true;
  }
  return false;
}

/** Who holds the terminal, as the runtime sees it. */
export type ForegroundKind = 'agent' | 'shell' | 'other' | 'unknown';

/**
 * Who holds a pane's terminal: the foreground process group's leader as read
 * (`foreground.ts`), and what the runtime makes of it. One shape for the sweep, `explain` and
 * an ACP pane (whose agent is its own foreground).
 */
export interface Foreground {
  kind: ForegroundKind;
  /** The leader's executable name, '' when unknown. */
  name: string;
  /** The leader's arguments, argv[0] first; [] when unknown. */
  argv: readonly string[];
  /** The foreground process group id, 0 when unknown. */
  pgid: number;
}

/** A foreground read, before it is classified: what a foreground reader returns. */
export type ForegroundRead = Omit<Foreground, 'kind'>;

/** No foreground known (not read yet, the child exited, or the read failed). */
export const UNKNOWN_FOREGROUND: Foreground = Object.freeze({
  kind: 'unknown',
  name: '',
  argv: [],
  pgid: 0,
});

/** Which signal decided a state (`acp`: an ACP session's protocol facts, `acp-state.ts`). */
export type DecidedBy = 'exit' | 'foreground' | 'screen' | 'osc' | 'report' | 'start' | 'acp';

/** Every {@link DecidedBy}, to check one read off a socket. */
export const DECIDED_BY: readonly DecidedBy[] = [
  'exit',
  'foreground',
  'screen',
  'osc',
  'report',
  'start',
  'acp',
];

/**
 * A manifest rule reads the screen, or a state the agent reported in-band (a rule on an OSC
 * payload, such as Codex's and Claude Code's OSC 7501): `osc` then, for explain and the board.
 */
function byRule(ev: Evaluation): DecidedBy {
  return ev.region?.startsWith('osc') ? 'osc' : 'screen';
}

/** What an agent said about itself (a hook), with when its hook fired. */
export interface Report {
  state: RuleState;
  /** When the hook fired (the hook process's start), ms since the epoch; never after arrival. */
  at: number;
  /** Where it came from: 'report working', 'notify permission_prompt', 'hook PreToolUse', ... */
  source: string;
}

/**
 * Which report a session keeps when `incoming` arrives while it keeps `current` (null: none
 * yet): the one whose hook FIRED last, not the one that arrived last. Claude Code 2.1.332 runs
 * a hook marked `async: true` in the background and goes on (agentwatch's own hooks are, see
 * integrations/claude-code.ts), so a hook process that starts slowly on a loaded machine
 * reports after one fired later: a Stop report can arrive before the PreToolUse report of the
 * turn's last tool call, which must not make the finished turn read working again.
 * - `incoming` fired after `current` (or there is none): `incoming`;
 * - fired in the same millisecond: `incoming` (which fired first cannot be told; it arrived
 *   last), with `at` 1 ms after `current`'s, since {@link decide} tells reports apart by `at`;
 * - fired before `current`: null (stale, ignore it).
 * Pure.
 */
export function laterReport(current: Report | null, incoming: Report): Report | null {
  if (!current || incoming.at > current.at) return incoming;
  if (incoming.at === current.at) return { ...incoming, at: current.at + 1 };
  return null;
}

/** Everything the decision reads. */
export interface SignalInput {
  /** Current time, ms. */
  now: number;
  /** The screen rules' evaluation; null when no manifest applies. */
  evaluation: Evaluation | null;
  foreground: ForegroundKind;
  /** Name of the foreground process leader, '' when unknown. */
  foregroundName: string;
  /** The PTY child's exit, null while it runs. */
  exit: { code: number; signal?: number } | null;
  /** The latest report received, null when none ever came. */
  report: Report | null;
  /** How long a report lives unless the screen agrees, ms. */
  reportTtlMs?: number;
  /**
   * Whether the agent's input box is drawn, when its manifest says what it looks like (`[input]
   * box`) and it was never seen yet; absent otherwise. While it was never drawn, a screen no rule
   * matches is an agent still starting: working, not idle (Qwen Code 0.24.4's blank screen and
   * banner before its composer).
   */
  inputDrawn?: boolean;
  /**
   * Whether the screen is blank (every row empty), while it was never seen drawn; absent once it
   * was. A pane whose agent has drawn nothing yet is starting, whatever its manifest (opencode
   * 1.18.33 in the background host stayed blank for minutes: tester3), not ready for a task.
   */
  blank?: boolean;
  /**
   * When the screen last changed, ms (absent: unknown). A starting screen (see `inputDrawn`)
   * still for {@link STARTING_STILL_MS} reads like any screen no rule matched: idle.
   */
  screenChangedAt?: number;
}

/** A session's state, since when, why, and what the decision remembers between evaluations. */
export interface StateRecord {
  state: SessionState;
  /** When this state began, ms. */
  since: number;
  /** Human-readable reason. */
  reason: string;
  by: DecidedBy;
  /** While a working -> idle change waits for confirmation: when idle was first read, ms. */
  idleSeenAt?: number;
  /** The evaluation behind the state. */
  evaluation?: Evaluation;
  /** `at` of the report that the screen has agreed with since it came. */
  reportAgreedAt?: number;
  /** `at` of the last report that stopped counting. */
  reportDroppedAt?: number;
  /** `at` of the latest report the decision has seen (to tell a new report from an old one). */
  reportSeenAt?: number;
  /** True when the screen read blocked since the latest report came. */
  blockedSinceReport?: boolean;
  /**
   * The state the agent's in-band signal (an OSC rule: Claude Code's OSC 7501) said when the
   * latest report came, while it has said the same since; absent otherwise. That signal is then
   * older news than the report and does not contradict it (see {@link decide}).
   */
  oscAtReport?: RuleState;
  /**
   * The state the agent's in-band signal (an OSC rule) said when last read (a screen rule that
   * outranks it, a dialog, leaves it as it was); absent until first read.
   */
  oscState?: RuleState;
  /** When {@link oscState} last changed from one state to another, ms; absent until it did. */
  oscChangedAt?: number;
  /** True when the last evaluation read blocked off the screen. */
  screenBlocked?: boolean;
  /** When the screen last stopped reading blocked (a dialog answered or dismissed), ms. */
  screenUnblockedAt?: number;
  /** True once an agent held the pane's foreground (a shell back in front then means it ended). */
  agentSeen?: boolean;
  /** True once the agent's input box was drawn (see {@link SignalInput.inputDrawn}). */
  inputSeen?: boolean;
  /** True once the screen was seen with anything drawn on it (see {@link SignalInput.blank}). */
  drawnSeen?: boolean;
  /**
   * True once the session read idle from a rule, a report or its drawn input box (its agent was
   * ready for a task); false again once the agent ended and its shell is back.
   */
  ready?: boolean;
  /**
   * True once it read working or blocked after it was ready: a turn happened (idle is 'done');
   * false again once the agent ended and its shell is back.
   */
  worked?: boolean;
  /**
   * True while it reads working because its agent is starting (no rule matched, no input box
   * yet): the pane evaluates again once the screen has been still for {@link STARTING_STILL_MS}.
   */
  starting?: boolean;
  /**
   * True once a starting screen stayed still past {@link STARTING_STILL_MS}: it is not
   * starting any more, whatever it shows next (the person moving a selection in it).
   */
  startingEnded?: boolean;
}

/**
 * The record of a session that has just started, before anything was looked at: working
 * (starting) when its agent is known (`starting`: 'box' when its manifest says what its input
 * box looks like, which is not drawn yet, see {@link SignalInput.inputDrawn}; 'blank' for any
 * other agent: nothing drawn yet, see {@link NOTHING_DRAWN}), so that `wait --until idle` waits
 * for a look; idle for a command that is no agent (nothing to start).
 */
export function initialState(now: number, starting: 'box' | 'blank' | false = false): StateRecord {
  if (starting === 'box') {
    return { state: 'working', since: now, reason: 'starting: no input box yet', by: 'start' };
  }
  if (starting === 'blank') {
    return { state: 'working', since: now, reason: NOTHING_DRAWN, by: 'start' };
  }
  return { state: 'idle', since: now, reason: 'started', by: 'start' };
}

function next(
  prev: StateRecord,
  state: SessionState,
  now: number,
  reason: string,
  by: DecidedBy,
  memo: Memo,
  evaluation?: Evaluation,
): StateRecord {
  const since = prev.state === state ? prev.since : now;
  const worked = memo.worked || (memo.ready && (state === 'working' || state === 'blocked'));
  // Ready: idle as a rule, a report or the agent's drawn input box says, not merely because
  // nothing was recognised yet (the blank screen before Claude Code's trust dialog: answering
  // that dialog is no task) nor because the session just started.
  const fallback = by === 'start' ||
    (by === 'screen' && evaluation?.rule === null && !memo.inputSeen);
  const ready = memo.ready || (state === 'idle' && !fallback);
  return { state, since, reason, by, evaluation, ...memo, ready, worked };
}

/** What the decision remembers about reports between evaluations. */
type Memo = Pick<
  StateRecord,
  | 'reportAgreedAt'
  | 'reportDroppedAt'
  | 'reportSeenAt'
  | 'blockedSinceReport'
  | 'oscAtReport'
  | 'oscState'
  | 'oscChangedAt'
  | 'screenBlocked'
  | 'screenUnblockedAt'
  | 'agentSeen'
  | 'inputSeen'
  | 'drawnSeen'
  | 'ready'
  | 'worked'
  | 'startingEnded'
>;

/** The state a screen evaluation reads from a matched rule, or null when no rule matched. */
function screenRule(ev: Evaluation | null): RuleState | null {
  return ev && ev.rule !== null ? ev.state : null;
}

/** Decides the state from `input`; `prev` is the last record. */
export function decide(prev: StateRecord, input: SignalInput): StateRecord {
  const { now } = input;
  const ev = input.evaluation;
  const seen = screenRule(ev);
  const osc = ev && ev.rule !== null && byRule(ev) === 'osc' ? ev.state : undefined;

  // Which report still counts (computed first so the memo is kept whatever decides).
  const r = input.report;
  let memo: Memo = {
    reportAgreedAt: prev.reportAgreedAt,
    reportDroppedAt: prev.reportDroppedAt,
    reportSeenAt: prev.reportSeenAt,
    blockedSinceReport: prev.blockedSinceReport,
    oscAtReport: prev.oscAtReport,
    oscState: osc ?? prev.oscState,
    oscChangedAt: osc !== undefined && prev.oscState !== undefined && osc !== prev.oscState
      ? now
      : prev.oscChangedAt,
    screenBlocked: ev?.state === 'blocked',
    screenUnblockedAt: prev.screenBlocked && ev?.state !== 'blocked' ? now : prev.screenUnblockedAt,
    agentSeen: prev.agentSeen || input.foreground === 'agent',
    inputSeen: prev.inputSeen || input.inputDrawn === true,
    drawnSeen: prev.drawnSeen || input.blank === false,
    ready: prev.ready,
    worked: prev.worked,
    startingEnded: prev.startingEnded,
  };
  if (r && r.at !== memo.reportSeenAt) {
    // A new report. A hook runs as a process and may report late: a blocked report (e.g.
    // PermissionRequest, fired as the dialog is drawn) that comes after the screen already
    // showed a dialog since the previous report (PreToolUse, fired before Claude Code asks) is
    // about that dialog, even when the person has answered it meanwhile.
    // It counts as agreed, so a working or idle screen clears it at once, not after the grace.
    if (r.state === 'blocked' && memo.blockedSinceReport) memo = { ...memo, reportAgreedAt: r.at };
    memo = {
      ...memo,
      reportSeenAt: r.at,
      blockedSinceReport: false,
      oscAtReport: ev && ev.rule !== null && byRule(ev) === 'osc' ? ev.state : undefined,
    };
  } else if (
    memo.oscAtReport !== undefined &&
    !(ev && ev.rule !== null && byRule(ev) === 'osc' && ev.state === memo.oscAtReport)
  ) {
    memo = { ...memo, oscAtReport: undefined }; // the in-band state changed since the report
  }
  if (ev && ev.state === 'blocked') memo = { ...memo, blockedSinceReport: true };
  let report: Report | null = null;
  if (r && memo.reportDroppedAt !== r.at) {
    // The screen agrees when its rules read the report's state, beneath an OSC rule too.
    const beneath = ev?.screenState;
    if (seen === r.state || beneath === r.state) memo = { ...memo, reportAgreedAt: r.at };
    // An in-band state unchanged since a working or idle report came is older news than it:
    // Claude Code 2.1.332 keeps OSC 7501 at `working` while its Stop hook runs and says `done`
    // a second or more after the hook reported (more on a loaded machine). A blocked report
    // still needs the screen (its dialog) within the grace.
    // That unchanged in-band state hides a new turn, though (Claude Code starts the next turn
    // before it ever says `done` when the person is quick): the screen beneath it, which
    // agreed with the report since it came and now reads otherwise, contradicts it.
    const staleOsc = r.state !== 'blocked' && memo.oscAtReport !== undefined;
    const contradicted = staleOsc
      ? beneath != null && beneath !== 'blocked' && beneath !== r.state &&
        memo.reportAgreedAt === r.at
      : seen !== null && seen !== 'blocked' && seen !== r.state &&
        (memo.reportAgreedAt === r.at || now - r.at >= REPORT_GRACE_MS);
    const expired = seen !== r.state && now - r.at >= (input.reportTtlMs ?? DEFAULT_REPORT_TTL_MS);
    // A report's `at` is when its hook fired. A blocked report fired before a dialog left the
    // screen announced that dialog, which has been answered: it no longer counts, however
    // late the hook's process got to report it.
    const answered = r.state === 'blocked' && memo.screenUnblockedAt !== undefined &&
      r.at < memo.screenUnblockedAt && ev?.state !== 'blocked';
    // The agent's in-band state changed after the hook fired, to another state: newer news.
    const overtaken = osc !== undefined && osc !== r.state && memo.oscChangedAt !== undefined &&
      memo.oscChangedAt > r.at;
    if (contradicted || expired || answered || overtaken) {
      memo = { ...memo, reportDroppedAt: r.at };
    } else report = r;
  }

  if (input.exit) {
    const how = input.exit.signal ? `signal ${input.exit.signal}` : `code ${input.exit.code}`;
    return next(prev, 'exited', now, `process exited with ${how}`, 'exit', memo);
  }
  if (input.foreground === 'shell') {
    if (!memo.agentSeen) {
      return next(
        prev,
        'shell',
        now,
        `${input.foregroundName} is waiting for a command`,
        'foreground',
        memo,
      );
    }
    // The agent ended: one started again in this shell is a new run, ready for no task yet,
    // its input box not drawn yet, starting again.
    return next(
      prev,
      'exited',
      now,
      `the agent ended: the shell (${input.foregroundName}) is back in the foreground`,
      'foreground',
      {
        ...memo,
        ready: false,
        worked: false,
        inputSeen: false,
        drawnSeen: false,
        startingEnded: false,
      },
    );
  }
  if (input.foreground === 'other' && !ev) {
    return next(prev, 'running', now, `running ${input.foregroundName}`, 'foreground', memo);
  }
  if (ev && ev.state === 'blocked') {
    return next(prev, 'blocked', now, ev.reason, byRule(ev), memo, ev);
  }
  if (report) {
    // No age in the reason: it is published when it changes, and ages change all the time.
    return next(
      prev,
      report.state,
      now,
      report.source,
      'report',
      memo,
      ev ?? undefined,
    );
  }
  if (!ev) {
    const who = input.foregroundName || '(unknown)';
    return next(
      prev,
      'idle',
      now,
      `no manifest for the foreground process ${who}`,
      'foreground',
      memo,
    );
  }
  // Nothing drawn yet, and the agent said nothing either (a hook's report says it runs; its
  // title or in-band state saying it is ready does not: Gemini CLI 0.61.0 titles itself
  // "◇  Ready (proj)" a second or more before it draws anything, its folder-trust dialog first).
  const saysReady = ev.rule !== null && ev.state === 'idle' &&
    (ev.region === 'title' || byRule(ev) === 'osc');
  if (
    (ev.rule === null || saysReady) && input.blank === true && !memo.drawnSeen && r === null
  ) {
    return next(prev, 'working', now, NOTHING_DRAWN, 'screen', memo);
  }
  if (ev.rule === null && input.inputDrawn === false && !memo.inputSeen && !memo.startingEnded) {
    const still = input.screenChangedAt === undefined ? 0 : now - input.screenChangedAt;
    if (still < STARTING_STILL_MS) {
      return {
        ...next(
          prev,
          'working',
          now,
          'starting: no rule matched, no input box yet',
          'screen',
          memo,
        ),
        starting: true,
      };
    }
    return next(
      prev,
      ev.state,
      now,
      `no rule matched, no input box, the screen still for ${
        Math.round(still / 1000)
      } s: not starting any more`,
      'screen',
      { ...memo, startingEnded: true },
      ev,
    );
  }
  // (a start-up that drew its first screen is no spinner flickering: no confirmation)
  if (ev.state === 'idle' && prev.state === 'working' && prev.reason !== NOTHING_DRAWN) {
    const first = prev.idleSeenAt ?? now;
    if (now - first < IDLE_CONFIRM_MS) return { ...prev, ...memo, idleSeenAt: first };
  }
  return next(prev, ev.state, now, ev.reason, byRule(ev), memo, ev);
}
