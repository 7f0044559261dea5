/**
 * The background host's socket protocol (background-host.ts serves it, host-client.ts speaks
 * it): where its socket and log are, the requests it takes ({@link HostRequest}: one JSON
 * object a line, as on a session's control socket, protocol.ts), what `start` answers, and
 * the check of a `start` request's fields.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { socketDir } from './paths.ts';
import type { NotifyOptions } from './notify-config.ts';
import type { StartOptions } from './host.ts';
import { UserError } from '../errors.ts';

/** The background host's socket, in the socket folder (not `*.sock`: `ls` never asks it). */
export const HOST_SOCKET = 'host.socket';
/** The background host's log (its stdout and stderr), in the socket folder. */
export const HOST_LOG = 'host.log';

/** The background host's socket path for this user (see {@link socketDir}). */
export function hostSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(socketDir(env), HOST_SOCKET);
}

/** The background host's log path for this user. */
export function hostLogPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(socketDir(env), HOST_LOG);
}

/**
 * What to start in the background host: the {@link StartOptions} of `SessionHost.start` a client
 * chooses (the host adds `headless`, and `fullEnv` when `env` is given: the client's
 * environment, the command's whole one), and the notification settings in force for this
 * session (config and flags, resolved).
 */
export type DetachedSpec = Omit<StartOptions, 'headless' | 'fullEnv'> & { notify?: NotifyOptions };

/** A request on the host socket. */
export type HostRequest =
  /** Starts a session; answered `{id, socket, pid}` once its control socket listens. */
  | ({ op: 'start' } & DetachedSpec)
  /** The host's pid and the ids of its sessions. */
  | { op: 'status' };

/** The answer to `start`. */
export interface Started {
  /** The session id (`ls`, `kill`, `attach` take it). */
  id: string;
  /** Its control socket. */
  socket: string;
  /** The pid of the command's process (it leads its own process group). */
  pid: number;
  /** The background host's pid. */
  host: number;
}

/** The exit code of a request refused because the host is ending: ask again (a new host). */
export const HOST_ENDING_EXIT = 75;

const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * `req` as a {@link DetachedSpec}, checked field by field (the host socket is reached only by
 * our uid, but a client may be of another version).
 * @throws UserError naming the first field that is wrong.
 */
export function checkSpec(req: Record<string, unknown>): DetachedSpec {
  const bad = (field: string, want: string) => new UserError(`start: '${field}' must be ${want}`);
  if (!isString(req.command) || !req.command) throw bad('command', 'a non-empty string');
  if (!Array.isArray(req.args) || !req.args.every(isString)) {
    throw bad('args', 'a list of strings');
  }
  for (const f of ['name', 'agent', 'cwd'] as const) {
    if (req[f] !== undefined && !isString(req[f])) throw bad(f, 'a string');
  }
  if (req.cwd !== undefined && !(req.cwd as string).startsWith('/')) {
    throw bad('cwd', 'an absolute path');
  }
  if (req.cwd !== undefined) {
    let dir = false;
    try {
      dir = statSync(req.cwd as string).isDirectory();
    } catch {
      // not there
    }
    if (!dir) throw new UserError(`no such folder: ${req.cwd}`);
  }
  const env = req.env;
  if (
    env !== undefined &&
    (typeof env !== 'object' || env === null || Array.isArray(env) ||
      !Object.values(env).every(isString))
  ) throw bad('env', 'an object of strings');
  for (const [f, max] of [['rows', 500], ['cols', 1000]] as const) {
    const v = req[f];
    if (v !== undefined && !(Number.isInteger(v) && (v as number) >= 1 && (v as number) <= max)) {
      throw bad(f, `a whole number from 1 to ${max}`);
    }
  }
  if (req.hooks !== undefined && typeof req.hooks !== 'boolean') throw bad('hooks', 'a boolean');
  const notify = req.notify;
  if (notify !== undefined && !isNotifyOptions(notify)) {
    throw bad('notify', 'resolved notification settings');
  }
  // Every field of DetachedSpec, each checked above: a field added to StartOptions does not
  // compile here until it is checked too.
  const spec: { [K in keyof Required<DetachedSpec>]: DetachedSpec[K] } = {
    command: req.command,
    args: req.args as string[],
    name: req.name as string | undefined,
    agent: req.agent as string | undefined,
    cwd: req.cwd as string | undefined,
    env: env as Record<string, string> | undefined,
    rows: req.rows as number | undefined,
    cols: req.cols as number | undefined,
    hooks: req.hooks as boolean | undefined,
    notify: notify as NotifyOptions | undefined,
  };
  return spec;
}

/** True when `v` has the shape of {@link NotifyOptions} (every field of its type). */
function isNotifyOptions(v: unknown): v is NotifyOptions {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  const bools = ['desktop', 'terminal', 'title', 'done', 'includeText'];
  return bools.every((k) => typeof o[k] === 'boolean') &&
    (o.format === 'json' || o.format === 'text') &&
    typeof o.focusMs === 'number' && Number.isFinite(o.focusMs) &&
    (o.command === undefined || isString(o.command)) &&
    (o.url === undefined || (isString(o.url) && /^https?:\/\/\S+$/i.test(o.url)));
}
