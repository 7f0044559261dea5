/**
 * Real Gemini CLI 0.61.0 (dev dependency) in a headless session of a host of this process (as
 * `run --detach` runs it), against the fake Gemini server on 127.0.0.1, in a Gemini home and an
 * AGENTWATCH_DIR of its own: the set-up of the send tests on Gemini (send-gemini, send-hold,
 * send-menus-gemini).
 */
import type { PtyPane } from '../../src/runtime/pty-pane.ts';
import type { Session } from '../../src/runtime/session.ts';
import { GEMINI_BIN, makeGeminiHome } from './agent-homes.ts';
import { startFakeGemini } from './fake-gemini.ts';
import { startHostedAgent } from './hosted-agent.ts';

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
  const cleanup = async () => {
    await server.close();
    await home.cleanup();
  };
  try {
    const a = await startHostedAgent(
      prefix,
      { command: GEMINI_BIN, args: [], env: home.env, cwd: home.project },
      rows,
      cols,
    );
    const close = async () => {
      await a.close();
      await cleanup();
    };
    return { server, session: a.session, pane: a.pane, close };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
