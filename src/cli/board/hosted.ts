/**
 * The sessions a board starts itself (each `watch -- CMD` group, the `n` key) and hosts in this
 * process's {@link SessionHost}: starting one, and ending them all when the board quits or
 * crashes. One place, so that sessions started from the board can move to another host.
 */
import { statSync } from 'node:fs';
import { UsageError } from '../command.ts';
import type { SessionHost } from '../../runtime/host.ts';
import type { NewSession } from '../new-session.ts';

/** Whether `path` is a folder. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Size for headless sessions: the board's terminal, else 32x120 (the captures' size), cells. */
export function sessionSize(stdout: NodeJS.WriteStream): { rows: number; cols: number } {
  return stdout.isTTY && stdout.rows && stdout.columns
    ? { rows: stdout.rows, cols: stdout.columns }
    : { rows: 32, cols: 120 };
}

/**
 * Starts `s` headless on `host` (its name, agent and folder as typed; `agent` when none was
 * typed), sized as `stdout`. Returns the new session's id.
 * @throws UsageError for a folder that does not exist; whatever `host.start` throws (a
 *   command that cannot be run).
 */
export async function startHosted(
  host: SessionHost,
  s: NewSession,
  agent: string | undefined,
  stdout: NodeJS.WriteStream,
): Promise<string> {
  if (s.cwd !== undefined && !isDirectory(s.cwd)) {
    throw new UsageError(`no such folder: ${s.cwd}`);
  }
  const session = await host.start({
    command: s.argv[0],
    args: s.argv.slice(1),
    agent: s.agent ?? agent,
    ...(s.name ? { name: s.name } : {}),
    ...(s.cwd ? { cwd: s.cwd } : {}),
    headless: true,
    ...sessionSize(stdout),
  });
  return session.id;
}

/**
 * Ends every session `host` runs (SIGHUP, as a closed terminal does) and waits for their exits,
 * at most `timeoutMs`, so that their `exited` transitions are still published.
 */
export async function endSessions(host: SessionHost, timeoutMs = 1500): Promise<void> {
  const live = [...host.sessions.values()].map((e) => e.session).filter((s) => !s.exit);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(live.map((s) =>
      new Promise<void>((resolve) => {
        s.onExit(() => resolve());
        s.kill();
      })
    )),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
  ]);
  clearTimeout(timer);
}

/** Hangs up every session `host` runs, without waiting (after a crash). */
export function killSessions(host: SessionHost): void {
  for (const { session } of host.sessions.values()) session.kill();
}
