/**
 * Talks to one session's control socket: asks it a request, follows its state events,
 * attaches a terminal to it, reads its prompt and answers it. Finding the sessions of this
 * machine is `session-directory.ts`'s.
 */
import { createConnection, type Socket } from 'node:net';
import { lineReader, type Request, type SessionInfo } from './protocol.ts';
import { UserError } from '../errors.ts';
import { SESSION_STATES } from '../detect/types.ts';

/**
 * Sends `req` to the socket at `path` and resolves with the first answer line, which must
 * name `req.op` (or be a refusal naming none: a bad or over-long line).
 * @throws UserError when nothing listens there, the answer is `ok: false` (its `error` as
 *   the message, as the session wrote it: print it through `printable`), names another op,
 *   or no answer comes within `timeoutMs`.
 */
export function request<T = Record<string, unknown>>(
  path: string,
  req: Request,
  timeoutMs = 2000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const c = createConnection(path);
    const timer = setTimeout(() => {
      c.destroy();
      reject(new UserError(`${path}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
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
    c.on(
      'data',
      lineReader((line) => {
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

const STATES: ReadonlySet<string> = new Set(SESSION_STATES);

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/**
 * `value` as a {@link SessionInfo} when it has the shape of one, else null: every required
 * field present with its type (id and socket not empty, state one of {@link SESSION_STATES}), `exit` null,
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
    isString(v.by) && isNumber(v.pid) && isStrings(v.command) && isString(v.foreground) &&
    isNumber(v.rows) && isNumber(v.cols) && isNumber(v.startedAt) &&
    isNumber(v.lastOutput) && isNumber(v.host) && isString(v.socket) && v.socket !== '' &&
    exitOk;
  if (!ok) return null;
  const info = { ...v } as unknown as SessionInfo;
  if (info.question !== undefined && !isString(info.question)) delete info.question;
  if (info.activity !== undefined && !isString(info.activity)) delete info.activity;
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
