/**
 * `send` while real Claude Code 2.1.332 (dev dependency) runs its PreToolUse hooks: a tool call
 * it has not yet decided to ask permission for. Its dialog follows at once, and keys that a
 * busy Claude reads late go to it (tester7: `send c1 "1"` right after a task approved its Bash
 * dialog 7 of 19 times on a loaded machine). The hook here is the person's own (`sleep 3`, in
 * the user settings, so the window is 3 s long on any machine); `send` waits until the screen
 * has said `running PreToolUse hooks` no more for a moment (`[input] pending`), sees the
 * dialog, and types nothing (exit 3). Twice in a row; the dialog is never answered by it.
 */
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toolPending } from '../src/detect/evaluate.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { GUARD_EXIT } from '../src/runtime/typing-guard.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { UserError } from '../src/errors.ts';
import { CLAUDE_BIN, claudeArgs, makeClaudeHome } from './support/claude-home.ts';
import { startFakeAnthropic } from './support/fake-anthropic.ts';
import { startHostedAgent } from './support/hosted-agent.ts';
import { until } from './support/until.ts';

const claude = loadBundledManifests().get('claude')!;

/** A screen of `rows` (top first). */
function screenOf(rows: string[]) {
  const t = new Terminal(12, 100);
  t.write(new TextEncoder().encode(rows.join('\r\n')));
  return t.snapshot();
}

test('[input] pending: the spinner line while PreToolUse hooks run, not the same words elsewhere', () => {
  const box = ['─'.repeat(100), '❯ ', '─'.repeat(100), '  ⏸ manual mode on · esc to interrupt'];
  // seen on 2.1.332 (this file's session) and by tester7
  for (
    const line of [
      '✢ Accomplishing… (running PreToolUse hooks… 0/2 · 1s · ↓ 2 tokens)',
      '✻ Working… (esc to interrupt · running PreToolUse hook · 3s)',
    ]
  ) assert.ok(toolPending(screenOf(['● Creating hello.txt', line, ...box]), claude), line);
  const after = '✻ Working… (esc to interrupt · running Stop hook · 4s)';
  assert.not.ok(toolPending(screenOf(['● Done.', after, ...box]), claude), 'a Stop hook');
  assert.not.ok(toolPending(screenOf(['● Done.', ...box]), claude), 'no hook');
});

if (!existsSync(CLAUDE_BIN)) {
  console.log(`send-tool-pending: skipped: ${CLAUDE_BIN} is missing (npm ci installs it)`);
} else {
  test('send during a PreToolUse hook of real Claude Code waits for the dialog and types nothing, twice', async () => {
    // each task asks for one Bash call; a call the person refused (Esc) comes back as an error
    // result in the same message as the next task, which asks again
    const server = await startFakeAnthropic({
      rules: [{
        name: 'task-pending/tool',
        match: (c) => c.task === 'task-pending' && c.toolResults.every((t) => t.isError),
        reply: (c) => ({
          content: [{
            type: 'tool_use',
            name: 'Bash',
            input: {
              command: `touch ${c.promptText.replace(/\W+/g, '-')}.txt`,
              description: 'Touch',
            },
          }],
        }),
      }],
    });
    const home = makeClaudeHome({
      baseUrl: server.url,
      settings: {
        hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'sleep 3' }] }] },
      },
    });
    const a = await startHostedAgent(
      'aw-tool-pending-',
      { command: CLAUDE_BIN, args: claudeArgs(), env: home.env, cwd: home.project },
      30,
      100,
    ).catch(async (e) => {
      await server.close();
      home.cleanup();
      throw e;
    });
    try {
      const { session: s, pane: w } = a;
      const state = (want: string, what: string) =>
        until(what, () => w.classifyNow().state === want, 60_000, 50).catch((e: Error) => {
          throw new Error(`${e.message}: ${w.record.state}\n${s.terminal.screenText()}`);
        });
      await until('the input box', () => /manual mode on/.test(s.terminal.screenText()), 60_000);
      await state('idle', 'idle');
      for (const round of [1, 2]) {
        await w.send(`task-pending round ${round}`, { enter: true, append: false });
        await until(
          `round ${round}: the PreToolUse hook running`,
          () => /running PreToolUse hook/.test(s.terminal.screenText()),
          30_000,
          10,
        ).catch((e: Error) => {
          throw new Error(`${e.message}\n${s.terminal.screenText()}\n${server.dump()}`);
        });
        let typed = '';
        const off = s.onInput((d) => (typed += Buffer.from(d).toString('latin1')));
        const result = await w.send('1', { enter: true, append: false }).then(
          (n) => n,
          (e: unknown) => e,
        ).finally(off);
        assert.instance(result, UserError, `round ${round}: ${String(result)}`);
        assert.is((result as UserError).exitCode, GUARD_EXIT);
        // the dialog named, or (a hook's report said blocked before it was drawn) the wait for it
        assert.match(
          (result as UserError).message,
          /Do you want to proceed\?|is waiting for a permission answer/,
          (result as UserError).message,
        );
        assert.is(typed, '', `round ${round}: nothing typed`);
        assert.is(w.classifyNow().state, 'blocked', `round ${round}: the dialog waits`);
        assert.equal(server.toolResults().filter((t) => !t.isError), [], 'no tool ran');
        s.write(Buffer.from('\x1b')); // the person says no
        await state('idle', `round ${round}: idle again`);
      }
    } finally {
      await a.close();
      await server.close();
      home.cleanup();
    }
  });
}

test.run();
