/**
 * Real Qwen Code 0.24.4 starting under `agentwatch run` (a real PTY, its fake model server on
 * 127.0.0.1, a throwaway HOME): for a few seconds it shows a blank screen, its banner, then
 * `⠋ Initializing...` with no composer. Until the composer (`>   Type your message ...`) is
 * drawn the session reads working, not idle: `agentwatch wait NAME --until idle`, started with
 * the session, returns only once the composer is on screen, and `agentwatch send` during the
 * start-up never claims the (missing) input box holds a draft: it is refused as "no input box"
 * (or, when it came after the composer, typed). Prints when each happened. Skipped (with a
 * printed reason) when node_modules/.bin/qwen is missing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  followSession,
  recordScreenTruth,
  runCli,
  type ScreenTruth,
  type SessionFollower,
  startRun,
} from './support/agentwatch-e2e.ts';
import { type AgentHome, makeQwenHome, QWEN_BIN } from './support/agent-homes.ts';
import type { FakeModelServer } from './support/fake-model.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import type { PtyDriver } from './support/pty-driver.ts';
import { sleep } from './support/until.ts';

const COMPOSER = /Type your message or @path\/to\/file/;

test('real Qwen Code starting: working until its composer shows; send claims no draft', async () => {
  if (!existsSync(QWEN_BIN)) {
    console.log(`  skipped: ${QWEN_BIN} is missing (npm ci installs Qwen Code)`);
    return;
  }
  let server: FakeModelServer | undefined;
  let home: AgentHome | undefined;
  let pty: PtyDriver | undefined;
  let truth: ScreenTruth | undefined;
  let f: SessionFollower | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'aw-qwen-start-'));
  const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
  try {
    server = await startFakeOpenAI();
    home = makeQwenHome({ baseUrl: server.url });
    pty = await startRun(home, dir, ['--name', 'qs', '--', QWEN_BIN]);
    truth = recordScreenTruth(pty, {
      composer: (s) => COMPOSER.test(s),
      initializing: (s) => /Initializing\.\.\./.test(s) && !COMPOSER.test(s),
    }, 20);
    f = await followSession(dir, 'qs', 30_000);
    const t0 = pty.startedAt;
    const waited = runCli(['wait', 'qs', '--until', 'idle', '--timeout', '120'], cliEnv, 130_000);
    await truth.waitFor('initializing', true, 0, 90_000);
    const sent = await runCli(['send', 'qs', 'hello'], cliEnv, 60_000);
    const w = await waited;
    const composerAt = truth.now('composer')
      ? truth.firstAfter('composer', true, 0)!
      : await truth.waitFor('composer', true, 0, 90_000);
    const context = () =>
      `\n--- states ---\n${
        f!.received.map((r) => `${r.t - t0} ${r.info.state} ${r.info.reason}`).join('\n')
      }\n--- screen ---\n${pty!.screen()}`;
    console.log(
      `  real Qwen Code: Initializing... at ${
        truth.firstAfter('initializing', true, 0)! - t0
      } ms, composer at ${composerAt - t0} ms; wait --until idle returned at ${
        w.endedAt - t0
      } ms; send during the start-up: exit ${sent.code}, ${sent.stderr.trim() || 'typed'}`,
    );
    assert.is(w.code, 0, `${w.stdout}${w.stderr}${context()}`);
    assert.ok(w.endedAt >= composerAt, `wait returned before the composer showed${context()}`);
    // before the composer, no idle was published (the first line repeats the start)
    const early = f.received.filter((r) => r.t < composerAt && r.info.state === 'idle');
    assert.equal(early.map((r) => r.info.reason), [], context());
    assert.not.match(sent.stderr, /someone typed/, 'no draft claimed where no input box is');
    if (sent.code !== 0) assert.match(sent.stderr, /no input box/);
    else assert.ok(sent.endedAt >= composerAt, `typed before the composer${context()}`);
  } finally {
    truth?.stop();
    f?.close();
    if (pty && !pty.exit) {
      await pty.type('/quit');
      await sleep(300);
      pty.send('\r');
    }
    await pty?.close();
    await home?.cleanup();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
