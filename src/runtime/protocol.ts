/**
 * The control socket's protocol: one JSON object per line (UTF-8, '\n'-terminated) in both
 * directions. A client sends requests `{op, ...}`; the session answers each with one line
 * `{ok: true, op, ...}` or `{ok: false, op, error}`, naming the op it answers (`op` is null
 * for a line that was no request); a client takes only an answer naming its own op. A line
 * over {@link MAX_LINE} gets `{ok: false, op: null, error}` and the connection is closed.
 * `subscribe` keeps the connection and pushes `{event: 'state', session}` lines; `attach`
 * turns the connection into raw PTY bytes both ways after its answer line.
 */
import { StringDecoder } from 'node:string_decoder';
import type { SessionState } from '../detect/types.ts';
import { MAX_COLS, MAX_ROWS, MIN_COLS } from '../vt/screen.ts';
import { DECIDED_BY, type DecidedBy, type Foreground, type Report } from './signals.ts';

/** What a session tells about itself (`ls --json` prints these). */
export interface SessionInfo {
  id: string;
  name: string;
  /** Manifest id in force, '' when none. */
  agent: string;
  state: SessionState;
  /** When the state began, ms since the epoch. */
  since: number;
  reason: string;
  /** Which input decided the state. */
  by: InfoBy;
  /** For a working session: what the agent says it does (its spinner text), when it says. */
  activity?: string;
  /** For a blocked session: the prompt's question, when one can be read. */
  question?: string;
  /** For a blocked session: the prompt's numbered options. */
  options?: string[];
  /** For a blocked session: what the prompt is about (the command, the file, the reason). */
  details?: string[];
  /**
   * For a blocked ACP session: its pending `session/request_permission` requests, oldest first
   * (the first is the one `question`, `options` and `details` show and `answer` answers).
   */
  permissions?: PermissionAsk[];
  /** For an ACP session: the `stopReason` of its last prompt turn, once one ended. */
  stopReason?: string;
  pid: number;
  command: string[];
  /** Foreground process name. */
  foreground: string;
  rows: number;
  cols: number;
  startedAt: number;
  /** ms since the epoch of the last output. */
  lastOutput: number;
  exit?: { code: number; signal?: number } | null;
  /** Pid of the process hosting the session (a `run`, or a `watch` hosting it headless). */
  host: number;
  socket: string;
  /** A PTY session's slave path (`/dev/pts/5`): whose controlling terminal it is tells its processes. */
  tty?: string;
  /**
   * When the person last typed into the session (its own terminal, an attached one, or an
   * `answer`/`send`), ms since the epoch; absent when never.
   */
  lastInput?: number;
  /**
   * When the pane was last resized, ms since the epoch; absent when never (a PTY session). A
   * dialog redrawn at another size reads differently (rewrapped, more or less of it in sight)
   * and is still the same prompt: the notifier does not announce it again.
   */
  resizedAt?: number;
  /** True while idle and no turn happened since the session started (ready, not 'done'). */
  fresh?: boolean;
  /** The host's notification channels that failed last, `{channel: why}`; absent when none did. */
  notify?: Partial<Record<string, string>>;
}

/**
 * What decided a session's published state: a {@link DecidedBy} of its host, or `socket`,
 * which a client (the board) puts on a session whose control socket closed without its exit
 * being told (its host is gone).
 */
export type InfoBy = DecidedBy | 'socket';

/** Every {@link InfoBy}, to check one read off a socket. */
export const INFO_BY: readonly InfoBy[] = [...DECIDED_BY, 'socket'];

/**
 * One pending ACP `session/request_permission`, as published (Agent Client Protocol v1,
 * schema `RequestPermissionRequest`): the tool call it is about and the options offered.
 */
export interface PermissionAsk {
  toolCall: {
    toolCallId: string;
    title: string;
    /** ToolKind: read, edit, delete, move, search, execute, think, fetch, switch_mode, other. */
    kind: string;
    /** What the tool call would do, one line each ('command: ls -la', 'diff: /abs/file.ts'). */
    content: string[];
  };
  /** PermissionOption: kind is allow_once, allow_always, reject_once or reject_always. */
  options: { optionId: string; name: string; kind: string }[];
  /** When the request came, ms since the epoch. */
  at: number;
}

