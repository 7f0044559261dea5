/**
 * `answer` replies only once the prompt left the screen, and types its key a second time only
 * when that is provably safe. Against Claude-like permission dialogs (plain node programs in
 * real PTYs hosted by a SessionHost, rules and `[answer] keys = "digit"` from the bundled
 * claude.toml) that log every key they read:
 * - `take`: the digit closes the dialog: answered, one key;
 * - `drop-first` with a ticking line (drawing while the dialog waits, as Claude Code's Bash
 *   dialog does): the first digit is read and ignored, the dialog stays; `answer` types it
 *   once more and the second closes it: answered, two keys;
 * - `drop-all` with the ticking line: two keys, then exit 5, "still showing";
 * - `drop-all` silent (no output: the agent may be stalled with the key unread): one key only,
 *   exit 5;
 * - `take-slow`: the digit is taken but the dialog closes only after 4 s, silent meanwhile:
 *   one key only (never a second key into a dialog that took the first), and answered: a
 *   silent agent is watched for ANSWER_SLOW_MS (10 s) from the key;
 * - a key typed while another writer types into the pane (the person, attached) is not
 *   repeated either.
 * About 40 s.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { ANSWER_UNCONFIRMED_EXIT, guardedAnswer } from '../src/runtime/typing-guard.ts';
import type { UserError } from '../src/errors.ts';
import { CLAUDE_DIALOG, startDialog } from './support/fake-dialog.ts';
import { until } from './support/until.ts';

/**
 * The dialog (test/support/fake-dialog.ts), option 1 selected: argv LOG MODE TICK ('tick' or
 * 'silent'). Logs `K <hex>` per key read, `C` when it closes.
 */
const DIALOG = CLAUDE_DIALOG + String.raw`
const [log, mode, tick] = process.argv.slice(2);
let keys = 0;
const close = () => {
  open = false;
  fs.appendFileSync(log, 'C\n');
  draw();
};
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  fs.appendFileSync(log, 'K ' + d.toString('hex') + '\n');
  if (!open) return;
  keys++;
  if (mode === 'take' || (mode === 'drop-first' && keys === 2)) close();
  else if (mode === 'take-slow' && keys === 1) setTimeout(close, 4000);
});
let n = 0;
if (tick === 'tick') {
  setInterval(() => out.write('\x1b[2;1H' + '·✢✳✶'[n++ % 4] + ' tick'), 300);
}
draw();
`;

/** Starts the dialog in `mode`, answers option 1 with the guard, returns the outcome and the log. */
async function answerDialog(
  mode: string,
  tick: 'tick' | 'silent',
  during?: (type: (s: string) => void) => void,
): Promise<{ answered?: string; error?: UserError; keys: string[]; closed: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-confirm-'));
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  try {
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const { session, w } = await startDialog(host, dir, {
      name: mode,
      program: DIALOG,
      args: [log, mode, tick],
      agent: 'claude',
    });
    const confirmed = await w.prompt();
    const answering = guardedAnswer(w, 0, confirmed);
    if (during) {
      await until('the first key', () => readFileSync(log, 'utf8').includes('K '), 30_000);
      during((s) => session.write(s));
    }
    const out = await answering.then(
      (answered) => ({ answered }),
      (error: UserError) => ({ error }),
    );
    const lines = readFileSync(log, 'utf8').split('\n');
    return {
      ...out,
      keys: lines.filter((l) => l.startsWith('K ')).map((l) => l.slice(2)),
      closed: lines.includes('C'),
    };
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('take: the digit closes the dialog; answered after one key', async () => {
  const r = await answerDialog('take', 'tick');
  assert.is(r.answered, '1. Yes', String(r.error));
  assert.equal(r.keys, ['31']);
  assert.ok(r.closed);
});

test('drop-first, drawing meanwhile: typed once more, answered after two keys', async () => {
  const r = await answerDialog('drop-first', 'tick');
  assert.is(r.answered, '1. Yes', String(r.error));
  assert.equal(r.keys, ['31', '31']);
  assert.ok(r.closed);
});

test('drop-all, drawing meanwhile: two keys, then exit 5', async () => {
  const r = await answerDialog('drop-all', 'tick');
  assert.is(r.error?.exitCode, ANSWER_UNCONFIRMED_EXIT, String(r.answered));
  assert.match(r.error!.message, /typed '1' for "1\. Yes", but the prompt is still showing/);
  assert.match(r.error!.message, /also after a second try/);
  assert.equal(r.keys, ['31', '31']);
});

test('drop-all, silent (maybe stalled): one key only, exit 5', async () => {
  const r = await answerDialog('drop-all', 'silent');
  assert.is(r.error?.exitCode, ANSWER_UNCONFIRMED_EXIT, String(r.answered));
  assert.equal(r.keys, ['31']);
});

test('take-slow: the key taken, the dialog closes late: never a second key, answered', async () => {
  const r = await answerDialog('take-slow', 'silent');
  assert.is(r.answered, '1. Yes', String(r.error));
  assert.equal(r.keys, ['31']);
  assert.ok(r.closed);
});

test('another writer typed meanwhile: the key is not typed again', async () => {
  const r = await answerDialog('drop-all', 'tick', (type) => type('x'));
  assert.is(r.error?.exitCode, ANSWER_UNCONFIRMED_EXIT, String(r.answered));
  assert.equal(r.keys, ['31', '78']);
});

test.run();
