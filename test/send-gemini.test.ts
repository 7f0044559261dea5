/**
 * `send` to real Gemini CLI 0.61.0 (dev dependency) in a headless session, against the fake
 * Gemini server on 127.0.0.1: the Enter submits the text, twice in a row, also when the agent
 * is busy while the text arrives. Gemini reads an Enter that reaches it within 30 ms of the
 * last typed character as a new line (its `bufferFastReturn`), so an agent that reads our text
 * and our Enter in one read (busy elsewhere, a loaded machine) kept the text unsubmitted while
 * `send` said "sent" (tester 3: detached 4/4). The busy agent is made real here: the test
 * stops Gemini (SIGSTOP) the moment the text is written and lets it go on 300 ms later: the
 * Enter waits for the text to show. And when Gemini cannot take the Enter apart from the text
 * (stopped until the Enter is written, so it reads both at once and keeps the text), the text
 * still in its box gets one more Enter, which submits it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import type { Session } from '../src/runtime/session.ts';
import { GEMINI_BIN, makeGeminiHome } from './support/agent-homes.ts';
import { startFakeGemini } from './support/fake-gemini.ts';
import { until } from './support/until.ts';

/** How long the stopped agent stays stopped after the text, ms (an agent busy elsewhere). */
const BUSY_MS = 300;

/** Stops the agent at the next write of ours; `resume` says when it goes on. */
function stopAtNextInput(s: Session, resume: 'later' | 'after-enter'): () => void {
  let writes = 0;
  return s.onInput(() => {
    writes++;
    if (writes === 1) {
      process.kill(s.pid, 'SIGSTOP');
      if (resume === 'later') setTimeout(() => process.kill(s.pid, 'SIGCONT'), BUSY_MS);
    } else if (writes === 2 && resume === 'after-enter') {
      process.kill(s.pid, 'SIGCONT');
    }
  });
}

if (!existsSync(GEMINI_BIN)) {
  console.log(`send-gemini: skipped: ${GEMINI_BIN} is missing (npm ci installs it)`);
  test.skip('send submits to Gemini CLI');
} else {
  test('send submits to Gemini CLI, twice, also when it is busy while the text arrives or reads text and Enter at once', async () => {
    const server = await startFakeGemini();
    const home = makeGeminiHome({ baseUrl: server.url });
    const dir = mkdtempSync(join(tmpdir(), 'aw-send-gemini-'));
    const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
    let session: Session | undefined;
    try {
      session = await host.start({
        command: GEMINI_BIN,
        args: [],
        env: home.env,
        fullEnv: true,
        cwd: home.project,
        headless: true,
        rows: 30,
        cols: 100,
      });
      const s = session;
      const w = host.ptyPane(s.id)!;
      const idle = (what: string) =>
        until(
          what,
          () => {
            w.classifyNow();
            return w.record.state === 'idle' &&
              /Type your message or @path\/to\/file/.test(s.terminal.screenText());
          },
          120_000,
          50,
        ).catch((e: Error) => {
          throw new Error(`${e.message}: ${w.record.state}\n${s.terminal.screenText()}`);
        });
      await idle('the composer');
      for (const round of [1, 2]) {
        const off = stopAtNextInput(s, 'later');
        const text = `task-question round ${round}`;
        const written = await w.send(text, { enter: true, append: false }).finally(off);
        assert.is(written, text.length + 1);
        await until(`round ${round}'s model turn`, () => server.turns().length >= round, 30_000)
          .catch((e: Error) => {
            throw new Error(`${e.message}; screen:\n${s.terminal.screenText()}`);
          });
        await idle(`idle after round ${round}`);
      }
      // Stopped until our first Enter is written: Gemini reads text and Enter at once and,
      // without the kitty keyboard protocol (no flags pushed: its fast-return rule applies),
      // keeps the text; the second Enter submits it.
      const flags = s.terminal.keyboardFlags;
      const off = stopAtNextInput(s, 'after-enter');
      const text = 'task-question round 3';
      const written = await w.send(text, { enter: true, append: false }).finally(off);
      await until("round 3's model turn", () => server.turns().length >= 3, 30_000)
        .catch((e: Error) => {
          throw new Error(`${e.message}; screen:\n${s.terminal.screenText()}`);
        });
      if (flags === 0) assert.is(written, text.length + 2, 'the text and two Enters');
    } finally {
      if (session && !session.exit) process.kill(session.pid, 'SIGCONT');
      session?.kill('SIGKILL');
      await server.close();
      home.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test.run();
