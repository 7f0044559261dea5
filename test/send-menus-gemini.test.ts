/**
 * `send` to real Gemini CLI 0.61.0 (dev dependency) in a headless session, against the fake
 * Gemini server on 127.0.0.1, while the person has its `/theme` dialog open (the title stays
 * `◇  Ready`: idle): `send --append x` and `send hello` are refused (exit 3, "shows a menu"),
 * with nothing typed (before: the text went into the dialog and its Enter picked a theme); once
 * the person closes it (Esc), `send` types and submits. About 30 s. Skipped (with a printed
 * reason) when Gemini CLI is missing.
 */
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GUARD_EXIT } from '../src/runtime/typing-guard.ts';
import { UserError } from '../src/errors.ts';
import { GEMINI_BIN } from './support/agent-homes.ts';
import { startGeminiSession } from './support/gemini-session.ts';
import { until } from './support/until.ts';

if (!existsSync(GEMINI_BIN)) {
  console.log(`send-menus-gemini: skipped: ${GEMINI_BIN} is missing (npm ci installs it)`);
  test.skip('send refuses while Gemini CLI shows /theme');
} else {
  test('send and send --append refuse while Gemini CLI shows its /theme dialog; after Esc, send submits', async () => {
    const g = await startGeminiSession('aw-send-menus-gemini-', 32, 120);
    const { server, session } = g;
    try {
      const s = session;
      const w = g.pane;
      const screen = () => s.terminal.screenText();
      const why = () => `screen:\n${screen()}`;
      // Gemini CLI 0.61.0 draws its header only once its config is initialized
      // (interactiveCli: `if (!uiState.isConfigInitialized) return null`); before, what is
      // typed is queued ("Initializing... Prompts will be queued.") and a queued /theme goes to
      // the model as a prompt
      const composer = (header: boolean) =>
        until(
          'the header and the empty composer, idle',
          () => {
            w.classifyNow();
            return w.record.state === 'idle' && (!header || /Gemini CLI v\d/.test(screen())) &&
              /^ >\s+Type your message or @path\/to\/file/m.test(screen());
          },
          120_000,
          50,
        ).catch((e: Error) => {
          throw new Error(`${e.message}: ${w.record.state}\n${why()}`);
        });
      await composer(true);
      // the person types /theme and, once Gemini lists it (` theme   Change the theme`), opens
      // the dialog with Enter (typed key by key, /them showed /theme's completion ahead)
      s.write('/theme');
      await until('/theme listed', () => /^ theme +Change the theme/m.test(screen()), 10_000)
        .catch((e: Error) => {
          throw new Error(`${e.message}\n${why()}`);
        });
      s.write('\r');
      await until('the theme dialog', () => /Select Theme/.test(screen()), 20_000)
        .catch((e: Error) => {
          throw new Error(`${e.message}\n${why()}`);
        });
      // the whole dialog, down to its footer and bottom edge (drawn over several frames)
      await until(
        'the whole theme dialog',
        () => /Esc to close\)[\s│]*\n╰─+╯/.test(screen()),
        20_000,
      )
        .catch((e: Error) => {
          throw new Error(`${e.message}\n${why()}`);
        });
      await until('idle with the dialog open', () => w.classifyNow().state === 'idle', 10_000);
      let typed = 0;
      const off = s.onInput((d) => (typed += d.length));
      for (const [text, append] of [['x', true], ['hello', false]] as const) {
        const err = await w.send(text, { enter: true, append }).then(() => undefined, (e) => e);
        assert.instance(err, UserError, `${text}: refused\n${why()}`);
        assert.is((err as UserError).exitCode, GUARD_EXIT);
        const said = (err as UserError).message;
        assert.ok(/shows a menu or dialog over its input box/.test(said), `${said}\n${why()}`);
      }
      off();
      assert.is(typed, 0, 'nothing typed into the dialog');
      assert.match(screen(), /Select Theme/, why());
      // the person closes it; send submits
      s.write('\x1b');
      await composer(false); // the header scrolled away
      const text = 'task-question after the theme dialog';
      await w.send(text, { enter: true, append: false });
      await until(
        'a model turn for it',
        () => server.turns().some((t) => JSON.stringify(t).includes(text)),
        30_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}\n${why()}`);
      });
    } finally {
      await g.close();
    }
  });
}

test.run();
