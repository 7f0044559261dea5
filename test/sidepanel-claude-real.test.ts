/**
 * The tester's steps on real Claude Code 2.1.332, its diff panel open: `agentwatch run --name
 * sp --notify-cmd ... -- claude --permission-mode manual` (from source) in a real 45x160 PTY,
 * the project a git repository with no commits, the fake Anthropic server on 127.0.0.1
 * scripting six Writes (file_1.txt ... file_6.txt) and then a Bash command. Each Write is
 * approved with `agentwatch answer --yes sp 1`, the Bash command refused with `answer --yes sp
 * 4` (the tester's: once "the prompt on screen is not the one you confirmed"). Claude opens the
 * panel right of a `│` by itself; with it open every prompt is read from the dialog alone
 * (question, `Create: file_N.txt` / `Bash: ...`), announced once (7 notices for 7 prompts:
 * the tester saw one Bash prompt announced 8 times), and every answer is confirmed. About
 * 40-60 s. Skipped (with a printed reason) when node_modules/.bin/claude is missing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from '../src/runtime/control-client.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { listSessions } from '../src/runtime/session-directory.ts';
import { agentwatchArgv, runCli } from './support/agentwatch-e2e.ts';
import { type ScriptRule, startFakeAnthropic } from './support/fake-anthropic.ts';
import { CLAUDE_BIN, makeClaudeHome } from './support/claude-home.ts';
import { startPty } from './support/pty-driver.ts';
import { until } from './support/until.ts';

const WRITES = 6;
const COMMAND = 'mkdir -p out && touch out/done.log';

/** `task-sidepanel`: Write file_1.txt ... file_6.txt one per turn step, then Bash, then done. */
function rules(): ScriptRule[] {
  let issued = 0;
  return [{
    name: 'task-sidepanel',
    match: (c) => c.task === 'task-sidepanel',
    reply: (c) => {
      if (c.toolResults.length === 0) issued = 0;
      issued++;
      if (issued <= WRITES) {
        return {
          content: [{ type: 'text', text: `Writing file ${issued}.` }, {
            type: 'tool_use',
            name: 'Write',
            input: { file_path: `file_${issued}.txt`, content: `file ${issued}\n` },
          }],
        };
      }
      if (issued === WRITES + 1) {
        return {
          content: [{ type: 'text', text: 'Now the command.' }, {
            type: 'tool_use',
            name: 'Bash',
            input: { command: COMMAND, description: 'Create the output marker' },
          }],
        };
      }
      return { content: [{ type: 'text', text: 'All files written.' }] };
    },
  }];
}

test('real Claude Code, diff panel open: one notice per prompt, read from the dialog, answers confirmed', async () => {
  if (!existsSync(CLAUDE_BIN)) {
    console.log(`  skipped: ${CLAUDE_BIN} is missing (npm ci installs Claude Code)`);
    return;
  }
  const server = await startFakeAnthropic({ rules: rules() });
  const home = makeClaudeHome({ baseUrl: server.url });
  spawnSync('git', ['init', '-q'], { cwd: home.project });
  const dir = mkdtempSync(join(tmpdir(), 'aw-sidepanel-'));
  const log = join(dir, 'notices.jsonl');
  const script = join(dir, 'log.cjs');
  writeFileSync(
    script,
    `const e = process.env; require('fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(` +
      `{notice: e.AGENTWATCH_NOTICE, question: e.AGENTWATCH_QUESTION, action: e.AGENTWATCH_ACTION, ` +
      `body: e.AGENTWATCH_BODY}) + '\\n');`,
  );
  const notices = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
      : [];
  const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
  const pty = await startPty({
    command: process.execPath,
    args: agentwatchArgv([
      'run',
      '--name',
      'sp',
      '--notify-cmd',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`,
      '--',
      CLAUDE_BIN,
      '--permission-mode',
      'manual',
    ]),
    cwd: home.project,
    env: { ...home.env, AGENTWATCH_DIR: dir, PATH: process.env.PATH ?? '' },
    rows: 45,
    cols: 160,
  });
  const info = async (socket: string) =>
    (await request<{ session: SessionInfo }>(socket, { op: 'info' })).session;
  const context = () =>
    `\n--- notices ---\n${existsSync(log) ? readFileSync(log, 'utf8') : ''}\n--- screen ---\n` +
    pty.screen();
  try {
    await pty.waitForScreen(/\? for shortcuts/, 120_000);
    const s = await until(
      'the session listed',
      async () => (await listSessions(dir)).find((x) => x.name === 'sp'),
      20_000,
    );
    await until('idle', async () => (await info(s.socket)).state === 'idle', 30_000);
    await pty.type('task-sidepanel write the files');
    pty.send('\r');
    const answers: string[] = [];
    for (let n = 1; n <= WRITES + 1; n++) {
      const question = n <= WRITES
        ? `Do you want to create file_${n}.txt?`
        : 'Do you want to proceed?';
      const shown = await until(`prompt ${n} read`, async () => {
        const i = await info(s.socket);
        return i.state === 'blocked' && i.question === question ? i : null;
      }, 60_000);
      assert.ok(
        !JSON.stringify([shown.options, shown.details]).match(/│|untracked|not yet staged|git add/),
        `prompt ${n}: ${JSON.stringify(shown)}${context()}`,
      );
      if (n === WRITES + 1) {
        assert.match(pty.screen(), /files changed/, `the diff panel is open${context()}`);
        assert.is(shown.options?.length, 4, JSON.stringify(shown.options));
        assert.ok(shown.details?.includes(COMMAND), JSON.stringify(shown.details));
      }
      const r = await runCli(['answer', '--yes', 'sp', n <= WRITES ? '1' : '4'], cliEnv, 30_000, {
        tty: true,
      });
      answers.push(`${r.code} ${r.stdout.trim()} ${r.stderr.trim()}`);
      assert.is(r.code, 0, `answer ${n}: ${r.stdout}${r.stderr}${context()}`);
    }
    await until(
      'idle after the refusal',
      async () => (await info(s.socket)).state === 'idle',
      60_000,
    );
    const blocked = await until(
      'seven notices',
      () => {
        const b = notices().filter((x) => x.notice === 'blocked');
        return b.length >= WRITES + 1 ? b : null;
      },
      20_000,
    );
    console.log(
      `  real Claude Code, diff panel open: ${blocked.length} blocked notices; answers: ` +
        answers.join(' | '),
    );
    assert.equal(
      blocked.map((x) => x.action),
      Array.from({ length: WRITES }, (_, k) => `Create: file_${k + 1}.txt`).concat(
        `Bash: ${COMMAND}`,
      ),
      context(),
    );
    assert.equal(
      blocked.map((x) => x.question),
      Array.from({ length: WRITES }, (_, k) => `Do you want to create file_${k + 1}.txt?`).concat(
        'Do you want to proceed?',
      ),
    );
    assert.ok(existsSync(join(home.project, `file_${WRITES}.txt`)), 'the writes ran');
    assert.not.ok(existsSync(join(home.project, 'out', 'done.log')), 'the command was refused');
  } finally {
    pty.send('\x03');
    await pty.close();
    await server.close();
    home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
