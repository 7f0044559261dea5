/**
 * Keys the person types in a pane while `send` types into it wait until the send is done:
 * real Gemini CLI 0.61.0 (dev dependency) against the fake Gemini server on 127.0.0.1, a
 * terminal attached to its session through the session's socket (as the board's Enter
 * attaches; `run`'s own terminal writes its keys the same way, Session.write). Before, keys
 * typed between the text and its Enter were mixed into the text and submitted with it (tester,
 * Gemini CLI 0.61.0, 3 of 5). The window is made certain: the moment the send's text is
 * written, the person's keys go to the session as the attached terminal's handler writes them.
 * Twice in a row: the model gets the sent text alone, and the person's keys reach Gemini after
 * the send's Enter, whole and in order
 * (they show in its input box). Then the person presses Ctrl-C in that window: it goes in at
 * once, and the send stops without its Enter (exit 3): nothing is submitted.
 */
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { attachedTerminal } from './support/attached-terminal.ts';
import type { PtyDriver } from './support/pty-driver.ts';
import { GUARD_EXIT } from '../src/runtime/typing-guard.ts';
import { UserError } from '../src/errors.ts';
import { GEMINI_BIN } from './support/agent-homes.ts';
import { startGeminiSession } from './support/gemini-session.ts';
import { until } from './support/until.ts';

/** The text typed of the newest user message of a Gemini request body (the prompt submitted). */
function promptOf(body: unknown): string {
  const contents = (body as { contents?: { role?: string; parts?: { text?: string }[] }[] })
    ?.contents ?? [];
  const last = contents.filter((c) => c.role === 'user').at(-1);
  // its last part: Gemini CLI puts its session context in a part before the person's text
  return (last?.parts ?? []).map((p) => p.text ?? '').filter(Boolean).at(-1) ?? '';
}

if (!existsSync(GEMINI_BIN)) {
  console.log(`send-hold: skipped: ${GEMINI_BIN} is missing (npm ci installs it)`);
  test.skip('keys typed during a send wait for it');
} else {
  test('keys the person types while send types go in after its Enter, twice; their Ctrl-C stops the send', async () => {
    const g = await startGeminiSession('aw-send-hold-', 30, 100);
    const { server, session } = g;
    let person: PtyDriver | undefined;
    try {
      const s = session;
      const w = g.pane;
      const screen = () => s.terminal.screenText();
      const idle = (what: string) =>
        until(
          what,
          () => {
            w.classifyNow();
            return w.record.state === 'idle' &&
              /Type your message or @path\/to\/file/.test(screen());
          },
          120_000,
          50,
        ).catch((e: Error) => {
          throw new Error(`${e.message}: ${w.record.state}\n${screen()}`);
        });
      await idle('the composer');
      // The person's terminal, attached as the board attaches (same size: no resize), from a
      // terminal of theirs (a session refuses attach from a process without one).
      person = await attachedTerminal(w.socket, 30, 100);
      const p = person;
      /** The prompts the model was sent, in order. */
      const prompts = () => server.turns().filter((t) => t.stream).map((t) => promptOf(t.body));
      const fail = (e: Error) => {
        throw new Error(`${e.message}\nscreen:\n${screen()}\nprompts: ${prompts()}`);
      };

      /**
       * Sends `text` while the person types `keys` in the window between its text and its
       * Enter: the moment the send's text is written, the keys go to the session as the
       * attached terminal's socket handler writes them (Session.write), at once (through the
       * socket itself, their delivery under load counted against send's own 3 s bound for the
       * agent to read the text); resolves with what the send returned or threw, the bytes the
       * session held when the keys came, and every input byte the agent got, in order.
       */
      const sendWhileTyping = async (text: string, keys: string) => {
        let input = '';
        let typed = false;
        let held = -1;
        const off = s.onInput((d) => {
          input += Buffer.from(d).toString('latin1');
          if (typed) return;
          typed = true; // the send's first bytes: its text
          s.write(Buffer.from(keys));
          held = s.inputHeld;
        });
        const result = await w.send(text, { enter: true, append: false }).then(
          (n) => n,
          (e: unknown) => e,
        );
        return { result, held: () => held, input: () => input, off };
      };

      for (const round of [1, 2]) {
        const text = `task-question round ${round}`;
        const keys = `my own words ${round} typed meanwhile`;
        const { result, held, input, off } = await sendWhileTyping(text, keys);
        try {
          assert.is(held(), keys.length, `round ${round}: the keys were held while send typed`);
          // one Enter; two when the text seemed to stay in the input box after the first
          // (Gemini busy: it showed the text as "Queued (press ↑ to edit)"), as send does
          assert.ok(
            result === text.length + 1 || result === text.length + 2,
            `round ${round}: the text and its Enter (${result})\n${s.events().join('\n')}`,
          );
          await until(
            `round ${round}: the model asked with the text`,
            () => prompts().some((q) => q.includes(text)),
          ).catch(fail);
          assert.equal(
            prompts().filter((q) => q.includes(text)),
            [text],
            `round ${round}: the text was submitted alone`,
          );
          // the person's keys, whole, in Gemini's input box once it has drawn them
          await until(
            `round ${round}: the person's keys in the input box`,
            () => screen().includes(keys),
          ).catch(fail);
          // the text, its Enter(s), then the person's keys: whole, in order, after the send
          assert.ok(
            [text + '\r' + keys, text + '\r\r' + keys].includes(input()),
            `round ${round}: what the agent got: ${JSON.stringify(input())}`,
          );
          assert.not.ok(
            prompts().some((q) => q.includes(keys)),
            `round ${round}: the person's keys were not submitted`,
          );
        } finally {
          off();
        }
        // the person deletes their words (Backspace, one a key as a person types)
        for (let i = 0; i < keys.length; i++) p.send('\x7f');
        await idle(`round ${round}: the composer empty again`);
      }

      // Ctrl-C in the window: it reaches Gemini at once, and the send presses no Enter.
      const text = 'task-question round 3';
      const { result, held, input, off } = await sendWhileTyping(text, '\x03');
      off();
      assert.is(held(), 0, 'a Ctrl-C is never held');
      assert.instance(result, UserError, String(result));
      assert.is((result as UserError).exitCode, GUARD_EXIT);
      assert.match((result as UserError).message, /Ctrl-C was pressed.*the Enter was not sent/);
      assert.is(input(), text + '\x03', 'the text, then the Ctrl-C at once; no Enter');
      await idle('the composer cleared by the Ctrl-C');
      assert.not.ok(prompts().some((q) => q.includes(text)), 'nothing was submitted');
    } finally {
      await person?.close();
      await g.close();
    }
  });
}

test.run();
