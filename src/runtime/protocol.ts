/**
 * The control socket's protocol: one JSON object per line (UTF-8, '\n'-terminated) in both
 * directions. A client sends requests `{op, ...}`; the session answers each with one line
 * `{ok: true, ...}` or `{ok: false, error}`. `subscribe` keeps the connection and pushes
 * `{event: 'state', session}` lines; `attach` turns the connection into raw PTY bytes both
 * ways after its answer line.
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
  /** For a blocked session: the prompt's question, when one can be read. */
  question?: string;
  /** For a blocked session: the prompt's numbered options. */
  options?: string[];
  /** For a blocked session: what the prompt is about (the command, the file, the reason). */
  details?: string[];
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
}

/** A request on the control socket. */
export type Request =
  | { op: 'info' }
  | { op: 'screen' }
  | { op: 'subscribe' }
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
  /** The person's truth for a recorded session (`agentwatch mark`). */
  | { op: 'mark'; state: string; note?: string };

/**
 * Splits a byte stream into lines; calls `onLine` for each complete line (max 1 MB a line).
 * A UTF-8 character split between two chunks is decoded whole.
 */
export function lineReader(
  onLine: (line: string) => void,
  onOverflow: () => void,
): (chunk: Buffer) => void {
  let pending = '';
  const decoder = new StringDecoder('utf8');
  return (chunk) => {
    pending += decoder.write(chunk);
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim()) onLine(line);
    }
    if (pending.length > 1 << 20) {
      pending = '';
      onOverflow();
    }
  };
}
