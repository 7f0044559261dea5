/**
 * Real Gemini CLI 0.61.0 (dev dependency) in a headless session of a host of this process (as
 * `run --detach` runs it), against the fake Gemini server on 127.0.0.1, in a Gemini home and an
 * AGENTWATCH_DIR of its own: the set-up of the send tests on Gemini (send-gemini, send-hold,
 * send-menus-gemini).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../../src/runtime/default-host.ts';
import type { PtyPane } from '../../src/runtime/pty-pane.ts';
import type { Session } from '../../src/runtime/session.ts';
import { GEMINI_BIN, makeGeminiHome } from './agent-homes.ts';
import { startFakeGemini } from './fake-gemini.ts';

/** A started Gemini session: its fake server, session and pane; `close` ends and removes all. */
export interface GeminiSession {
  server: Awaited<ReturnType<typeof startFakeGemini>>;
  session: Session;
  pane: PtyPane;
  close(): Promise<void>;
}

/**
 * Starts Gemini CLI in a `rows` x `cols` pane (cells); `prefix` names its temporary folder.
 * Everything started is ended again when the start fails.
 */
export async function startGeminiSession(
  prefix: string,
  rows: number,
  cols: number,
): Promise<GeminiSession> {
  const server = await startFakeGemini();
  const home = makeGeminiHome({ baseUrl: server.url });
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  let session: Session | undefined;
  const close = async () => {
    session?.kill('SIGKILL');
    await host.close();
    await server.close();
    await home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    session = await host.start({
      command: GEMINI_BIN,
      args: [],
      env: home.env,
      fullEnv: true,
      cwd: home.project,
      headless: true,
      rows,
      cols,
    });
    return { server, session, pane: host.ptyPane(session.id)!, close };
  } catch (e) {
    await close();
    throw e;
  }
}
