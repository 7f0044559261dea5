/**
 * Real Qwen Code 0.24.4 started with no model provider (the throwaway HOME of
 * test/support/agent-homes.ts without the `OPENAI_*` variables) asks the person to pick one in
 * a `Connect a Provider` box before it ever draws its composer. The session reads blocked (it
 * waits for the person), not `starting` for good (the tester's finding), and its row shows the
 * box's heading, its entries the options. Nothing is served on 127.0.0.1: Qwen makes no request before a provider is
 * picked. Skipped (with a printed reason) when node_modules/.bin/qwen is missing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { detailOf } from '../src/cli/board/rows.ts';
import { createHost } from '../src/runtime/default-host.ts';
import { makeQwenHome, QWEN_BIN } from './support/agent-homes.ts';
import { until } from './support/until.ts';

test('real Qwen Code without a provider: its Connect a Provider box reads blocked', async () => {
  if (!existsSync(QWEN_BIN)) {
    console.log(`  skipped: ${QWEN_BIN} is missing (npm ci installs Qwen Code)`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'aw-qwen-provider-'));
  const home = makeQwenHome({
    baseUrl: 'http://127.0.0.1:9',
    env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, OPENAI_MODEL: undefined },
  });
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  try {
    const session = await host.start({
      command: QWEN_BIN,
      args: [],
      name: 'qp',
      cwd: home.project,
      env: home.env,
      fullEnv: true,
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    await until('the Connect a Provider box', () => {
      return session.terminal.screenText().includes('Connect a Provider');
    }, 90_000);
    const info = await until('blocked', () => {
      w.classifyNow();
      return w.record.state === 'blocked' && w.info();
    }, 10_000).catch((e) => {
      throw new Error(
        `${e.message}: ${w.record.state} (${w.record.reason})\n${session.terminal.screenText()}`,
      );
    });
    assert.match(info.reason, /connect a provider/);
    // its heading is the question, its entries the options (src/detect/prompt.ts)
    assert.is(detailOf(info), 'Connect a Provider');
    assert.equal(info.options, ['Alibaba ModelStudio', 'Third-party Providers', 'Custom Provider']);
  } finally {
    await host.close();
    await home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
