/**
 * Where sessions publish their control sockets: `$XDG_RUNTIME_DIR/agentwatch/`, or
 * `/tmp/agentwatch-UID/` without it (`AGENTWATCH_DIR` overrides both, for tests). The
 * directory is created with mode 0700 and must belong to us: other users must not reach a
 * session's `send`/`answer`.
 */
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';

/** The socket directory for this user (not created). */
export function socketDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENTWATCH_DIR) return env.AGENTWATCH_DIR;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'agentwatch');
  return `/tmp/agentwatch-${process.getuid?.() ?? 'user'}`;
}

/**
 * Creates the socket directory (mode 0700) if needed and checks it is ours and private.
 * @throws UserError when it exists but is not a directory, belongs to another user, or
 *   cannot be created.
 */
export function ensureSocketDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = socketDir(env);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new UserError(
      `${dir}: cannot create the socket directory (${(e as NodeJS.ErrnoException).code})`,
    );
  }
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new UserError(`${dir}: exists but is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new UserError(`${dir}: belongs to uid ${st.uid}, not to us (${uid}); refusing to use it`);
  }
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
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
