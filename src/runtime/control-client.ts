/**
 * Talks to one session's control socket: asks it a request, follows its state events,
 * attaches a terminal to it, reads its prompt and answers it. Finding the sessions of this
 * machine is `session-directory.ts`'s.
 */
import { createConnection, type Socket } from 'node:net';
import {
  type ConfirmedPrompt,
  INFO_BY,
  lineReader,
  MAX_LINE,
  type Op,
  type ReplyOf,
  type Request,
  type RequestArgs,
  type SessionInfo,
} from './protocol.ts';
import { UserError } from '../errors.ts';
import { SESSION_STATES } from '../detect/types.ts';

/**
 * The exit code of a command whose session's host did not answer in time (it is busy: a
 * loaded machine, or stopped: SIGSTOP, a debugger): 6. The session may well be alive; what a
 * request it was sent did is not known.
 */
export const NO_ANSWER_EXIT = 6;

/**
 * Sends `req` to the socket at `path` and resolves with the first answer line, which must
 * name `req.op` (or be a refusal naming none: a bad or over-long line).
 * @throws UserError when nothing listens there, the answer is `ok: false` (its `error` as
 *   the message, as the session wrote it: print it through `printable`), names another op,
 *   or no answer comes within `timeoutMs` (exit code {@link NO_ANSWER_EXIT}; the message
 *   then ends "(its host is busy or stopped)"), or the connection closes with none (exit code
 *   {@link NO_ANSWER_EXIT}).
 */
export function request<T = Record<string, unknown>>(
  path: string,
  req: Request,
  timeoutMs = 2000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const c = createConnection(path);
    // Node runs due timers before it reads the sockets: a client that got no CPU for longer
    // than the timeout (a loaded machine) would call an answer waiting unread "none". The
    // timeout is decided after one more look at the sockets (setImmediate runs after it).
    const timer = setTimeout(() =>
      setImmediate(() => {
        c.destroy();
        reject(
          new UserError(
            `${path}: no answer within ${timeoutMs} ms (its host is busy or stopped)`,
            NO_ANSWER_EXIT,
          ),
        );
      }), timeoutMs);
    c.on('error', (e) => {
      clearTimeout(timer);
      reject(
        new UserError(
          `${path}: ${
            (e as NodeJS.ErrnoException).code === 'ENOENT'
              ? 'no such session socket'
              : (e as NodeJS.ErrnoException).code ?? e.message
          }`,
        ),
      );
    });
    c.on('connect', () => c.write(JSON.stringify(req) + '\n'));
    let replied = false;
    // Closed with no answer: said at once, not after the timeout (a host that ended while the
    // request was in flight; its own answers leave first, see closeControl).
    c.on('close', () => {
      if (replied) return;
      clearTimeout(timer);
      reject(
        new UserError(
          `${path}: the connection closed before an answer (the session ended, or its host ` +
            'did); what was asked is not known',
          NO_ANSWER_EXIT,
        ),
      );
    });
    c.on(
      'data',
      lineReader((line) => {
        if (replied) return;
        replied = true;
        clearTimeout(timer);
        c.end();
        let answer: { ok?: boolean; error?: string; op?: unknown };
        try {
          answer = JSON.parse(line);
        } catch {
          reject(new UserError(`${path}: unreadable answer`));
          return;
        }
        if (answer?.op !== req.op && !(answer?.ok === false && answer?.op === null)) {
          // An answer to another request (or from something that is not a session).
          reject(new UserError(`${path}: the answer is not for '${req.op}'`));
          return;
        }
        if (answer.ok === false) {
          const code = (answer as { code?: unknown }).code;
          reject(
            new UserError(answer.error ?? 'request refused', typeof code === 'number' ? code : 1),
          );
        } else resolve(answer as T);
      }, () => reject(new UserError(`${path}: answer too long`))),
    );
  });
}

/**
 * Sends op `op` with `args` to the socket at `path`; resolves with that op's answer line
 * ({@link ReplyOf}). Errors as {@link request}.
 */
