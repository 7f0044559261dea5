/**
 * `send` to real Claude Code 2.1.332 (`agentwatch run -- claude --permission-mode manual` in a
 * real PTY; fake Anthropic server on 127.0.0.1) while the person has its `/model` menu open, the
 * selection moved to another model (so an Enter would change it): the pane reads idle (a menu
 * is no permission prompt), and
 * 1. `agentwatch send --append m1 x` is refused (exit 3, "shows a menu"): nothing is typed, the
 *    menu stays with its selection, the model is not changed (before: `x` went into the menu and
 *    its Enter saved the selected model, tester's report);
 * 2. `agentwatch send m1 hello` is refused the same way, saying a menu is open, not "holds text
 *    someone typed";
 * 3. once the person closes the menu (Esc), `send` types and submits, twice in a row: the model
 *    requests carry the text, with the model Claude Code started with (Opus, not the Sonnet
 *    selected in the menu), and no model was saved in its settings.
 * About 30 s. Skipped (with a printed reason) when node_modules/.bin/claude is missing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from '../src/runtime/control-client.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { listSessions } from '../src/runtime/session-directory.ts';
import { agentwatchArgv, runCli } from './support/agentwatch-e2e.ts';
import { startFakeAnthropic } from './support/fake-anthropic.ts';
import { CLAUDE_BIN, makeClaudeHome } from './support/claude-home.ts';
import { startPty } from './support/pty-driver.ts';
import { until } from './support/until.ts';

/** The selected row of Claude Code 2.1.332's `/model` menu: `❯ 4. Sonnet`. */
const selected = (screen: string) => /^\s*❯\s*(\d+)\./m.exec(screen)?.[1];

test('real Claude Code: send and send --append refuse while /model is open; after Esc, send submits twice', async () => {
  if (!existsSync(CLAUDE_BIN)) {
    console.log(`skipped: no Claude Code at ${CLAUDE_BIN}`);
    return;
  }
  const server = await startFakeAnthropic();
  const home = makeClaudeHome({ baseUrl: server.url });
  const dir = mkdtempSync(join(tmpdir(), 'aw-send-menus-'));
  const env = { ...home.env, AGENTWATCH_DIR: dir, PATH: process.env.PATH ?? '' };
  const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
  const pty = await startPty({
    command: process.execPath,
    args: agentwatchArgv(['run', '--name', 'm1', '--', CLAUDE_BIN, '--permission-mode', 'manual']),
    cwd: home.project,
    env,
  });
  const info = async (socket: string) =>
    (await request<{ session: SessionInfo }>(socket, { op: 'info' })).session;
  const why = () => `screen:\n${pty.screen()}\nserver:\n${server.dump(3000)}`;
  /** The model of each request that carried `text`. */
  const modelsFor = (text: string) =>
    server.messages().filter((m) => JSON.stringify(m).includes(text)).map((m) => m.model);
  const settings = () => {
    try {
      return readFileSync(join(home.home, '.claude', 'settings.json'), 'utf8');
    } catch {
      return '';
    }
  };
  try {
    await pty.waitForScreen(/\? for shortcuts/, 60_000);
    const s = await until(
      'the session listed',
      async () => (await listSessions(dir)).find((x) => x.name === 'm1'),
      20_000,
    );
    await until('idle', async () => (await info(s.socket)).state === 'idle', 30_000);

    // the person opens /model and moves the selection to Sonnet (an Enter would pick it)
    await pty.type('/model');
    await pty.waitForScreen(/❯[\s\u00a0]\/model/, 10_000);
    pty.send('\r');
    await pty.waitForScreen(/Select model/, 10_000);
    for (let i = 0; i < 3; i++) {
      const at = selected(pty.screen());
      pty.send('\x1b[B');
      await until('the selection moved', () => selected(pty.screen()) !== at, 5_000);
    }
    assert.is(selected(pty.screen()), '4', why());
    /** The menu's rows (the logo above it animates). */
    const menuRows = () => pty.screen().slice(pty.screen().indexOf('Select model'));
    const menu = menuRows();
    await until('idle with the menu open', async () => (await info(s.socket)).state === 'idle');

    // 1. --append: refused, nothing typed, nothing picked
    const appended = await runCli(['send', '--append', 'm1', 'x'], cliEnv, 30_000);
    assert.is(appended.code, 3, appended.stdout + appended.stderr);
    assert.match(appended.stderr, /shows a menu or dialog over its input box/);
    assert.match(appended.stderr, /nothing was typed/);
    // 2. plain: refused, naming the menu, not a draft
    const plain = await runCli(['send', 'm1', 'hello'], cliEnv, 30_000);
    assert.is(plain.code, 3, plain.stdout + plain.stderr);
    assert.match(plain.stderr, /shows a menu or dialog over its input box/);
    assert.not.match(plain.stderr, /holds text someone typed/);
    // the menu is still open, as the person left it: no key reached it
    assert.is(menuRows(), menu, why());
    assert.not.match(pty.screen(), /Set model to/);

    // 3. the person closes it; send types and submits, twice
    pty.send(pty.keyboardFlags() ? '\x1b[27u' : '\x1b');
    await pty.waitForScreen(/\? for shortcuts/, 10_000, { not: /Select model/ });
    assert.not.match(pty.screen(), /Set model to/, why());
    for (const round of [1, 2]) {
      await until('idle', async () => (await info(s.socket)).state === 'idle', 30_000);
      const text = `task-question after the menu, round ${round}`;
      const sent = await runCli(['send', 'm1', text], cliEnv, 30_000);
      assert.is(sent.code, 0, `round ${round}: ${sent.stdout}${sent.stderr}\n${why()}`);
      await until(`round ${round} reached the model`, () => modelsFor(text).length > 0, 30_000)
        .catch((e: Error) => {
          throw new Error(`${e.message}\n${why()}`);
        });
      // the model it started with (its banner: "Opus 5.5"), not the one selected in the menu
      for (const m of modelsFor(text)) {
        assert.ok(/opus/i.test(m ?? '') && !/sonnet/i.test(m ?? ''), `round ${round}: model ${m}`);
      }
      await until(
        `round ${round} answered`,
        async () => (await info(s.socket)).state === 'idle',
        30_000,
      );
    }
    assert.not.match(settings(), /"model"/, `no model saved: ${settings()}`);
  } finally {
    await pty.close();
    await server.close();
    home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
