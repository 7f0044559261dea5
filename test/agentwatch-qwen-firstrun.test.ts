/**
 * Real Qwen Code 0.24.4 under `agentwatch run` (a real PTY, a throwaway HOME), two screens a
 * fresh user met:
 * - started without the OPENAI_* variables it shows its first-run `Connect a Provider` dialog
 *   and waits for the person: the session reads blocked with the dialog's heading and entries,
 *   `wait --until blocked` returns, and the person gets one notice (`--notify-cmd`);
 * - in an 8x30 pane the empty composer's placeholder wraps onto two rows: `send` still sees an
 *   empty input box and types the message, which reaches the fake model server on 127.0.0.1.
 * Skipped (with a printed reason) when node_modules/.bin/qwen is missing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentwatchArgv, followSession, runCli } from './support/agentwatch-e2e.ts';
import { type AgentHome, makeQwenHome, QWEN_BIN } from './support/agent-homes.ts';
import type { FakeModelServer } from './support/fake-model.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';
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
    pty = await startPty({
      command: process.execPath,
      args: agentwatchArgv([
        'run',
        '--name',
        'qp',
        '--notify-cmd',
        `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`,
        '--',
        QWEN_BIN,
      ]),
      cwd: home.project,
      env: { ...home.env, AGENTWATCH_DIR: dir },
    });
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
    home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('real Qwen Code in an 8x30 pane: the wrapped placeholder is an empty box, send types', async () => {
  if (skip()) return;
  const dir = mkdtempSync(join(tmpdir(), 'aw-qwen-narrow-'));
  const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
  let server: FakeModelServer | undefined;
  let home: AgentHome | undefined;
  let pty: PtyDriver | undefined;
  try {
    server = await startFakeOpenAI();
    home = makeQwenHome({ baseUrl: server.url });
    pty = await startPty({
      command: process.execPath,
      args: agentwatchArgv(['run', '--name', 'qn', '--', QWEN_BIN]),
      cwd: home.project,
      env: { ...home.env, AGENTWATCH_DIR: dir },
      rows: 8,
      cols: 30,
    });
    const w = await runCli(['wait', 'qn', '--until', 'idle', '--timeout', '120'], cliEnv, 130_000);
    assert.is(w.code, 0, `${w.stdout}${w.stderr}\n${pty.screen()}`);
    await until(
      'the wrapped placeholder',
      () => /Type your message or\n\s+@path/.test(pty!.screen()),
      60_000,
    );
    const sent = await runCli(['send', 'qn', 'task-question hi'], cliEnv, 60_000);
    assert.is(sent.code, 0, `${sent.stderr}\n${pty.screen()}`);
    await until(
      'the message at the model server',
      () => server!.turns().some((e) => e.task === 'task-question'),
      60_000,
    );
  } finally {
    await pty?.close();
    home?.cleanup();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