export function requestOp<K extends Op>(
  path: string,
  op: K,
  args: RequestArgs[K],
  timeoutMs = 2000,
): Promise<ReplyOf<K>> {
  return request<ReplyOf<K>>(path, { ...args, op } as Request, timeoutMs);
}

const STATES: ReadonlySet<string> = new Set(SESSION_STATES);
const BY: ReadonlySet<string> = new Set(INFO_BY);

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/**
 * `value` as a {@link SessionInfo} when it has the shape of one, else null: every required
 * field present with its type (id and socket not empty, state one of {@link SESSION_STATES}, `by` one
 * of {@link INFO_BY}), `exit` null,
 * absent or `{code, signal?}`. Optional fields of the wrong type (activity, question, options,
 * details) are left out. A session socket answers with whatever it likes: what the board and
 * `ls` use must not crash them.
 */
export function sessionInfoOf(value: unknown): SessionInfo | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const exit = v.exit;
  const exitOk = exit === undefined || exit === null ||
    (typeof exit === 'object' && isNumber((exit as Record<string, unknown>).code) &&
      ((exit as Record<string, unknown>).signal === undefined ||
        isNumber((exit as Record<string, unknown>).signal)));
  const ok = isString(v.id) && v.id !== '' && isString(v.name) && isString(v.agent) &&
    isString(v.state) && STATES.has(v.state) && isNumber(v.since) && isString(v.reason) &&
    isString(v.by) && BY.has(v.by) && isNumber(v.pid) && isStrings(v.command) &&
    isString(v.foreground) &&
    isNumber(v.rows) && isNumber(v.cols) && isNumber(v.startedAt) &&
    isNumber(v.lastOutput) && isNumber(v.host) && isString(v.socket) && v.socket !== '' &&
    exitOk;
  if (!ok) return null;
  const info = { ...v } as unknown as SessionInfo;
  if (info.question !== undefined && !isString(info.question)) delete info.question;
  if (info.activity !== undefined && !isString(info.activity)) delete info.activity;
  if (info.fresh !== undefined && info.fresh !== true) delete info.fresh;
  if (info.tty !== undefined && !isString(info.tty)) delete info.tty;
  if (info.resizedAt !== undefined && !isNumber(info.resizedAt)) delete info.resizedAt;
  if (info.options !== undefined && !isStrings(info.options)) delete info.options;
  if (info.details !== undefined && !isStrings(info.details)) delete info.details;
  if (
    info.notify !== undefined &&
    (typeof info.notify !== 'object' || info.notify === null || Array.isArray(info.notify) ||
      !Object.values(info.notify).every(isString))
  ) delete info.notify;
  return info;
}

/**
 * Follows a session's state: calls `onInfo` with each state line until the socket closes
 * (lines whose session is not a valid {@link SessionInfo} are ignored).
 */
export function subscribe(
  path: string,
  onInfo: (info: SessionInfo) => void,
  onClose: () => void,
  /** `alerts`: this subscriber (a board) announces the session on its own terminal. */
  opts: { alerts?: boolean } = {},
): Socket {
  const c = createConnection(path);
  c.on('error', () => {});
  c.on('close', onClose);
  c.on('connect', () => {
    c.write(
      JSON.stringify(opts.alerts ? { op: 'subscribe', alerts: true } : { op: 'subscribe' }) + '\n',
    );
  });
  c.on(
    'data',
    lineReader((line) => {
      try {
        const info = sessionInfoOf(JSON.parse(line)?.session);
        if (info) onInfo(info);
      } catch {
        // ignore a garbled line
      }
    }, () => c.destroy()),
  );
  return c;
}

/**
 * A blocked session's prompt as its `prompt` op tells it (the typing guard reads it off the
 * screen: see `readPrompt` in typing-guard.ts), checked for shape.
 */
