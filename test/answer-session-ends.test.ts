/**
 * `answer` to an agent that ends its session after reading the key, as Gemini CLI 0.61.0 does
 * after its folder-trust dialog with GEMINI_CLI_NO_RELAUNCH=true (it saves the trust, draws
 * `Gemini CLI is restarting to apply the trust changes...` and exits with code 199 250 ms
 * later; nothing starts it again). Before, the session's host closed the control socket as the
 * session ended, before the answer's reply was written: `answer` printed nothing for 75 s and
 * then "no answer within 75000 ms (its host is busy or stopped)", exit 6, and the board said
 * "not answered" (tester t10, M3: 2 of 3 in `run`, 1 of 1 on the board). Now the reply comes at
 * once: exit 0, `answered: 1. Yes`, saying that the session then ended.
 *
 * A Claude-like dialog (test/support/fake-dialog.ts; the bundled claude.toml's rules and
 * `[answer] keys = "digit"`) that exits 199 after reading `1`, in `agentwatch run` in a real PTY
 * and in a detached session (the background host, `run --detach`); `answer --yes` runs in a
 * terminal of its own, as a person's does. Then the same with real Gemini CLI 0.61.0 (dev
 * dependency; skipped, saying so, when missing) and its folder-trust dialog, in `run`. About
 * 30-90 s.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentwatchArgv, runCli } from './support/agentwatch-e2e.ts';
import { GEMINI_BIN, makeGeminiHome } from './support/agent-homes.ts';
import { CLAUDE_DIALOG } from './support/fake-dialog.ts';
import { startFakeGemini } from './support/fake-gemini.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';
import { sandbox } from './support/sandbox.ts';
import { until } from './support/until.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';

/**
 * argv LOG: the dialog; logs `K <hex>` per key; on `1` draws a restart notice under the dialog
 * and exits 199 250 ms later (Gemini CLI's folder trust without its relaunch).
 */
const ENDING = CLAUDE_DIALOG + String.raw`
const [log] = process.argv.slice(2);
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  fs.appendFileSync(log, 'K ' + d.toString('hex') + '\n');
  if (d.toString() !== '1') return;
  out.write('\r\n Restarting to apply the changes...');
  setTimeout(() => process.exit(199), 250);
});
draw();
`;

/** The session named `name` in `env`'s socket folder, once `ls` lists it blocked. */
async function blockedSession(name: string, env: Record<string, string>): Promise<SessionInfo> {
  return await until(
    `${name} blocked`,
    async () => {
      const r = await runCli(['ls', '--json'], env);
      const found = (JSON.parse(r.stdout || '[]') as SessionInfo[]).find((s) => s.name === name);
      return found?.state === 'blocked' && found;
    },
    60_000,
    200,
  );
}

/** `agentwatch answer --yes NAME 1` from a terminal of its own; its outcome. */
async function answer(name: string, env: Record<string, string>) {
  return await runCli(['answer', '--yes', name, '1'], env, 120_000, { tty: true });
}

for (const where of ['run', 'run --detach'] as const) {
  test(`${where}: the dialog's program exits after reading the key: answered, at once`, async () => {
    const { dir, env } = sandbox('aw-ans-end-');
    const log = join(dir, 'log');
    const script = join(dir, 'ending.cjs');
    writeFileSync(log, '');
    writeFileSync(script, ENDING);
    const argv = ['--no-desktop', '--name', 'g2', '--agent', 'claude', '--', process.execPath];
    let pty: PtyDriver | undefined;
    try {
      if (where === 'run') {
        pty = await startPty({
          command: process.execPath,
          args: agentwatchArgv(['run', ...argv, script, log]),
          env,
          cwd: dir,
          rows: 30,
          cols: 120,
        });
      } else {
        const r = await runCli(['run', '--detach', ...argv, script, log], env, 60_000, {
          cwd: dir,
        });
        assert.is(r.code, 0, r.stderr);
      }
      await blockedSession('g2', env);
      const a = await answer('g2', env);
      const keys = readFileSync(log, 'utf8').trim();
      // before: nothing for 75 s, then "no answer within 75000 ms (its host is busy or
      // stopped)", exit 6
      assert.is(a.code, 0, `${a.stdout}${a.stderr}; keys: ${keys}`);
      assert.match(a.stdout, /answered: 1\. Yes/);
      assert.match(a.stdout, /g2 then ended \(exit code 199\)/, a.stdout);
      assert.is(keys, 'K 31', 'one key');
      if (pty) {
        const exit = await pty.exited;
        assert.is(exit.exitCode, 199, pty.screen());
      }
    } finally {
      await pty?.close();
      // the detached host goes away with its last session
      await until(
        'no host left',
        () => !existsSync(join(env.AGENTWATCH_DIR, 'host.socket')),
        30_000,
      )
        .catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

if (!existsSync(GEMINI_BIN)) {
  console.log(`answer-session-ends: skipped Gemini: ${GEMINI_BIN} is missing (npm ci installs it)`);
  test.skip('run: Gemini CLI folder trust with GEMINI_CLI_NO_RELAUNCH=true');
} else {
  test('run: Gemini CLI folder trust with GEMINI_CLI_NO_RELAUNCH=true: answered, the session ended', async () => {
    const server = await startFakeGemini();
    const home = makeGeminiHome({ baseUrl: server.url, trusted: false });
    const { dir, env } = sandbox('aw-ans-end-gemini-');
    let pty: PtyDriver | undefined;
    try {
      assert.is(home.env.GEMINI_CLI_NO_RELAUNCH, 'true');
      pty = await startPty({
        command: process.execPath,
        args: agentwatchArgv(['run', '--no-desktop', '--name', 'g2', '--', GEMINI_BIN]),
        env: { ...home.env, ...pick(env), TERM: 'xterm-256color' },
        cwd: home.project,
        rows: 30,
        cols: 100,
      });
      const info = await blockedSession('g2', env);
      assert.is(info.question, 'Do you trust the files in this folder?', JSON.stringify(info));
      const a = await answer('g2', env);
      assert.is(a.code, 0, `${a.stdout}${a.stderr}\n${pty.screen()}`);
      assert.match(a.stdout, /answered: 1\. Trust folder/);
      assert.match(a.stdout, /g2 then ended \(exit code 199\)/, a.stdout);
      const exit = await pty.exited;
      assert.is(exit.exitCode, 199, pty.screen());
      const trust = JSON.parse(
        readFileSync(join(home.home, '.gemini', 'trustedFolders.json'), 'utf8'),
      );
      assert.is(trust[home.project], 'TRUST_FOLDER');
    } finally {
      await pty?.close();
      await home.cleanup();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** The agentwatch part of a sandbox's environment (its socket, config, state and cache folders). */
function pick(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['AGENTWATCH_DIR', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME']) {
    out[k] = env[k];
  }
  return out;
}

test.run();