/**
 * The arguments of each op's request (the request is `{op, ...args}`), keyed by op. A field the
 * session checks itself (a state name, a size) is typed loosely where a client may send junk.
 */
export interface RequestArgs {
  info: Record<never, never>;
  screen: Record<never, never>;
  /** `alerts`: the subscriber (a board) announces the session on its own terminal. */
  subscribe: { alerts?: boolean };
  /** The attaching terminal's size, in cells (applied while it is attached). */
  attach: { rows?: number; cols?: number };
  /** The new size, in cells, within {@link SIZE_LIMITS}. */
  resize: { rows: number; cols: number };
  /**
   * Ends the session's agent: SIGHUP to its process group (as a closed terminal does), SIGKILL
   * after {@link KILL_GRACE_MS}; answered once it is gone and so is every process of its group
   * and of its PTY's foreground group (session.ts `end`: up to GROUP_GRACE_MS, then SIGKILL).
   * Same peer check as `send`.
   */
  kill: Record<never, never>;
  /** `firedAt`: when the hook fired (its process's start), ms since the epoch. */
  report: { state: string; detail?: string; firedAt?: number };
  notify: { payload: unknown; firedAt?: number };
  /** `append`: type even when the input box holds a draft (it is submitted with the text). */
  send: { text: string; enter?: boolean; append?: boolean };
  prompt: Record<never, never>;
  answer: {
    choice: string;
    confirmed: boolean;
    /** The prompt as the person confirmed it; `details` is checked when given. */
    expect: ConfirmedPrompt;
  };
  events: Record<never, never>;
  explain: Record<never, never>;
  /** ACP sessions: `session/cancel` the turn in flight (pending permissions answer `cancelled`). */
  cancel: Record<never, never>;
  /** The person's truth for a recorded session (`agentwatch mark`). */
  mark: { state: string; note?: string };
}

/** The name of an op. */
export type Op = keyof RequestArgs;

/** Every op, in the protocol's order (to tell an unknown op from a known one). */
export const OPS: readonly Op[] = [
  'info',
  'screen',
  'subscribe',
  'attach',
  'resize',
  'kill',
  'report',
  'notify',
  'send',
  'prompt',
  'answer',
  'events',
  'explain',
  'cancel',
  'mark',
];

/** True when `op` names an op of the protocol. */
export function isOp(op: unknown): op is Op {
  return typeof op === 'string' && (OPS as readonly string[]).includes(op);
}

/** The request of op `K`. */
export type RequestOf<K extends Op> = { op: K } & RequestArgs[K];

/** A request on the control socket: one of {@link RequestOf} each op. */
export type Request = { [K in Op]: RequestOf<K> }[Op];

/** A prompt as the person confirmed it (`answer`'s `expect`). */
export interface ConfirmedPrompt {
  question: string;
  options: string[];
  /** What the prompt was about when confirmed (the command, the file); checked when given. */
  details?: string[];
  /**
   * The prompt's episode: a number the session gives each prompt it shows, new whenever a
   * prompt appears after the session was not blocked or the prompt changed (a PTY pane), or
   * for each permission request (an ACP session). In `answer`'s `expect`: the episode the
   * person confirmed, as the `prompt` op gave it; the session refuses
   * when the prompt on screen is another episode, even with the same text (answered elsewhere,
   * then asked again).
   */
  episode: number;
}

/** The screen as a session shows it (`screen`). */
export interface ScreenReply {
  /** The screen's rows joined by '\n' (an ACP session: its chat transcript). */
  text: string;
  title: string;
  /** Size in cells (0 for an ACP session's transcript width). */
  rows: number;
  cols: number;
  /** 0-based cursor cell. */
  cursor: { row: number; col: number };
}

/** The prompt a blocked session waits on (`prompt`), read afresh. */
export interface PromptReply extends Required<ConfirmedPrompt> {
  /** Index of the selected option, -1 when none can be seen. */
  selected: number;
  /** How the selection moves (a PTY prompt): ↑/↓ (`vertical`) or ←/→ (`horizontal`). */
  layout?: 'vertical' | 'horizontal';
  /** Other names each option answers to (an ACP option's kind and optionId). */
  aliases?: string[][];
  /** True when what the prompt is about is not all on the screen (detect/prompt.ts). */
  detailsCut?: boolean;
}

