/**
 * The first blocked line of each prompt carries that prompt's question (testers: with `watch
 * --json` on a loaded machine, the first blocked line of real Qwen Code 0.24.4 lacked the
 * question 2 of 4 times, Claude Code 2.1.332's 2 of 40; an `event: "prompt"` line brought it
 * about 0.15 s later). Qwen Code sets its `✳` window title (blocked) before it draws its
 * dialog, about 0.1 s before on an idle machine and 0.45 s before at a load of 10 on 2 cores;
 * the host held such a blocked back only 0.3 s (src/runtime/pty-pane.ts PROMPT_WAIT_MS) and
 * then published it without the question.
 *
 * Real parts: a real host of this process, a real PTY, and real Qwen Code 0.24.4 output
 * (fixtures/qwen-code/recordings/qwen-code-0.24.4.bytes.jsonl, its five prompts: three whose
 * title comes first, two whose dialog comes first; four different questions) written read for
 * read by test/support/replay-pauses.ts, which stops after each title that says blocked before
 * its dialog, after each dialog's first drawing and after each spell. At each title stop the dialog comes 0.6 s after the pane
 * read blocked (the agent is slow, as on the testers' machine: that delay is the case tested,
 * not a wait for readiness); at each dialog the host must have published blocked before the
 * replay goes on (the replay runs faster than the agent did, and a dialog is not skipped); at
 * each end of a spell the host must have published the new state
 * before the replay goes on, so each prompt's first blocked info is a transition of its own.
 * Each first blocked info published (what `watch --json` prints as the blocked line, and what
 * `subscribe` pushes) must carry its own prompt's question: never none, never the previous
 * prompt's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { privateHost } from './support/hosted-agent.ts';
import { replayStops } from './support/replay-pauses.ts';
import { sleep, until } from './support/until.ts';

const RECORDING = join(
  REPO_ROOT,
  'fixtures',
  'qwen-code',
  'recordings',
  'qwen-code-0.24.4.bytes.jsonl',
);
const PLAYER = join(REPO_ROOT, 'test', 'support', 'replay-pauses.ts');
/** How long after the pane read blocked the held dialog is drawn, ms (see the file's comment). */
const DIALOG_LATE_MS = 600;

test('Qwen Code 0.24.4 replayed with its dialogs drawn late: each first blocked info carries its own question', async () => {
  const { questions } = replayStops(readFileSync(RECORDING, 'utf8'), 'qwen', 32, 120);
  assert.equal(questions, [
    "Allow execution of: 'touch'?",
    "Allow execution of: 'touch'?",
    'Apply this change?',
    "Allow execution of: 'touch'?",
    "Allow execution of: 'node, touch'?",
  ]);
  const { dir, host, close } = privateHost('aw-first-blocked-');
  try {
    const log = join(dir, 'player.log');
    writeFileSync(log, '');
    const session = await host.start({
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        PLAYER,
        '--replay-pauses',
        '--agent',
        'qwen',
        '--log',
        log,
        RECORDING,
      ],
      cwd: REPO_ROOT,
      name: 'q1',
      agent: 'qwen',
      headless: true,
      rows: 32,
      cols: 120,
    });
    const pane = host.ptyPane(session.id)!;
    const infos: SessionInfo[] = [];
    host.onPublish((i) => {
      if (i.id === session.id) infos.push(i);
    });
    const said = () => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
    const context = () =>
      `\nplayer: ${said().join(', ')}\npublished: ${
        infos.map((i) => `${i.state} ${JSON.stringify(i.question ?? null)}`).join(', ')
      }\nscreen:\n${session.terminal.screenText()}`;
    const wait = <T>(what: string, read: () => T) =>
      until(what, read, 60_000).catch((e: Error) => {
        throw new Error(`${e.message}${context()}`);
      });
    const next = () => session.write('\x0e');
    /** The first blocked info of each spell: the first one after a published other state. */
    const firsts = () =>
      infos.filter((i, k) => i.state === 'blocked' && infos[k - 1]?.state !== 'blocked');
    let stops = 0;
    for (;;) {
      const line = await wait('the replay to stop', () => said()[stops]);
      stops++;
      if (line === 'done') break;
      const [kind, n] = line.split(' ');
      if (kind === 'title') {
        await wait(`spell ${n}: the pane reads blocked`, () => pane.record.state === 'blocked');
        await sleep(DIALOG_LATE_MS); // the agent draws its dialog late (the case tested)
        next();
      } else if (kind === 'dialog') {
        await wait(`spell ${n}: blocked published`, () => firsts().length >= Number(n));
        next();
      } else {
        await wait(
          `spell ${n}: its end published`,
          () => firsts().length >= Number(n) && infos.at(-1)!.state !== 'blocked',
        );
        next();
      }
    }
    const got = firsts().map((i) => i.question ?? null);
    assert.equal(got, questions, `the first blocked info of each prompt${context()}`);
  } finally {
    await close();
  }
});

test.run();
