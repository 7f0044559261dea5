/**
 * Notifications end to end with real Qwen Code 0.24.4: `agentwatch run --notify-cmd ...
 * --notify-done -- qwen` in a real PTY against the fake OpenAI server on 127.0.0.1
 * (test/support/fake-openai.ts, agent-homes.ts), with a throwaway HOME and AGENTWATCH_DIR. The
 * `--notify-cmd` appends one line per notice to a file.
 *
 * 1. Resizing a blocked pane: `task-bash` shows the approval dialog (one notice); the outer
 *    terminal is then resized to 100x32, 90x32, 40x15 (options clipped), 80x10 (the dialog's
 *    top out of sight) and back to 120x32, each time until the session reports the dialog read
 *    at that size: still one notice (Ink redraws the dialog at each size; the prompt is the
 *    same; the tester saw 6 notices in 9 s). The answer, then a second
 *    `task-bash`: its prompt is announced (a new prompt after an answer and a turn).
 * 2. Short turns with `--notify-done`: three `task-question` turns (a reply in well under a
 *    second), each typed once the one before is announced: three done notices (the tester saw
 *    1 of 7 short turns announced).
 *
 * 3. Qwen started by `sh -c 'cd PROJECT && exec qwen'` in a detached session (`run --detach
 *    --notify-done`), as the tester did: no done for its start-up; three short turns sent with
 *    `agentwatch send`: three done notices.
 *
 * Answers are typed a moment after the dialog shows, as a person would (Ink drops keys typed
 * while it mounts); every other wait is for what the screen, the session or the log shows.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  followSession,
  mark,
  runCli,
  type SessionFollower,
  startRun,
} from './support/agentwatch-e2e.ts';
import { makeQwenHome, QWEN_BIN } from './support/agent-homes.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import type { PtyDriver } from './support/pty-driver.ts';
import { sleep, until } from './support/until.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';

const DIALOG = /Allow execution of: 'touch'\?[\s\S]*Waiting for user confirmation/;
const COMPOSER = /Type your message or @path\/to\/file/;

interface Notice {
  kind: string;
  question: string;
  action: string;
  options: string;
}

function notices(log: string): Notice[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Notice);
}

function kinds(log: string): { blocked: number; done: number } {
  const n = notices(log);
  return {
    blocked: n.filter((x) => x.kind === 'blocked').length,
    done: n.filter((x) => x.kind === 'done').length,
  };
}

const cliEnv = (dir: string) => ({ ...process.env, AGENTWATCH_DIR: dir });

async function submit(pty: PtyDriver, text: string): Promise<void> {
  await pty.type(text);
  await sleep(300); // Ink takes a pasted line a moment after it shows
  pty.send('\r');
}

if (!existsSync(QWEN_BIN)) {
  console.log(`agentwatch-qwen-notify: skipped: ${QWEN_BIN} is missing (npm ci installs it)`);
  test.skip('qwen: resizing a blocked pane announces its prompt once');
} else {
  test('qwen: resizing a blocked pane announces its prompt once; short turns are each done', async () => {
    const server = await startFakeOpenAI();
    const home = makeQwenHome({ baseUrl: server.url });
    const dir = mkdtempSync(join(tmpdir(), 'agentwatch-qwen-notify-'));
    const log = join(dir, 'notices.jsonl');
    const script = join(dir, 'notice.sh');
    writeFileSync(
      script,
      `#!/bin/sh\nnode -e 'const e=process.env;console.log(JSON.stringify({kind:e.AGENTWATCH_NOTICE,question:e.AGENTWATCH_QUESTION,action:e.AGENTWATCH_ACTION,options:e.AGENTWATCH_OPTIONS,t:Date.now()}))' >> '${log}'\n`,
    );
    chmodSync(script, 0o755);
    const name = 'qwen-notify';
    let pty: PtyDriver | undefined;
    let f: SessionFollower | undefined;
    const context = () =>
      `\n--- notices ---\n${existsSync(log) ? readFileSync(log, 'utf8') : ''}\n--- infos ---\n${
        (f?.received ?? []).map((r) =>
          `${r.t} ${r.info.state} ${r.info.cols}x${r.info.rows} resized ${r.info.resizedAt} input ${r.info.lastInput} ${
            JSON.stringify([r.info.question, r.info.options, r.info.details])
          }`
        ).join('\n')
      }\n--- screen ---\n${pty?.screen() ?? ''}`;
    try {
      pty = await startRun(home, dir, [
        '--name',
        name,
        '--no-desktop',
        '--notify-done',
        '--notify-cmd',
        script,
        '--',
        QWEN_BIN,
      ], { cols: 120, rows: 32 });
      const p = pty;
      f = await followSession(dir, name, 30_000);
      const fol = f;
      try {
        await until('the composer', () => COMPOSER.test(p.screen()), 60_000);
        await fol.waitFor('idle', 30_000);
        const from = mark(fol);
        await submit(p, 'task-bash please touch hello.txt');
        await until('the dialog', () => DIALOG.test(p.screen()), 60_000);
        await fol.waitFor('blocked', 30_000, from);
        await until('the first notice', () => notices(log).length >= 1, 30_000);
        for (const [cols, rows] of [[100, 32], [90, 32], [40, 15], [80, 10], [120, 32]]) {
          const at = mark(fol);
          p.resize(cols, rows);
          // Qwen drew the dialog again and the session read it at the new width
          await until(
            `the dialog read at ${cols} columns`,
            () =>
              fol.received.slice(at).some((r) =>
                r.info.cols === cols && r.info.rows === rows && r.info.state === 'blocked' &&
                (r.info.options?.length ?? 0) > 0
              ) ||
              runCli(['ls', '--json'], cliEnv(dir), 10_000).then((r) =>
                (JSON.parse(r.stdout || '[]') as SessionInfo[]).some((s) =>
                  s.name === name && s.cols === cols && s.rows === rows && s.state === 'blocked' &&
                  (s.options?.length ?? 0) > 0
                )
              ),
            30_000,
            500,
          );
          await until(`the dialog at ${cols} columns`, () => DIALOG.test(p.screen()), 30_000);
        }
        // the answer: Enter on option 1, in the pane; the turn ends (a done notice), so a
        // notice of the resizes would be in the log by then
        p.send('\r');
        await until('the done of the first turn', () => kinds(log).done >= 1, 60_000);
        assert.is(
          kinds(log).blocked,
          1,
          `one prompt, one notice, whatever the resizes${context()}`,
        );
        // a new prompt (the second of the session) at the width it was resized to is announced
        await until(
          'the composer',
          () => COMPOSER.test(p.screen()) && !DIALOG.test(p.screen()),
          30_000,
        );
        await submit(p, 'task-bash please touch hello.txt again');
        await until('the second notice', () => kinds(log).blocked >= 2, 60_000);
        await until('the dialog', () => DIALOG.test(p.screen()), 30_000);
        const answer = await runCli(['answer', '--yes', name, '1'], cliEnv(dir), 30_000, {
          tty: true,
        });
        assert.is(answer.code, 0, `answer: ${answer.stdout}${answer.stderr}`);
        await until('the done of the second turn', () => kinds(log).done >= 2, 60_000);
        // 2. short turns (a reply in well under a second), each one announced when it ends
        for (let k = 1; k <= 3; k++) {
          await until('the composer', () => COMPOSER.test(p.screen()), 30_000);
          await submit(p, `task-question short turn ${k}`);
          await until(`the done of short turn ${k}`, () => kinds(log).done >= 2 + k, 30_000);
        }
        assert.equal(kinds(log), { blocked: 2, done: 5 }, context());
      } catch (e) {
        throw new Error(`${(e as Error).message}${context()}`);
      }
    } finally {
      f?.close();
      await pty?.close();
      await server.close();
      await home.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

if (existsSync(QWEN_BIN)) {
  test('qwen started in a shell, detached, turns sent: its start-up is no turn; each short turn is done', async () => {
    const server = await startFakeOpenAI();
    const home = makeQwenHome({ baseUrl: server.url });
    const dir = mkdtempSync(join(tmpdir(), 'agentwatch-qwen-done-'));
    const log = join(dir, 'notices.jsonl');
    const script = join(dir, 'notice.sh');
    writeFileSync(script, `#!/bin/sh\necho '{"kind":"'"$AGENTWATCH_NOTICE"'"}' >> '${log}'\n`);
    chmodSync(script, 0o755);
    const env = cliEnv(dir);
    const name = 'qwen-done';
    const listed = async () =>
      (JSON.parse((await runCli(['ls', '--json'], env, 20_000)).stdout || '[]') as SessionInfo[])
        .find((i) => i.name === name);
    try {
      // as the tester did: the agent started by a shell in the project (the session's command
      // is sh, the agent its foreground process)
      const started = await runCli(
        [
          'run',
          '--detach',
          '--name',
          name,
          '--no-desktop',
          '--notify-done',
          '--notify-cmd',
          script,
          '--',
          'sh',
          '-c',
          `cd '${home.project}' && exec '${QWEN_BIN}'`,
        ],
        { ...home.env, AGENTWATCH_DIR: dir },
        30_000,
      );
      assert.is(started.code, 0, started.stderr);
      await until(
        'qwen idle',
        async () => (await listed())?.state === 'idle' && (await listed())?.agent === 'qwen',
        90_000,
        500,
      );
      assert.equal(kinds(log), { blocked: 0, done: 0 }, 'its start-up is no turn');
      for (let k = 1; k <= 3; k++) {
        // idle is read before Qwen's input box is drawn, now and then: send refuses (nothing
        // typed, exit 3) until the box shows
        let why = '';
        await until(
          `turn ${k} sent`,
          async () => {
            const sent = await runCli(['send', name, `task-question short turn ${k}`], env, 30_000);
            why = sent.stderr;
            if (sent.code !== 0 && sent.code !== 3) {
              throw new Error(`send exited ${sent.code}: ${why}`);
            }
            return sent.code === 0;
          },
          30_000,
          500,
        ).catch((e: Error) => {
          throw new Error(`${e.message}: ${why}`);
        });
        await until(`the done of turn ${k}`, () => kinds(log).done >= k, 30_000).catch(
          async (e: Error) => {
            // what the session went through, to tell a turn not seen from a notice held back
            const x = await runCli(['explain', name], env, 20_000);
            throw new Error(`${e.message}; notices ${readFileSync(log, 'utf8')}; ${x.stdout}`);
          },
        );
      }
      assert.equal(kinds(log), { blocked: 0, done: 3 });
    } finally {
      await runCli(['kill', name], env, 20_000);
      await server.close();
      await home.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test.run();
