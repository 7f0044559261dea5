/**
 * `answer` on real Claude Code 2.1.332 (`agentwatch run -- claude --permission-mode manual` in
 * a real PTY, with its hooks; fake Anthropic server on 127.0.0.1), answering as fast as a
 * script can, from a terminal of its own as a person's `answer` runs:
 *
 * 1. six rounds in one session, `task-bash round N` each, answered with option 1 at once after
 *    the session reads blocked, or 0.15 s after (test/support/answer-rounds.ts). Claude Code
 *    ignores keys that reach a dialog in its first 100-200 ms; `answer` waits for the dialog
 *    to settle, types the digit (claude.toml's `[answer] keys = "digit"`) and replies only once
 *    the prompt left the screen: every answer is confirmed, the session is not blocked on that
 *    prompt right after, the dialog is gone then and 1 s later, the command ran;
 * 2. `agentwatch answer --yes c1 1 >/dev/null && agentwatch wait c1 --until blocked --timeout
 *    3` (real processes, one shell) after a single-prompt task: `wait` times out (exit 1), it
 *    does not report the prompt just answered;
 * 3. the same after a task that asks twice (two Bash commands): `wait` returns (exit 0) for the
 *    genuinely new prompt, which is about the second command.
 *
 * The figures (answers tried / confirmed / prompt gone) are printed. About 60-90 s. Skipped
 * (with a printed reason) when node_modules/.bin/claude is missing.
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
import type { AnswerRound } from './support/answer-rounds.ts';
import { inPty } from './support/cli.ts';
import { type ScriptRule, startFakeAnthropic } from './support/fake-anthropic.ts';
import { CLAUDE_BIN, makeClaudeHome, REPO_ROOT } from './support/claude-home.ts';
import { startPty } from './support/pty-driver.ts';
import { until } from './support/until.ts';

/** Delays between blocked and the answer, ms: at once and 0.15 s, three times each. */
const DELAYS = [0, 150, 0, 150, 0, 150];

const bash = (command: string) => ({
  type: 'tool_use' as const,
  name: 'Bash',
  input: { command, description: `Run ${command}` },
});

/** `task-twice`: Bash `touch one.txt`, then (once it ran) Bash `touch two.txt`, then done. */
const TWICE: ScriptRule[] = [
  {
    name: 'task-twice/done',
    match: (c) =>
      c.task === 'task-twice' && c.toolResults.some((r) => r.toolUse?.rule === 'task-twice/two'),
    reply: () => ({ content: [{ type: 'text', text: 'Both files are there.' }] }),
  },
  {
    name: 'task-twice/two',
    match: (c) =>
      c.task === 'task-twice' && c.toolResults.some((r) => r.toolUse?.rule === 'task-twice/one'),
    reply: () => ({ content: [bash('touch two.txt')] }),
  },
  {
    name: 'task-twice/one',
    match: (c) => c.task === 'task-twice' && c.toolResults.length === 0,
    reply: () => ({ content: [{ type: 'text', text: 'Two files.' }, bash('touch one.txt')] }),
  },
];

/** A shell word for `sh -c`. */
const word = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** `agentwatch ARGS` as a shell command line (from source). */
const aw = (...args: string[]) => [process.execPath, ...agentwatchArgv(args)].map(word).join(' ');

