/**
 * A real agent in a headless session of a host of this process (as `run --detach` runs it),
 * in an AGENTWATCH_DIR of its own: the set-up of the tests that drive a real agent through the
 * host's panes (send, answer). The agent's home and fake model server are the caller's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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
