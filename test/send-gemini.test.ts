/**
 * `send` to real Gemini CLI 0.61.0 (dev dependency) in a headless session (as `run --detach`
 * runs it), against the fake Gemini server on 127.0.0.1: the Enter submits the text, twice in
 * a row, also when the agent is busy while the text arrives. Gemini takes an Enter it handles
 * within 30 ms of the last typed key as a new line (KeypressContext.tsx `bufferFastReturn`,
 * with the kitty keyboard protocol off), and handles keys as it reads them; so an agent that
 * read our text late, together with our Enter (busy elsewhere, a loaded machine), kept the
 * text unsubmitted (tester 3: detached 4 of 4 lost). The busy agent is made real here: the
 * test stops Gemini (SIGSTOP) the moment the text is written and lets it go on 300 ms later.
 * `send` waits until Gemini has read the text (its terminal's input queue is empty) and
 * presses Enter a key gap after that: one Enter submits it (before, the Enter went 60 ms
 * after the text, was read with it, and only a second Enter submitted the text).
 * Then an agent stopped for longer than `send` waits: the text is typed, no Enter follows it,
 * and `send` says so (exit 3); once the agent goes on, the text waits in its input box.
 */
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Session } from '../src/runtime/session.ts';
import { GUARD_EXIT } from '../src/runtime/typing-guard.ts';
import { UserError } from '../src/errors.ts';
import { GEMINI_BIN } from './support/agent-homes.ts';
import { startGeminiSession } from './support/gemini-session.ts';
import { until } from './support/until.ts';

/** How long the stopped agent stays stopped after the text, ms (an agent busy elsewhere). */
const BUSY_MS = 300;

/** Stops the agent at the next write of ours and lets it go on `ms` later. */
function stopAtNextInput(s: Session, ms: number): () => void {
  let writes = 0;
  return s.onInput(() => {
    if (++writes !== 1) return;
    signal(s, 'SIGSTOP');
    setTimeout(() => signal(s, 'SIGCONT'), ms);
  });
}

/** Sends `sig` to the session's agent, unless it is gone. */
function signal(s: Session, sig: NodeJS.Signals): void {
  if (s.exit) return;
  try {
    process.kill(s.pid, sig);
  } catch {
    // gone meanwhile
  }
}

if (!existsSync(GEMINI_BIN)) {
  console.log(`send-gemini: skipped: ${GEMINI_BIN} is missing (npm ci installs it)`);
  test.skip('send submits to Gemini CLI');
} else {
  test('send submits to Gemini CLI with one Enter, twice, also when it is busy while the text arrives; an agent that does not read the text gets no Enter', async () => {
    const g = await startGeminiSession('aw-send-gemini-', 30, 100);
    const { server, session } = g;
    try {
      const s = session;
      const w = g.pane;
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
      /** True once the fake server got a model request that holds `text`. */
      const asked = (text: string) => server.turns().some((t) => JSON.stringify(t).includes(text));
      const turn = (text: string) =>
        until(`a model turn for '${text}'`, () => asked(text), 30_000).catch((e: Error) => {
          throw new Error(`${e.message}; screen:\n${s.terminal.screenText()}`);
        });
      await idle('the composer');
      for (const round of [1, 2]) {
        const off = stopAtNextInput(s, BUSY_MS);
        const text = `task-question round ${round}`;
        const written = await w.send(text, { enter: true, append: false }).finally(off);
        await turn(text);
        // One Enter; two when the text still read as in the input box 1.5 s after Gemini drew
        // its answer to the first (a loaded CI machine: Gemini showed it under "Queued (press ↑
        // to edit):"). Either way the model is asked once: the second Enter submits nothing.
        assert.ok(
          written === text.length + 1 || written === text.length + 2,
          `round ${round}: the text and its Enter (${written})`,
        );
        await idle(`idle after round ${round}`);
        // submitted: turn() saw a request holding it; not twice: no conversation the model was
        // sent holds it in two user messages
        const told = Math.max(
          0,
          ...server.turns().map((t) =>
            ((t.body as { contents?: { role?: string }[] })?.contents ?? []).filter((c) =>
              c.role === 'user' && JSON.stringify(c).includes(text)
            ).length
          ),
        );
        assert.ok(told <= 1, `round ${round}: submitted once (${told})`);
      }
      // Stopped before the text is written and until send returns: it cannot read the text
      // within READ_WAIT_MS, and no Enter follows it.
      let enters = 0;
      const offEnter = s.onInput((d) => (enters += d.includes(13) ? 1 : 0));
      const text = 'task-question round 3';
      signal(s, 'SIGSTOP');
      const err = await w.send(text, { enter: true, append: false }).then(
        () => undefined,
        (e: unknown) => e,
      ).finally(() => signal(s, 'SIGCONT'));
      offEnter();
      assert.instance(err, UserError);
      assert.is((err as UserError).exitCode, GUARD_EXIT);
      assert.match((err as UserError).message, /has not read the text.*the Enter was not sent/);
      assert.is(enters, 0, 'no Enter was written');
      await until(
        'the text in the input box once Gemini goes on',
        () => s.terminal.screenText().includes(text),
        30_000,
      );
      assert.not.ok(asked(text), 'the text was not submitted');
    } finally {
      signal(session, 'SIGCONT');
      await g.close();
    }
  });
}

test.run();
