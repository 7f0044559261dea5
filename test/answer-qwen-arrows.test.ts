/**
 * `agentwatch answer --yes NAME 3` on real Qwen Code 0.24.4 right after blocked is published,
 * twice in one session: option 3 ("3. No, suggest changes (esc)" of the auto mode's fallback
 * dialog) is reached with arrow keys (Down, Down, Enter: Qwen's dialogs take no digit in
 * agentwatch's manifest), the case a tester saw fail 2 of 4 times at load ~15 (exit 3 "the
 * prompt on screen is not the one you confirmed; only Down, Down had been typed", and exit 5
 * "typed Enter ..., but the prompt is still showing" with option 3 selected).
 *
 * Real parts only: `agentwatch run --name NAME -- qwen` in a real PTY, Qwen Code from
 * node_modules against the fake OpenAI server on 127.0.0.1 (test/support/fake-openai.ts) with a
 * throwaway HOME; `answer` runs in a terminal of its own, started as soon as the session's
 * control socket says blocked (as `agentwatch wait NAME --until blocked && agentwatch answer`
 * does). Each round asserts: `answer` exits 0 naming option 3, the dialog leaves the screen
 * and the session goes idle, and the shell command never ran (hello.txt keeps its mtime:
 * denied). Then the model gets, with the next prompt, one result per round, each Qwen's
 * "[Operation Cancelled] Reason: User did not allow tool call". The test prints how often
 * `answer` typed its Enter a second time (the session's events).
 *
 * AGENTWATCH_ANSWER_ROUNDS=N runs N rounds instead of 2 (to count failures under load);
 * skipped (with a printed reason) when Qwen Code is missing from node_modules/.bin.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  type CliResult,
  followSession,
  mark,
  recordScreenTruth,
  runCli,
  type ScreenTruth,
  type SessionFollower,
  settledIdle,
  startRun,
} from './support/agentwatch-e2e.ts';
import { makeQwenHome, QWEN_BIN } from './support/agent-homes.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import type { FakeModelServer, ModelLogEntry } from './support/fake-model.ts';

/** A chat message of a request, as far as this test reads it. */
interface ChatMessage {
  role: string;
  content?: unknown;
}
import type { PtyDriver } from './support/pty-driver.ts';
import { sleep } from './support/until.ts';

const ROUNDS = Number(process.env.AGENTWATCH_ANSWER_ROUNDS) || 2;
/** The option answered, as the dialog names it (Qwen Code 0.24.4, auto mode's fallback). */
const OPTION = '3. No, suggest changes (esc)';
/** The dialog on the outer screen (the truth). */
const DIALOG = /Allow execution of: 'touch'\?[\s\S]*Waiting for user confirmation/;
const COMPOSER = /Type your message or @path\/to\/file/;

async function submit(pty: PtyDriver, text: string): Promise<void> {
  await pty.type(text);
  await sleep(300);
  pty.send('\r');
}

const test = suite('answer: an option reached by arrow keys, right after blocked (real Qwen Code)');

if (!existsSync(QWEN_BIN)) {
  console.log(`answer-qwen-arrows: skipped: ${QWEN_BIN} is missing (npm ci installs it)`);
  test.skip('qwen: answer 3 right after blocked, twice');
} else {
  test(`qwen: answer 3 (Down, Down, Enter) right after blocked, ${ROUNDS} rounds`, async () => {
    const server: FakeModelServer = await startFakeOpenAI();
    const home = makeQwenHome({ baseUrl: server.url });
    const dir = mkdtempSync(join(tmpdir(), 'agentwatch-answer-arrows-'));
    const name = 'q1';
    const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
    const hello = join(home.project, 'hello.txt');
    const mtime = statSync(hello).mtimeMs;
    let pty: PtyDriver | undefined;
    let truth: ScreenTruth | undefined;
    let f: SessionFollower | undefined;
    const answers: CliResult[] = [];
    const context = async () => {
      const explain = await runCli(['explain', name], cliEnv, 20_000).catch(() => undefined);
      return `\n--- answers ---\n${
        answers.map((a) => `exit ${a.code}\n${a.stdout}\n${a.stderr}`).join('\n')
      }\n--- outer screen ---\n${pty?.screen() ?? ''}\n--- explain ---\n${
        explain?.stdout ?? ''
      }\n--- fake server log ---\n${server.dump(200)}`;
    };
    try {
      pty = await startRun(home, dir, ['--name', name, '--', QWEN_BIN]);
      const p = pty;
      truth = recordScreenTruth(p, {
        dialog: (s) => DIALOG.test(s),
        composer: (s) => COMPOSER.test(s) && !DIALOG.test(s),
      });
      const t = truth;
      f = await followSession(dir, name, 120_000); // Qwen's start-up at load 25: over 30 s
      const fol = f;
      try {
        await t.waitFor('composer', true, 0, 180_000); // Qwen took over 60 s at load 50
        await fol.waitFor('idle', 30_000);
        for (let n = 1; n <= ROUNDS; n++) {
          const from = mark(fol);
          const asked = Date.now();
          await submit(p, `task-bash round ${n}: please touch hello.txt`);
          await fol.waitFor('blocked', 60_000, from);
          // at once, as `agentwatch wait q1 --until blocked && agentwatch answer --yes q1 3`
          const answered = Date.now();
          const a = await runCli(['answer', '--yes', name, '3'], cliEnv, 60_000, { tty: true });
          answers.push(a);
          assert.is(a.code, 0, `round ${n}: answer exited ${a.code}: ${a.stderr}`);
          assert.is(a.stdout.trim().split('\n').at(-1), `answered: ${OPTION}`, a.stdout);
          assert.ok(t.firstAfter('dialog', true, asked) !== undefined, 'the dialog showed');
          await t.waitFor('dialog', false, answered, 15_000);
          await settledIdle(fol, 30_000);
          assert.is(statSync(hello).mtimeMs, mtime, `round ${n}: touch ran: not denied`);
        }
        // The denied calls' results reach the model with the next prompt: one per round.
        await submit(p, 'task-none: thanks');
        let turn: ModelLogEntry | undefined;
        for (let i = 0; i < 1200 && !turn; i++) {
          turn = server.log.find((e) => e.task === 'task-none');
          if (!turn) await sleep(50);
        }
        assert.ok(turn, 'the model got the next prompt');
        const messages = (turn!.body as { messages?: ChatMessage[] }).messages ?? [];
        const results = messages.filter((m) => m.role === 'tool');
        assert.is(results.length, ROUNDS, JSON.stringify(results));
        for (const r of results) {
          assert.ok(
            /User did not allow tool call/.test(JSON.stringify(r.content)),
            JSON.stringify(r),
          );
        }
        const events = (await runCli(['explain', name], cliEnv, 30_000)).stdout;
        const retries = events.split('\n').filter((l) => l.includes('typing it once more'));
        console.log(
          `answer-qwen-arrows: ${ROUNDS} answers exit 0; second Enter typed ${retries.length} times; ` +
            `the model got: ${JSON.stringify(results[0].content).slice(0, 120)}`,
        );
      } catch (e) {
        throw new Error(`${(e as Error).message}${await context()}`);
      }
    } finally {
      truth?.stop();
      f?.close();
      await pty?.close();
      await server.close();
      await home.cleanup();
      const left = existsSync(dir) ? readdirSync(dir).filter((f) => f !== 'ended') : [];
      rmSync(dir, { recursive: true, force: true });
      if (left.length > 0) console.log(`answer-qwen-arrows: left in the socket dir: ${left}`);
    }
  });
}

test.run();
