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
  by: string;
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
  /**
   * When the person last typed into the session (its own terminal, an attached one, or an
   * `answer`/`send`), ms since the epoch; absent when never.
   */
  lastInput?: number;
  /** True while idle and no turn happened since the session started (ready, not 'done'). */
  fresh?: boolean;
  /** The host's notification channels that failed last, `{channel: why}`; absent when none did. */
  notify?: Partial<Record<string, string>>;
}

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

/** A request on the control socket. */
export type Request =
  | { op: 'info' }
  | { op: 'screen' }
  /** `alerts`: the subscriber (a board) announces the session on its own terminal. */
  | { op: 'subscribe'; alerts?: boolean }
  | { op: 'attach'; rows?: number; cols?: number }
  | { op: 'resize'; rows: number; cols: number }
  | { op: 'kill' }
  /** `firedAt`: when the hook fired (its process's start), ms since the epoch. */
  | { op: 'report'; state: string; detail?: string; firedAt?: number }
  | { op: 'notify'; payload: unknown; firedAt?: number }
  /** `append`: type even when the input box holds a draft (it is submitted with the text). */
  | { op: 'send'; text: string; enter?: boolean; append?: boolean }
  | { op: 'prompt' }
  | {
    op: 'answer';
    choice: string;
    confirmed: boolean;
    /** The prompt as the person confirmed it; `details` is checked when given. */
    expect: { question: string; options: string[]; details?: string[] };
  }
  | { op: 'events' }
  | { op: 'explain' }
  /** ACP sessions: `session/cancel` the turn in flight (pending permissions answer `cancelled`). */
  | { op: 'cancel' }
  /** The person's truth for a recorded session (`agentwatch mark`). */
  | { op: 'mark'; state: string; note?: string };

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
