/**
 * Real Qwen Code 0.24.4 under `agentwatch run` (a real PTY, a throwaway HOME) started without
 * the OPENAI_* variables shows its first-run `Connect a Provider` dialog and waits for the
 * person. What the person sees of it through agentwatch's command line: `wait --until blocked`
 * returns, the session's blocked line carries the dialog's heading as its question and its
 * entries as options, and one notice goes out (`--notify-cmd`). (test/agentwatch-qwen-provider
 * checks the blocked read and the board row in a host.) Skipped (with a printed reason) when
 * node_modules/.bin/qwen is missing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { followSession, runCli, startRun } from './support/agentwatch-e2e.ts';
import { type AgentHome, makeQwenHome, QWEN_BIN } from './support/agent-homes.ts';
import type { PtyDriver } from './support/pty-driver.ts';
import { until } from './support/until.ts';

const skip = () => {
  if (existsSync(QWEN_BIN)) return false;
  console.log(`  skipped: ${QWEN_BIN} is missing (npm ci installs Qwen Code)`);
  return true;
};

test('real Qwen Code, first run without a provider: blocked with its question and entries, one notice', async () => {
  if (skip()) return;
  const dir = mkdtempSync(join(tmpdir(), 'aw-qwen-first-'));
  const log = join(dir, 'notices.jsonl');
  const script = join(dir, 'log.cjs');
  writeFileSync(
    script,
    `const e = process.env; require('fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(` +
      `{notice: e.AGENTWATCH_NOTICE, question: e.AGENTWATCH_QUESTION}) + '\\n');`,
  );
  const notices = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
      : [];
  const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
  // no model server: without a provider Qwen asks before it sends anything
  const home: AgentHome = makeQwenHome({
    baseUrl: 'http://127.0.0.1:9',
    env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, OPENAI_MODEL: undefined },
  });
  let pty: PtyDriver | undefined;
  const f = { close: () => {} };
  try {
    pty = await startRun(home, dir, [
      '--name',
      'qp',
      '--notify-cmd',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`,
      '--',
      QWEN_BIN,
    ]);
    const follower = await followSession(dir, 'qp', 30_000);
    f.close = () => follower.close();
    const w = await runCli(
      ['wait', 'qp', '--until', 'blocked', '--timeout', '120'],
      cliEnv,
      130_000,
    );
    const context = () =>
      `\n--- states ---\n${
        follower.received.map((r) => `${r.info.state} ${r.info.reason}`).join('\n')
      }\n--- screen ---\n${pty!.screen()}`;
    assert.is(w.code, 0, `${w.stdout}${w.stderr}${context()}`);
    assert.match(pty.screen(), /Connect a Provider/, context());
    const blocked = await until(
      'the blocked line with its question',
      () => follower.received.find((r) => r.info.state === 'blocked' && r.info.question),
      30_000,
    );
    assert.is(blocked.info.question, 'Connect a Provider', context());
    assert.equal(blocked.info.options, [
      'Alibaba ModelStudio',
      'Third-party Providers',
      'Custom Provider',
    ]);
    const [notice] = await until('a notice', () => notices().length > 0 && notices(), 30_000);
    assert.is(notice.question, 'Connect a Provider', JSON.stringify(notices()));
    assert.is(notices().length, 1, JSON.stringify(notices()));
  } finally {
    f.close();
    await pty?.close();
    await home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
