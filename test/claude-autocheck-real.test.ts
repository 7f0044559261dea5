/**
 * Real Claude Code 2.1.332 in auto mode (no `--permission-mode`: its default) against the fake
 * Anthropic server on 127.0.0.1, which does not pass the server-side auto-mode check:
 * `agentwatch run --no-hooks --name a1 -- claude` in a real PTY, the screen rules alone
 * deciding (the hooks' reports are another matter). Two prompts, each a Bash write outside the
 * project (auto mode runs writes inside it unasked):
 * 1. the first opens the notice "Auto mode can't check actions in this session" (`Enter to stay
 *    in auto mode · ...`): the host reads blocked with that question, and `send` refuses
 *    (exit 3) while it shows; Enter, then the Bash dialog `❯ No` / `Yes` reads blocked, ↓ Enter
 *    approves it, the turn ends idle;
 * 2. the second prompt's Bash dialog (no notice this time) reads blocked too.
 * About 40 s. Skipped (with a printed reason) when node_modules/.bin/claude is missing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from '../src/runtime/control-client.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { listSessions } from '../src/runtime/session-directory.ts';
import { agentwatchArgv, runCli } from './support/agentwatch-e2e.ts';
import { inPty } from './support/cli.ts';
import { type ScriptRule, startFakeAnthropic } from './support/fake-anthropic.ts';
import { CLAUDE_BIN, makeClaudeHome } from './support/claude-home.ts';
import { startPty } from './support/pty-driver.ts';
import { until } from './support/until.ts';

/** `task-NAME`: a Bash write of NAME.txt beside the project, then "Done NAME." once it ran. */
function writeOutside(name: string): ScriptRule[] {
  const task = `task-${name}`;
  return [
    {
      name: `${task}/done`,
      match: (c) => c.task === task && c.toolResults.length > 0,
      reply: () => ({ content: [{ type: 'text', text: `Done ${name}.` }] }),
    },
    {
      name: `${task}/tool`,
      match: (c) => c.task === task && c.toolResults.length === 0,
      reply: (c) => ({
        content: [{ type: 'text', text: 'One moment.' }, {
          type: 'tool_use',
          name: 'Bash',
          input: { command: `echo hi > ${c.cwd}/../${name}.txt`, description: `Write ${name}.txt` },
        }],
      }),
    },
  ];
}

test('real Claude Code in auto mode: the "can\'t check actions" notice and the dialogs after it read blocked, twice', async () => {
  if (!existsSync(CLAUDE_BIN)) {
    console.log(`skipped: no Claude Code at ${CLAUDE_BIN}`);
    return;
  }
  const server = await startFakeAnthropic({
    rules: [...writeOutside('autofirst'), ...writeOutside('autosecond')],
  });
  const home = makeClaudeHome({ baseUrl: server.url });
  const dir = mkdtempSync(join(tmpdir(), 'aw-autocheck-'));
  const env = { ...home.env, AGENTWATCH_DIR: dir, PATH: process.env.PATH ?? '' };
  const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
  const pty = await startPty({
    command: process.execPath,
    args: agentwatchArgv(['run', '--no-hooks', '--name', 'a1', '--', CLAUDE_BIN]),
    cwd: home.project,
    env,
  });
  const why = () => `screen:\n${pty.screen()}\nserver:\n${server.dump(3000)}`;
  const info = async (socket: string) =>
    (await request<{ session: SessionInfo }>(socket, { op: 'info' })).session;
  try {
    await pty.waitForScreen(/auto mode on/, 60_000);
    const s = await until(
      'the session listed',
      async () => (await listSessions(dir)).find((x) => x.name === 'a1'),
      20_000,
    );
    await until('idle', async () => (await info(s.socket)).state === 'idle', 30_000);
    /** Waits for the host to read blocked with `question`. */
    const blocked = (what: string, question: string) =>
      until(what, async () => {
        const i = await info(s.socket);
        return i.state === 'blocked' && i.question === question;
      }, 10_000).catch(async (e: Error) => {
        throw new Error(`${e.message}: ${JSON.stringify(await info(s.socket))}\n${why()}`);
      });
    /**
     * The Bash dialog (`❯ No` / `Yes`, no numbers): read blocked, then approved with
     * `agentwatch answer --yes a1 2` from a terminal of its own, as a person would (it waits
     * out the dialog's first moments, when Claude Code drops keys, and moves the selection).
     */
    const approve = async () => {
      await pty.waitForScreen(/needs your approval[^]*❯ No/, 30_000);
      await blocked('the Bash dialog read blocked', 'Do you want to proceed?');
      const answered = await inPty(
        [process.execPath, ...agentwatchArgv(['answer', '--yes', 'a1', '2'])],
        cliEnv,
        60_000,
      );
      assert.match(answered.stdout, /answered: .*Yes/, answered.stdout + answered.stderr + why());
    };

    // 1. the notice
    const first = await runCli(['send', 'a1', 'task-autofirst please'], cliEnv, 30_000);
    assert.is(first.code, 0, first.stdout + first.stderr);
    await pty.waitForScreen(/Enter to stay in auto mode/, 60_000);
    await blocked('the notice read blocked', "Auto mode can't check actions in this session");
    const refused = await runCli(['send', 'a1', 'hello'], cliEnv, 30_000);
    assert.is(refused.code, 3, refused.stdout + refused.stderr);
    assert.ok(!server.messages().some((m) => JSON.stringify(m).includes('hello')), why());
    pty.send('\r');
    await approve();
    await pty.waitForScreen(/Done autofirst\./, 30_000);
    await until(
      'idle after the first turn',
      async () => (await info(s.socket)).state === 'idle',
      30_000,
    );

    // 2. the second prompt of the session: its dialog alone
    const second = await runCli(['send', 'a1', 'task-autosecond please'], cliEnv, 30_000);
    assert.is(second.code, 0, second.stdout + second.stderr);
    await approve();
    await pty.waitForScreen(/Done autosecond\./, 30_000);
    await until(
      'idle after the second turn',
      async () => (await info(s.socket)).state === 'idle',
      30_000,
    );
  } finally {
    await pty.close();
    await server.close();
    home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
