/**
 * The sessions a board starts itself (each `watch -- CMD` group, the `n` key): in the per-user
 * background host ({@link startInBackground}: they outlive the board), or in this process's
 * {@link SessionHost} ({@link startHosted}), which ends them when the board quits or crashes.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../command.ts';
import type { SessionHost } from '../../runtime/host.ts';
import type { NewSession } from '../new-session.ts';
import type { NotifyOptions } from '../../runtime/notify-config.ts';
import { startDetached } from '../../runtime/host-client.ts';

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
 * Starts `s` in the background host (started on demand), as `run --detach` does: its name,
 * agent and folder as typed (`agent` when none was typed; the folder made absolute, default
 * this process's), this process's environment, sized as `stdout`, announced by the host with
 * `notify`. Returns the new session's id once its socket listens.
 * @throws UsageError for a folder that does not exist; UserError when the host refuses (a
 *   command that cannot be run, an unknown agent) or cannot be started.
 */
export async function startInBackground(
  s: NewSession,
  agent: string | undefined,
  stdout: NodeJS.WriteStream,
  notify: NotifyOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  if (s.cwd !== undefined && !isDirectory(s.cwd)) {
    throw new UsageError(`no such folder: ${s.cwd}`);
  }
  const clientEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clientEnv[k] = v;
  const agentId = s.agent ?? agent;
  const started = await startDetached({
    command: s.argv[0],
    args: s.argv.slice(1),
    ...(agentId ? { agent: agentId } : {}),
    ...(s.name ? { name: s.name } : {}),
    cwd: resolve(s.cwd ?? process.cwd()),
    env: clientEnv,
    ...sessionSize(stdout),
    notify,
  }, env);
  return started.id;
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
