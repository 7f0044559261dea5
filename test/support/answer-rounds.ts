/**
 * A person answering permission prompts as fast as a script can: run in a terminal of its own
 * (`inPty`, as `agentwatch answer` must be), with argv SOCKET DELAYS_MS PROJECT_DIR. For each
 * delay in DELAYS_MS (comma-separated), one round: `send` `task-bash round N` to the session,
 * wait until it is blocked with the prompt's options drawn (polled every 10 ms), wait that
 * delay, then read the prompt and answer option 1 as `agentwatch answer --yes` does
 * (readAnswerablePrompt, sendAnswer with the prompt as `expect`). It records whether the
 * answer came back, the session's state right after, whether the dialog is on screen then
 * and 1 s later, whether the command's file appeared, then waits for the turn's idle. Prints
 * one JSON line per round ({@link AnswerRound}), then `DONE`.
 */
import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { readAnswerablePrompt } from '../../src/cli/board/answering.ts';
import { request, sendAnswer } from '../../src/runtime/control-client.ts';
import type { SessionInfo } from '../../src/runtime/protocol.ts';

/** What one round saw. */
export interface AnswerRound {
  round: number;
  delayMs: number;
  /** What `answer` replied ('' on an error). */
  answered: string;
  /** The error's message and exit code, when `answer` failed. */
  error?: string;
  code?: number;
  /** How long the answer took, ms. */
  answerMs: number;
  /** The session's state right after the answer, and whether it was blocked on the same question. */
  stateAfter: string;
  blockedOnSame: boolean;
  /** The dialog on screen right after the answer, and 1 s later. */
  dialogAfter: boolean;
  dialogLater: boolean;
  /** The approved command's file exists once the turn ended. */
  fileCreated: boolean;
}

const DIALOG = /Do you want to proceed\?/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const [socket, delays, project] = process.argv.slice(2);
  const info = async () =>
    (await request<{ session: SessionInfo }>(socket, { op: 'info' })).session;
  const screen = async () => (await request<{ text: string }>(socket, { op: 'screen' })).text;
  const until = async (what: string, ok: () => Promise<boolean>, ms = 60_000) => {
    const end = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${await screen()}`);
      await sleep(10);
    }
  };
  const file = join(project, 'hello.txt');
  let round = 0;
  for (const delayMs of delays.split(',').map(Number)) {
    round++;
    if (existsSync(file)) unlinkSync(file);
    await request(socket, { op: 'send', text: `task-bash round ${round}`, enter: true }, 10_000);
    await until('blocked', async () => {
      const s = await info();
      return s.state === 'blocked' && (s.options?.length ?? 0) > 0;
    });
    if (delayMs) await sleep(delayMs);
    const p = await readAnswerablePrompt(socket);
    const t0 = Date.now();
    let answered = '';
    let failure: { error: string; code: number } | undefined;
    try {
      answered = await sendAnswer(socket, 1, {
        question: p.question,
        options: p.options,
        details: p.details,
        episode: p.episode,
      });
    } catch (e) {
      failure = { error: (e as Error).message, code: (e as { exitCode?: number }).exitCode ?? 1 };
    }
    const answerMs = Date.now() - t0;
    const after = await info();
    const dialogAfter = DIALOG.test(await screen());
    await sleep(1000);
    const dialogLater = DIALOG.test(await screen());
    if (dialogLater) {
      // not taken: answer it in the pane's stead so that the next round starts clean
      const again = await readAnswerablePrompt(socket);
      await sendAnswer(socket, 1, again).catch(() => {});
    }
    await until('the turn done', async () => (await info()).state === 'idle');
    const line: AnswerRound = {
      round,
      delayMs,
      answered,
      ...(failure ?? {}),
      answerMs,
      stateAfter: after.state,
      blockedOnSame: after.state === 'blocked' && after.question === p.question &&
        (after.details ?? []).join('\n') === p.details.join('\n'),
      dialogAfter,
      dialogLater,
      fileCreated: existsSync(file),
    };
    console.log(JSON.stringify(line));
  }
  console.log('DONE');
}

main().then(() => process.exit(0), (e) => {
  console.log(`FAILED ${(e as Error).stack}`);
  process.exit(1);
});
