/**
 * The start-up trust dialog of real Claude Code 2.1.332 is a prompt like any other: under
 * `agentwatch run` in a real PTY (fresh, untrusted project; fake Anthropic server on 127.0.0.1),
 * the session reads blocked with the dialog's question and its options without numbers
 * (`❯ No, exit` / `Yes, I trust this folder`), `agentwatch answer --yes NAME 2` moves the
 * selection down and presses Enter, and Claude Code goes on to its input box: idle. Also the
 * options of the dialog read from the real fixture. About 10 s. Skipped (with a printed
 * reason) when node_modules/.bin/claude is missing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readPrompt } from '../src/detect/prompt.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { listSessions } from '../src/runtime/session-directory.ts';
import { agentwatchArgv, runCli } from './support/agentwatch-e2e.ts';
import { startFakeAnthropic } from './support/fake-anthropic.ts';
import { CLAUDE_BIN, makeClaudeHome } from './support/claude-home.ts';
import { startPty } from './support/pty-driver.ts';
import { until } from './support/until.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);

test('readPrompt: the trust dialog and the theme picker, options without numbers', () => {
  const rows = (file: string) => {
    const t = new Terminal(32, 120);
    t.write(readFileSync(new URL(`claude-code/${file}`, FIXTURES)));
    return t.snapshot().rows;
  };
  const trust = readPrompt(rows('claude.blocked.trust.raw'));
  assert.is(trust.question, 'Is this a project you created or one you trust?');
  assert.equal(trust.options, ['No, exit', 'Yes, I trust this folder']);
  assert.is(trust.selected, 0);
  assert.ok(trust.details.includes('Accessing workspace:'), trust.details.join('|'));
  const theme = readPrompt(rows('claude.blocked.onboarding.theme.raw'));
  assert.equal(theme.options.slice(0, 3), ['Auto (match terminal)', '✔ Dark mode', 'Light mode']);
  assert.is(theme.selected, 1);
  // the input box is never an option list, a draft in it neither
  assert.equal(readPrompt(rows('claude.idle.trust.raw')).options, []);
  const rule = '─'.repeat(60);
  const draft = ['● Done.', '', rule, '❯ half a thought', '  and more', rule, '  ⏸ manual mode on'];
  assert.equal(readPrompt(draft).options, []);
});

test('real Claude Code: answer the start-up trust dialog through agentwatch', async () => {
  if (!existsSync(CLAUDE_BIN)) {
    console.log(`skipped: no Claude Code at ${CLAUDE_BIN}`);
    return;
  }
  const server = await startFakeAnthropic();
  const home = makeClaudeHome({
    baseUrl: server.url,
    projectConfig: { hasTrustDialogAccepted: false },
  });
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust-'));
  const env = { ...home.env, AGENTWATCH_DIR: dir, PATH: process.env.PATH ?? '' };
  const pty = await startPty({
    command: process.execPath,
    args: agentwatchArgv([
      'run',
      '--name',
      'trusty',
      '--no-hooks',
      '--',
      CLAUDE_BIN,
      '--permission-mode',
      'manual',
    ]),
    cwd: home.project,
    env,
  });
  try {
    await pty.waitForScreen(/Yes, I trust this folder/, 60_000);
    const blocked = await until('the session blocked', async () => {
      const s = (await listSessions(dir)).find((x) => x.name === 'trusty');
      return s?.state === 'blocked' ? s : null;
    }, 20_000);
    assert.is(blocked.question, 'Is this a project you created or one you trust?');
    assert.equal(blocked.options, ['No, exit', 'Yes, I trust this folder']);
    const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
    const answer = await runCli(['answer', '--yes', 'trusty', '2'], cliEnv, 30_000, { tty: true });
    assert.is(answer.code, 0, answer.stdout + answer.stderr);
    assert.match(answer.stdout, /answered: Yes, I trust this folder/);
    await pty.waitForScreen(/\? for shortcuts/, 60_000);
    await until('the session idle', async () => {
      const s = (await listSessions(dir)).find((x) => x.name === 'trusty');
      return s?.state === 'idle';
    }, 20_000);
    const cfg = JSON.parse(readFileSync(home.claudeJsonPath, 'utf8'));
    assert.is(
      cfg.projects[home.project].hasTrustDialogAccepted,
      true,
      'Claude Code saved the trust',
    );
  } finally {
    pty.send('\x03');
    await pty.close();
    await server.close();
    home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