export interface PromptReply {
  /** The question line ('' when the dialog has none). */
  question: string;
  /** The numbered options as shown ('1. Yes', ...); empty when none is drawn (yet). */
  options: string[];
  /** 0-based index of the option the dialog marks, -1 when none. */
  selected: number;
  /** What the prompt is about (the command, the file, the reason); [] from hosts without. */
  details: string[];
  /** Other names of each option (an ACP option's kind and optionId), when the session has them. */
  aliases?: string[][];
  /** True when what the prompt approves is not all visible in the pane. */
  detailsCut?: boolean;
  /** The prompt's episode, for `answer`'s `expect` (protocol.ts ConfirmedPrompt.episode). */
  episode: number;
}

/** How long reading a prompt may take by default, ms. */
export const PROMPT_TIMEOUT_MS = 5000;
/**
 * How long an answer may take by default, ms: the session lets a new dialog settle, moves its
 * selection key by key, and watches the prompt leave (typing-guard.ts guardedAnswer: 3 s, 10 s
 * for an agent silent after the key), for up to RESTART_WAIT_MS (45 s) more when the agent
 * restarted itself after reading the key (Gemini CLI 0.61.0's folder-trust dialog; 10 s was
 * too short for it: the board said "no answer within 10000 ms" although the dialog was
 * answered).
 */
export const ANSWER_TIMEOUT_MS = 75_000;

/**
 * `value` as a {@link PromptReply} when it has the shape of one (a session answers what it
 * likes), else null: question a string, options strings, selected a number, details and
 * aliases absent or strings.
 */
export function promptReplyOf(value: unknown): PromptReply | null {
  if (typeof value !== 'object' || value === null) return null;
  const { question, options, selected, details, aliases, detailsCut, episode } = value as Record<
    string,
    unknown
  >;
  if (
    typeof question !== 'string' || !isStrings(options) || typeof selected !== 'number' ||
    typeof episode !== 'number' ||
    (details !== undefined && !isStrings(details)) ||
    (aliases !== undefined && !(Array.isArray(aliases) && aliases.every(isStrings)))
  ) return null;
  return {
    question,
    options,
    selected,
    details: details ?? [],
    episode,
    ...(aliases === undefined ? {} : { aliases: aliases as string[][] }),
    ...(detailsCut === true ? { detailsCut: true } : {}),
  };
}

/**
 * Reads the prompt of the session at `path` (the `prompt` op).
 * @throws UserError as {@link request} does (a session that is not blocked refuses), or when
 *   the answer is not a prompt's shape.
 */
export async function readPrompt(
  path: string,
  timeoutMs = PROMPT_TIMEOUT_MS,
): Promise<PromptReply> {
  const p = promptReplyOf(await request<unknown>(path, { op: 'prompt' }, timeoutMs));
  if (!p) throw new UserError('the session answered with a malformed prompt');
  return p;
}

/**
 * Answers the prompt of the session at `path` with option `choice` (1-based), the person
 * having confirmed `expect` (the prompt as read with {@link readPrompt} and shown to them):
 * the session classifies afresh right before writing and refuses when the prompt on its
 * screen is not that one any more (also when it is the same text shown again: another
 * `episode`). Returns the option written, as the session names it, and how the session ended
 * when it ended after reading the key (`ended`, else absent).
 * @throws UserError as {@link request} does; exit code 3 (`GUARD_EXIT`) when the typing
 *   guard refused (not blocked, not the prompt confirmed, asked from inside a session).
 */
export async function answerPrompt(
  path: string,
  choice: number,
  expect: ConfirmedPrompt,
  timeoutMs = ANSWER_TIMEOUT_MS,
): Promise<{ answered: string; ended?: { code: number; signal?: number } }> {
  const done = await request<{ answered?: unknown; ended?: unknown }>(path, {
    op: 'answer',
    choice: String(choice),
    confirmed: true,
    expect,
  }, timeoutMs);
  const ended = done.ended as { code?: unknown; signal?: unknown } | undefined;
  const shaped = ended && typeof ended === 'object' && isNumber(ended.code) &&
    (ended.signal === undefined || isNumber(ended.signal));
  return {
    answered: String(done.answered ?? ''),
    ...(shaped
      ? {
        ended: {
          code: ended.code as number,
          ...(ended.signal === undefined ? {} : { signal: ended.signal as number }),
        },
      }
      : {}),
  };
}

