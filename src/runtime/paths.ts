/**
 * Where sessions publish their control sockets: `$XDG_RUNTIME_DIR/agentwatch/`, or
 * `/tmp/agentwatch-UID/` without it (`AGENTWATCH_DIR` overrides both). The directory is
 * created with mode 0700 and every command checks it belongs to us and is private before
 * believing a socket in it: other users must neither reach a session's `send`/`answer` nor
 * pose as a session.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UserError } from '../errors.ts';

/** The socket directory for this user (not created). */
export function socketDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENTWATCH_DIR) return env.AGENTWATCH_DIR;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'agentwatch');
  return `/tmp/agentwatch-${process.getuid?.() ?? 'user'}`;
}

/**
 * Checks that `dir` is a folder we may trust with sessions' sockets: a real directory (not a
 * symlink), owned by us, with no group or other permission bits. Another user who made the
 * folder first (it is predictable under /tmp) could otherwise list fake sessions that
 * receive what the person sends. Changes nothing.
 * @returns false when `dir` does not exist.
 * @throws UserError naming the folder, what is wrong and the fix: for a symlink, another
 *   owner, group/other bits, or a folder that cannot be read (EACCES).
 */
export function checkSocketDir(dir: string): boolean {
  let st;
  try {
    st = lstatSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    throw new UserError(`${dir}: cannot read the socket folder (${code}); ${FIX}`);
  }
  if (st.isSymbolicLink()) {
    throw new UserError(`${dir}: the socket folder is a symbolic link; refusing to use it; ${FIX}`);
  }
  if (!st.isDirectory()) {
    throw new UserError(`${dir}: exists but is not a directory; refusing to use it; ${FIX}`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new UserError(
      `${dir}: the socket folder belongs to uid ${st.uid}, not to us (${uid}); refusing to ` +
        `use it (someone else may have made it); ${FIX}`,
    );
  }
  if ((st.mode & 0o077) !== 0) {
    throw new UserError(
      `${dir}: the socket folder has mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}, ` +
        `open to other users; refusing to use it; make it private (chmod 700 ${dir}) or ${FIX}`,
    );
  }
  return true;
}

const FIX = 'point AGENTWATCH_DIR at a folder of your own with mode 0700 ' +
  '(or remove this one if it is yours)';

/**
 * Creates the socket directory (mode 0700; its missing parents too) if it does not exist,
 * then checks it ({@link checkSocketDir}). A folder that already exists is never changed: a
 * folder of wrong mode is refused, not chmod-ed (it may be shared, like a mode 1777 one).
 * @throws UserError when it cannot be created or fails the check.
 */
export function ensureSocketDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = socketDir(env);
  if (!checkSocketDir(dir)) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw new UserError(
        `${dir}: cannot create the socket directory (${(e as NodeJS.ErrnoException).code})`,
      );
    }
    checkSocketDir(dir);
  }
  return dir;
}

/**
 * Whether `path` is a socket of ours: lstat (never following a symlink) says a socket owned
 * by our uid. Anything else (a file, a FIFO, a symlink, another user's socket) is neither
 * asked nor removed. With `checkFolder`, its folder must also pass {@link checkSocketDir}.
 */
export function ownSocket(path: string, checkFolder = false): boolean {
  try {
    if (checkFolder && !checkSocketDir(dirname(path))) return false;
    const st = lstatSync(path);
    return st.isSocket() && st.uid === process.getuid?.();
  } catch {
    return false;
  }
}

/** The control socket path of session `id`. */
export function socketPath(id: string, env: NodeJS.ProcessEnv = process.env): string {
  const path = join(socketDir(env), `${id}.sock`);
  // sockaddr_un.sun_path holds 108 bytes on Linux (104 on macOS), the final NUL included.
  if (Buffer.byteLength(path) > SOCKET_PATH_MAX) {
    throw new UserError(
      `${path}: socket path too long (${
        Buffer.byteLength(path)
      } bytes; Unix sockets allow ${SOCKET_PATH_MAX}): ` +
        'use a shorter AGENTWATCH_DIR or XDG_RUNTIME_DIR',
    );
  }
  return path;
}

/** The longest Unix socket path, in bytes: sun_path minus its NUL (Linux 108, macOS 104). */
export const SOCKET_PATH_MAX = process.platform === 'darwin' ? 103 : 107;
