/**
 * A real agent in a headless session of a host of this process (as `run --detach` runs it),
 * in an AGENTWATCH_DIR of its own: the set-up of the tests that drive a real agent through the
 * host's panes (send, answer). The agent's home and fake model server are the caller's.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../../src/runtime/default-host.ts';
import type { SessionHost } from '../../src/runtime/host.ts';
import type { PtyPane } from '../../src/runtime/pty-pane.ts';
import type { Session } from '../../src/runtime/session.ts';

/** A started agent: its host, session and pane; `close` ends them and removes the folder. */
export interface HostedAgent {
  host: SessionHost;
  session: Session;
  pane: PtyPane;
  close(): Promise<void>;
}

/**
 * Starts `command` with `args` in `cwd` with the whole environment `env`, in a `rows` x `cols`
 * pane (cells), under a new host swept every 100 ms; `prefix` names its temporary folder.
 * Everything started is ended again when the start fails.
 */
export async function startHostedAgent(
  prefix: string,
  agent: { command: string; args: string[]; env: Record<string, string>; cwd: string },
  rows: number,
  cols: number,
): Promise<HostedAgent> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  let session: Session | undefined;
  const close = async () => {
    session?.kill('SIGKILL');
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    session = await host.start({
      ...agent,
      fullEnv: true,
      headless: true,
      rows,
      cols,
    });
    return { host, session, pane: host.ptyPane(session.id)!, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** A host of this process in a folder of its own; `close` ends it and removes the folder. */
export interface PrivateHost {
  /** The temporary folder (the sockets in `sock/`, the config in `config/`). */
  dir: string;
  /** The host's environment: AGENTWATCH_DIR and XDG_CONFIG_HOME in `dir`, no AGENTWATCH_SESSION. */
  env: NodeJS.ProcessEnv;
  host: SessionHost;
  close(): Promise<void>;
}

/**
 * A host swept every 100 ms, with no manifest updates, whose socket folder (mode 0700) and
 * config live in a new temporary folder named by `prefix`: for tests that start their own
 * programs in it (a replayed capture, a fake agent).
 */
export function privateHost(prefix: string): PrivateHost {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AGENTWATCH_DIR: join(dir, 'sock'),
    XDG_CONFIG_HOME: join(dir, 'config'),
  };
  mkdirSync(env.AGENTWATCH_DIR!, { mode: 0o700 });
  delete env.AGENTWATCH_SESSION;
  const host = createHost({ intervalMs: 100 }, env, { update: false });
  return {
    dir,
    env,
    host,
    close: async () => {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