/** Why a session is in its state, and the inputs behind it (`explain`). */
export interface ExplainReply {
  session: SessionInfo;
  decidedBy: DecidedBy;
  reason: string;
  /** The latest hook report, null when none came. */
  report: Report | null;
  foreground: Foreground;
  /** The manifest in force ('claude 3 (bundled: ...)'), a sentence when none applies. */
  manifest: string | null;
  screen: string;
  title: string;
  /** Every rule's result on the screen, formatted (detect/explain.ts). */
  rules: string;
  events: string[];
}

/** The answer fields of each op (the answer line is `{ok: true, op, ...}`), keyed by op. */
export interface Replies {
  info: { session: SessionInfo };
  screen: ScreenReply;
  /** No answer line: `{event: 'state', session}` lines ({@link StateEvent}) follow. */
  subscribe: Record<never, never>;
  /** `{ok: true, op: 'attach'}`, then the connection carries raw PTY bytes both ways. */
  attach: Record<never, never>;
  resize: Record<never, never>;
  /** How the agent ended. */
  kill: { exit: { code: number; signal?: number } | null };
  report: Record<never, never>;
  /** `ignored`: why a notification was ignored (malformed, or fired before the report kept). */
  notify: { ignored?: string };
  /** Bytes typed (PTY) or sent as a prompt (ACP). */
  send: { written: number };
  prompt: PromptReply;
  /**
   * The option chosen, as the prompt shows it; `ended`: how the session ended, when it had
   * ended by the time the answer was known (its agent exited after reading the key).
   */
  answer: { answered: string; ended?: { code: number; signal?: number } };
  events: { events: string[] };
  explain: ExplainReply;
  /** Permission requests answered `cancelled`. */
  cancel: { cancelled: number };
  /** What the recording noted (recording.ts's mark). */
  mark: { mark: unknown };
}

/** The answer line of op `K`. */
export type ReplyOf<K extends Op> = { ok: true; op: K } & Replies[K];

/**
 * A refusal line: `op` null for a line that was no request (bad JSON, no op, over-long);
 * `code` is the exit code a CLI client should end with (3: refused by the typing guard), and
 * a guard refusal carries the prompt that caused it.
 */
export interface Refusal {
  ok: false;
  op: Op | string | null;
  error: string;
  code?: number;
  question?: string;
  options?: string[];
}

/** What `subscribe` pushes: the session's info, at once and on every change. */
export interface StateEvent {
  event: 'state';
  session: SessionInfo;
}

/**
 * Size limits of a session's screen, in cells: the VT's own (src/vt/screen.ts), so a size the
 * protocol accepts is one the screen takes without clamping.
 */
export const SIZE_LIMITS = {
  minRows: 1,
  maxRows: MAX_ROWS,
  minCols: MIN_COLS,
  maxCols: MAX_COLS,
} as const;

/** True when `rows` x `cols` are whole numbers within {@link SIZE_LIMITS}. */
export function validSize(rows: unknown, cols: unknown): rows is number {
  return Number.isInteger(rows) && Number.isInteger(cols) &&
    (rows as number) >= SIZE_LIMITS.minRows && (rows as number) <= SIZE_LIMITS.maxRows &&
    (cols as number) >= SIZE_LIMITS.minCols && (cols as number) <= SIZE_LIMITS.maxCols;
}

/** How long `kill` waits after SIGHUP before SIGKILL to the agent's process group, ms. */
export const KILL_GRACE_MS = 1000;

/** The longest line either side accepts, in UTF-16 code units (about 1 MB of ASCII). */
export const MAX_LINE = 1 << 20;

/**
 * Splits a byte stream into lines; calls `onLine` for each complete line. A UTF-8 character
 * split between two chunks is decoded whole. A line longer than {@link MAX_LINE} calls
 * `onOverflow` once and ends the reader: nothing after it, in this chunk or later, is ever
 * read as a line (the tail of an over-long line must not run as a request). The caller
 * closes the connection.
 */
export function lineReader(
  onLine: (line: string) => void,
  onOverflow: () => void,
): (chunk: Buffer) => void {
  let pending = '';
  let over = false;
  const decoder = new StringDecoder('utf8');
  return (chunk) => {
    if (over) return;
    pending += decoder.write(chunk);
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      if (nl > MAX_LINE) break;
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim()) onLine(line);
    }
    if (pending.length > MAX_LINE) {
      pending = '';
      over = true;
      onOverflow();
    }
  };
}
