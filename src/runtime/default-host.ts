/**
 * A {@link SessionHost} wired to the real parts: the bundled manifests and the foreground
 * helper (addon, else /proc, else ps).
 */
import { type Foreground, foreground, ptyMasterFd } from './foreground.ts';
import { SessionHost } from './host.ts';
import { loadBundledManifests } from './manifest-sources.ts';
import type { Session } from './session.ts';
import type { ForegroundRead } from './sweep.ts';

/** Each session's last foreground read, so its leader is read again only when it changed. */
const lastForeground = new WeakMap<Session, Foreground | null>();

/**
 * Reads a session's foreground; null when unknown or on any error (the sweep goes on). The
 * pgid is read every time, the leader's name and argv only when the pgid changed.
 */
export function sessionForeground(session: Session): ForegroundRead | null {
  if (session.exit) return null;
  try {
    const fg = foreground({ fd: ptyMasterFd(session.pty), pid: session.pid }, {
      previous: lastForeground.get(session),
    });
    lastForeground.set(session, fg);
    return fg;
  } catch {
    return null;
  }
}

/** Sweep settings a command line chose. */
export interface SweepChoice {
  intervalMs?: number;
  adaptive?: boolean;
}

/**
 * A host with the bundled manifests and the real foreground reader; `hooks: false` starts
 * agents without the hooks their manifest declares.
 */
export function createHost(
  choice: SweepChoice = {},
  env: NodeJS.ProcessEnv = process.env,
  { hooks }: { hooks?: boolean } = {},
): SessionHost {
  const manifests = loadBundledManifests();
  return new SessionHost({
    manifests: () => manifests,
    foreground: sessionForeground,
    intervalMs: choice.intervalMs,
    adaptive: choice.adaptive,
    hooks,
    env,
  });
}
