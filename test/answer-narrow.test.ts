/**
 * Real Qwen Code 0.24.4 in an 8x30 pane asks for approval: its dialog does not fit, only its
 * spinner line shows, and no option can be read. `answer` refuses (nothing typed) and says
 * what to do: make the pane larger. Made 32x120, the dialog is drawn again and the same
 * `answer` answers it. Its fake model server on 127.0.0.1 (skipped, with a printed reason,
 * when node_modules/.bin/qwen is missing).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { readPrompt } from '../src/runtime/control-client.ts';
import { noOptionsMessage } from '../src/cli/board/answering.ts';
import { makeQwenHome, QWEN_BIN } from './support/agent-homes.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import { cli, cliInProcess } from './support/cli.ts';
import { until } from './support/until.ts';

test('noOptionsMessage: a small pane is told to grow, a large one to answer in its pane', () => {
  assert.match(
    noOptionsMessage({ name: 'tiny', rows: 8, cols: 30 }, '⠏ Waiting for user confirmat'),
    /^tiny is blocked, but its pane \(30x8\) is too small to show the dialog's options \(its screen ends with "⠏ Waiting for user confirmat"\); nothing was typed: make the pane larger \(32 rows x 120 columns is enough/,
  );
  assert.match(
    noOptionsMessage({ name: 'big', rows: 40, cols: 120 }),
    /^big is blocked but its screen shows no numbered options; nothing was typed: answer in its pane$/,
  );
});

test('real Qwen Code at 8x30: answer refuses, saying to make the pane larger; made larger, it answers', async () => {
  if (!existsSync(QWEN_BIN)) {
    console.log(`  skipped: ${QWEN_BIN} is missing (npm ci installs Qwen Code)`);
    return;
  }
  const server = await startFakeOpenAI();
  const home = makeQwenHome({ baseUrl: server.url });
  const dir = mkdtempSync(join(tmpdir(), 'aw-qwen-answer-narrow-'));
  const env = { ...process.env, AGENTWATCH_DIR: dir };
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const session = await host.start({
      command: QWEN_BIN,
      args: [],
      name: 'tiny',
      cwd: home.project,
      env: home.env,
      fullEnv: true,
      headless: true,
      rows: 8,
      cols: 30,
    });
    const w = host.ptyPane(session.id)!;
    const screen = () => session.terminal.screenText();
    await until('its composer, idle', () => {
      w.classifyNow();
      return w.record.state === 'idle' && /@path\/to\/file/.test(screen());
    }, 90_000).catch((e) => {
      throw new Error(`${e.message}: ${w.record.reason}\n${screen()}`);
    });
    await w.send('Please do task-bash round 1.', { enter: true, append: false });
    await until('its approval, blocked', () => {
      w.classifyNow();
      return w.record.state === 'blocked' && /Waiting for user confirmat/.test(screen());
    }, 90_000).catch((e) => {
      throw new Error(`${e.message}: ${w.record.reason}\n${screen()}`);
    });
    let typed = 0;
    session.onInput((d) => (typed += d.length));
    const refused = await cliInProcess(['answer', '--yes', 'tiny', '1'], env);
    assert.is(refused.code, 3, refused.stdout + refused.stderr);
    assert.match(
      refused.stderr,
      /tiny is blocked, but its pane \(30x8\) is too small to show the dialog's options \(its screen ends with ".{1,2} Waiting for user confirmat \/ i…"\); nothing was typed: make the pane larger \(32 rows x 120 columns/,
    );
    assert.is(typed, 0, 'nothing typed');
    // The person makes the pane larger: the dialog is drawn again, and answer answers it.
    w.resize(32, 120);
    const p = await until('its options, drawn again', async () => {
      const p = await readPrompt(session.spec.socket);
      return p.options.length > 0 && p;
    }, 30_000).catch((e) => {
      throw new Error(`${e.message}\n${screen()}`);
    });
    assert.is(p.options[0], '1. Yes, allow once');
    // A person answers from a terminal of their own (answer's peer check).
    const answered = await cli(['answer', '--yes', 'tiny', '1'], env, { tty: true });
    assert.is(answered.code, 0, answered.stdout + answered.stderr);
    assert.match(answered.stdout, /answered: 1\. Yes, allow once/);
  } finally {
    await host.close();
    await home.cleanup();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