/** {@link answerPrompt}'s option alone. */
export async function sendAnswer(
  path: string,
  choice: number,
  expect: ConfirmedPrompt,
  timeoutMs = ANSWER_TIMEOUT_MS,
): Promise<string> {
  return (await answerPrompt(path, choice, expect, timeoutMs)).answered;
}

/** How a session ended, as `answer` says it: 'exit code 199', 'signal 1'. */
export function endedText(exit: { code: number; signal?: number }): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

/** What an {@link attach} tells its caller. */
export interface AttachHandlers {
  /** The session accepted: its redraw and output follow through `onOutput`. */
  onReady?(): void;
  /** Bytes from the session's PTY (the redraw first), once ready. */
  onOutput(data: Buffer): void;
  /**
   * Attaching failed before the session accepted: `why` is the connection's error code, or
   * the session's refusal (as it wrote it: print it through `printable`).
   */
  onFail(why: string): void;
  /** The connection closed after the session accepted (the session ended, or its host). */
  onEnd(): void;
}

/** A terminal attached to a session (see {@link attach}). */
export interface Attachment {
  /** Sends the person's bytes to the session; those sent before it accepted are queued. */
  write(data: Uint8Array): void;
  /** Detaches (closes the connection); no handler is called after. Idempotent. */
  close(): void;
}

/**
 * Attaches a terminal of `rows` x `cols` cells to the session at `path` (the `attach` op):
 * after the session's `{ok: true}` line, raw bytes flow both ways (its redraw, then its PTY's
 * output; the person's keys). The session takes the terminal's size while it is attached.
 */
export function attach(
  path: string,
  size: { rows: number; cols: number },
  h: AttachHandlers,
): Attachment {
  const sock: Socket = createConnection(path);
  let ready = false;
  let closed = false;
  let queue: Buffer[] = [];
  let pending = Buffer.alloc(0);
  const fail = (why: string) => {
    if (closed) return;
    closed = true;
    sock.destroy();
    h.onFail(why);
  };
  sock.on('error', (e) => {
    if (!ready) fail((e as NodeJS.ErrnoException).code ?? e.message);
  });
  sock.on('connect', () => {
    sock.write(JSON.stringify({ op: 'attach', rows: size.rows, cols: size.cols }) + '\n');
  });
  sock.on('data', (d: Buffer) => {
    if (closed) return;
    if (ready) return h.onOutput(d);
    pending = Buffer.concat([pending, d]);
    const nl = pending.indexOf(0x0a);
    if (nl < 0) {
      if (pending.length > MAX_LINE) fail('answer too long');
      return;
    }
    let answer: { ok?: unknown; error?: unknown } = {};
    try {
      answer = JSON.parse(pending.subarray(0, nl).toString('utf8'));
    } catch {
      // not an answer line
    }
    if (answer?.ok !== true) {
      return fail(typeof answer?.error === 'string' ? answer.error : 'unexpected answer');
    }
    ready = true;
    h.onReady?.();
    const rest = pending.subarray(nl + 1);
    pending = Buffer.alloc(0);
    if (rest.length) h.onOutput(rest);
    for (const q of queue) sock.write(q);
    queue = [];
  });
  sock.on('close', () => {
    if (closed) return;
    closed = true;
    if (ready) h.onEnd();
    else h.onFail('the session closed the connection');
  });
  return {
    write(data) {
      if (closed || sock.destroyed) return;
      if (ready) sock.write(data);
      else queue.push(Buffer.from(data));
    },
    close() {
      if (closed) return;
      closed = true;
      sock.destroy();
    },
  };
}