test('real Claude Code: answer at once, confirmed only once the prompt left', async () => {
  if (!existsSync(CLAUDE_BIN)) {
    console.log(`skipped: no Claude Code at ${CLAUDE_BIN}`);
    return;
  }
  const server = await startFakeAnthropic({ rules: TWICE });
  const home = makeClaudeHome({ baseUrl: server.url });
  const dir = mkdtempSync(join(tmpdir(), 'aw-answer-'));
  const env = { ...home.env, AGENTWATCH_DIR: dir, PATH: process.env.PATH ?? '' };
  const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
  const pty = await startPty({
    command: process.execPath,
    args: agentwatchArgv(['run', '--name', 'c1', '--', CLAUDE_BIN, '--permission-mode', 'manual']),
    cwd: home.project,
    env,
  });
  const info = async (socket: string) =>
    (await request<{ session: SessionInfo }>(socket, { op: 'info' })).session;
  try {
    await pty.waitForScreen(/\? for shortcuts/, 60_000);
    const s = await until(
      'the session listed',
      async () => (await listSessions(dir)).find((x) => x.name === 'c1'),
      20_000,
    );
    await until('idle', async () => (await info(s.socket)).state === 'idle', 30_000);

    // 1. rounds answered at once and 0.15 s after blocked
    const run = await inPty(
      [
        process.execPath,
        '--import',
        'tsx',
        join(REPO_ROOT, 'test', 'support', 'answer-rounds.ts'),
        s.socket,
        DELAYS.join(','),
        home.project,
      ],
      cliEnv,
      300_000,
    );
    const rounds: AnswerRound[] = run.stdout.split('\n').filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    const detail = `${run.stdout}\n${run.stderr}`;
    assert.ok(run.stdout.includes('DONE'), detail);
    assert.is(rounds.length, DELAYS.length, detail);
    const confirmed = rounds.filter((r) => r.answered === '1. Yes').length;
    const gone = rounds.filter((r) => !r.dialogAfter && !r.dialogLater).length;
    console.log(
      `answer on real Claude Code: ${rounds.length} tried, ${confirmed} confirmed, ` +
        `prompt gone ${gone}; ms per answer: ${rounds.map((r) => r.answerMs).join(' ')}`,
    );
    for (const r of rounds) {
      const what = `round ${r.round} (${r.delayMs} ms): ${JSON.stringify(r)}`;
      assert.is(r.answered, '1. Yes', what);
      assert.not.ok(r.blockedOnSame, `not blocked on the prompt just answered: ${what}`);
      assert.not.ok(r.dialogAfter, `the dialog gone when answer replied: ${what}`);
      assert.not.ok(r.dialogLater, `the dialog gone 1 s later: ${what}`);
      assert.ok(r.fileCreated, `the command ran: ${what}`);
    }

    // 2. answer && wait --until blocked: no new prompt, wait times out
    await pty.type('task-bash one more');
    pty.send('\r');
    const blocked = await runCli(
      ['wait', 'c1', '--until', 'blocked', '--timeout', '60'],
      cliEnv,
      70_000,
    );
    assert.is(blocked.code, 0, blocked.stdout + blocked.stderr);
    const once = await inPty(
      [
        '/bin/sh',
        '-c',
        `${aw('answer', '--yes', 'c1', '1')} >/dev/null && ` +
        `${aw('wait', 'c1', '--until', 'blocked', '--timeout', '3')}; echo "rc=$?"`,
      ],
      cliEnv,
      60_000,
    );
    assert.match(once.stdout, /rc=1/, `wait timed out: ${once.stdout}${once.stderr}`);
    assert.not.match(once.stdout, /c1 blocked/, once.stdout);
    await until('idle', async () => (await info(s.socket)).state === 'idle', 30_000);

    // 3. a task that asks twice: wait returns for the second prompt
    await pty.type('task-twice please');
    pty.send('\r');
    const first = await runCli(
      ['wait', 'c1', '--until', 'blocked', '--timeout', '60'],
      cliEnv,
      70_000,
    );
    assert.is(first.code, 0, first.stdout + first.stderr);
    await until(
      'the first command on screen',
      async () => ((await info(s.socket)).details ?? []).some((d) => d.includes('touch one.txt')),
      20_000,
    );
    const twice = await inPty(
      [
        '/bin/sh',
        '-c',
        `${aw('answer', '--yes', 'c1', '1')} >/dev/null && ` +
        `${aw('wait', 'c1', '--until', 'blocked', '--timeout', '30')}; echo "rc=$?"`,
      ],
      cliEnv,
      90_000,
    );
    assert.match(twice.stdout, /c1 blocked/, twice.stdout + twice.stderr);
    assert.match(twice.stdout, /rc=0/, twice.stdout);
    const second = await until('the second prompt', async () => {
      const i = await info(s.socket);
      return i.state === 'blocked' && (i.details ?? []).some((d) => d.includes('touch two.txt'))
        ? i
        : null;
    }, 20_000);
    assert.is(second.question, 'Do you want to proceed?');
    const last = await runCli(['answer', '--yes', 'c1', '1'], cliEnv, 30_000, { tty: true });
    assert.is(last.code, 0, last.stdout + last.stderr);
    await pty.waitForScreen(/Both files are there/, 30_000);
    assert.ok(existsSync(join(home.project, 'two.txt')), 'the second command ran');
  } finally {
    pty.send('\x03');
    await pty.close();
    await server.close();
    home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
