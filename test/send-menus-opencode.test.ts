/**
 * `send` to the real opencode-ai 1.18.33 in a headless session, against the fake Chat
 * Completions server on 127.0.0.1, while the person has its command palette open (Ctrl-P; the
 * pane reads idle and, at 120 columns, the empty composer stays drawn under the palette): `send
 * "new session"` is refused (exit 3, "shows a menu"), nothing typed (a fresh tester: the text
 * went into the palette's search field and its Enter ran `New session`); after Esc, `send`
 * submits and the fake model's reply shows; text of 3 lines, or a line sent as a paste, which
 * opencode shows as `[Pasted ~N lines]`, is sent whole. opencode is no dependency of agentwatch: this runs
 * when OPENCODE_BIN names its platform binary (`npm i --prefix /tmp/oc opencode-ai@1.18.33`;
 * OPENCODE_BIN=/tmp/oc/node_modules/opencode-linux-x64/bin/opencode), else it is skipped with a
 * printed reason; test/opencode-menus.test.ts checks the captured screens without it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UserError } from '../src/errors.ts';
import { GUARD_EXIT } from '../src/runtime/typing-guard.ts';
import { writeOpencodeHome } from './support/agent-homes.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import { privateHost } from './support/hosted-agent.ts';
import { until } from './support/until.ts';

const BIN = process.env.OPENCODE_BIN ?? '';

if (!BIN || !existsSync(BIN)) {
  console.log('send-menus-opencode: skipped: OPENCODE_BIN does not name an opencode binary');
  test.skip('send refuses while opencode shows its command palette');
} else {
  test("send refuses while opencode's command palette is open; after Esc, send submits", async () => {
    const server = await startFakeOpenAI();
    const { dir, host, close } = privateHost('aw-send-menus-oc-');
    const home = join(dir, 'home');
    const proj = join(dir, 'proj');
    mkdirSync(proj);
    // opencode (a bun binary) unpacks native libraries into TMPDIR: ours, removed with it
    mkdirSync(join(dir, 'tmp'));
    writeOpencodeHome(home, server.url);
    try {
      const s = await host.start({
        command: BIN,
        args: [],
        name: 'o1',
        agent: 'opencode',
        headless: true,
        rows: 32,
        cols: 120,
        cwd: proj,
        env: {
          HOME: home,
          TMPDIR: join(dir, 'tmp'),
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          TERM: 'xterm-256color',
          OPENCODE_DISABLE_AUTOUPDATE: '1',
          OPENCODE_DISABLE_MODELS_FETCH: '1',
          OPENCODE_MODELS_PATH: join(home, 'models.json'),
          OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
          OPENCODE_DISABLE_CLAUDE_CODE: '1',
          OPENCODE_DISABLE_SHARE: '1',
          OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        },
      });
      const w = host.ptyPane(s.id)!;
      const screen = () => s.terminal.screenText();
      const why = () => `screen:\n${screen()}\n${server.dump(300)}`;
      const composer = () =>
        until('idle, the composer drawn', () => {
          w.classifyNow();
          return w.record.state === 'idle' && /ctrl\+p commands$/m.test(screen()) &&
            !/ {3,}esc$/m.test(screen());
        }, 120_000).catch((e: Error) => {
          throw new Error(`${e.message}\n${why()}`);
        });
      await composer();
      s.write('\x10');
      await until('the palette', () => /^ *Commands {3,}esc$/m.test(screen()), 20_000)
        .catch((e: Error) => {
          throw new Error(`${e.message}\n${why()}`);
        });
      await until('idle with the palette open', () => w.classifyNow().state === 'idle', 10_000);
      let typed = 0;
      const off = s.onInput((d) => (typed += d.length));
      const err = await w.send('new session', { enter: true, append: false }).then(
        () => undefined,
        (e) => e,
      );
      off();
      assert.instance(err, UserError, `refused\n${why()}`);
      assert.is((err as UserError).exitCode, GUARD_EXIT);
      const said = (err as UserError).message;
      assert.ok(/shows a menu or dialog over its input box/.test(said), `${said}\n${why()}`);
      assert.is(typed, 0, 'nothing typed into the palette');
      // the person closes it: send types and submits
      s.write('\x1b');
      await composer();
      await w.send('please task-question a1', { enter: true, append: false });
      await until('the reply', () => /off-by-one/.test(screen()), 60_000).catch((e: Error) => {
        throw new Error(`${e.message}\n${why()}`);
      });
      // 3 lines, then a line over 256 characters (sent as a paste): opencode shows each as
      // `[Pasted ~N lines]`
      // in the composer (tester9: send said "did not reach the input box", left a draft)
      for (
        const [k, text] of [
          [1, 'first pasted-line-aa\nsecond pasted-line-bb\nthird pasted-line-cc'],
          [2, `a long line ${'pasted-long-dd '.repeat(20)}end`],
        ] as const
      ) {
        await composer();
        const marks = text.match(/pasted-[a-z-]+/g)!;
        await w.send(text, { enter: true, append: false }).catch((e: Error) => {
          throw new Error(`send ${k}: ${e.message}\n${why()}`);
        });
        await until(`text ${k} at the model, whole`, () =>
          server.log.some((e) => {
            const body = JSON.stringify(e.body ?? '');
            return marks.every((m) => body.includes(m));
          }), 60_000).catch((e: Error) => {
            throw new Error(`${e.message}\n${why()}`);
          });
      }
    } finally {
      await close();
      await server.close();
    }
  });
}

test.run();
