/**
 * `answer` to an agent that restarts itself after reading the key, as Gemini CLI 0.61.0 does
 * after its folder-trust dialog (its launcher runs the CLI as a child process and runs it again
 * when it exits with code 199; the dialog stays on the screen until the new child draws). A
 * Claude-like dialog (test/support/fake-dialog.ts, rules and `[answer] keys = "digit"` from the
 * bundled claude.toml) run the same way by a small launcher, in a real PTY hosted by a
 * SessionHost; its first child exits 199 250 ms after reading the key and leaves its dialog on
 * screen; what the second child draws, a second later:
 * - `ready` (4 s later): its input box: answered, one key (before: "the prompt is still
 *   showing", exit 5, 3 s after the key);
 * - `again`: the same dialog, unanswered: never answered; exit 5, "restarted ... showed it
 *   again", and no second key (it would reach the new child);
 * - `blank-again`: a blank screen first, the same dialog half a second later: not answered
 *   either, said as soon as the dialog shows again.
 * About 30 s.
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

/**
 * argv LOG MODE. Without AW_FAKE_CHILD: the launcher, which runs itself (the same arguments)
 * as a child with AW_FAKE_CHILD=1, again each time the child exits 199. The first child
 * (no `LOG.restarted` yet) draws the dialog, logs `K <hex>` per key, and on `1` writes
 * `LOG.restarted` and exits 199 250 ms later, leaving its dialog on screen. Later children
 * log `S` and, silent for 1 s (starting; 4 s for `ready`: longer than ANSWER_RESULT_MS), draw
 * what MODE says.
 */
const LAUNCHED = String.raw`
const { spawn } = require('child_process');
if (!process.env.AW_FAKE_CHILD) {
  const run = () => {
    const child = spawn(process.execPath, process.argv.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, AW_FAKE_CHILD: '1' },
    });
    child.on('exit', (code) => (code === 199 ? run() : process.exit(code ?? 1)));
  };
  run();
} else {
` + CLAUDE_DIALOG + String.raw`
  const [log, mode] = process.argv.slice(2);
  process.stdin.setRawMode(true);
  if (!fs.existsSync(log + '.restarted')) {
    process.stdin.on('data', (d) => {
      fs.appendFileSync(log, 'K ' + d.toString('hex') + '\n');
      if (d.toString() !== '1') return;
      fs.writeFileSync(log + '.restarted', '');
      setTimeout(() => process.exit(199), 250);
    });
    draw();
  } else {
    fs.appendFileSync(log, 'S\n');
    process.stdin.on('data', (d) => fs.appendFileSync(log, 'K2 ' + d.toString('hex') + '\n'));
    setTimeout(() => {
      if (mode === 'ready') {
        open = false;
        draw();
      } else if (mode === 'again') {
        draw();
      } else {
        out.write('\x1b[H\x1b[2J');
        setTimeout(draw, 500);
      }
    }, mode === 'ready' ? 4000 : 1000);
  }
}
`;

/**
 * Starts the launcher in `mode`, answers option 1 with the guard (waiting `restartWaitMs` for
 * the restarted agent, default RESTART_WAIT_MS); the outcome and the log.
 */
async function answerRestarting(
  mode: 'ready' | 'again' | 'blank-again',
  restartWaitMs?: number,
): Promise<{ answered?: string; error?: UserError; log: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-restart-'));
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  try {
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const { w } = await startDialog(host, dir, {
      name: mode,
      program: LAUNCHED,
      args: [log, mode],
      agent: 'claude',
    });
    const confirmed = await w.prompt();
    const out = await guardedAnswer(w, 0, confirmed, restartWaitMs).then(
      (answered) => ({ answered }),
      (error: UserError) => ({ error }),
    );
    return { ...out, log: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the agent restarts after the key and comes back ready: answered, one key', async () => {
  const r = await answerRestarting('ready');
  assert.is(r.answered, '1. Yes', String(r.error?.message));
  assert.equal(r.log, ['K 31', 'S']);
});

test('the new process shows the same dialog again: not answered, no second key', async () => {
  // the redraw cannot be told from the old dialog left on screen: exit 5 at the bound, shorter
  // here than the default
  const r = await answerRestarting('again', 15_000);
  assert.is(r.error?.exitCode, ANSWER_UNCONFIRMED_EXIT, String(r.answered));
  assert.match(
    r.error!.message,
    /still showing \(again restarted after reading it and showed/,
    `${r.error!.message}; keys and starts: ${r.log.join(', ')}`,
  );
  assert.equal(r.log, ['K 31', 'S']);
});

test('a blank screen, then the same dialog again: not answered, no second key', async () => {
  const r = await answerRestarting('blank-again');
  assert.is(r.error?.exitCode, ANSWER_UNCONFIRMED_EXIT, String(r.answered));
  assert.equal(r.log, ['K 31', 'S']);
});

test.run();
