/**
 * `send` to a Codex-like agent that takes an Enter right after fast typing as a newline (Codex
 * 0.171's paste-burst guard: our text arrives in one read, the Enter 60 ms later): tester3 saw
 * `send` report "sent" 3 times in 6 while Codex kept the text in its composer, unsubmitted, with
 * an empty line under it. The child below (run in a real PTY by the host, matched to the
 * bundled codex manifest) draws Codex's composer and behaves so: a burst of three or more
 * characters in one read, then an Enter, inserts a newline (Codex does so for an Enter within
 * 120 ms of the burst; here always, so that a loaded machine cannot make the test pass by
 * chance); the next Enter submits (logged to `--log`). `send` now sees the text still in the box after its
 * Enter and presses Enter once more; the text is submitted once, and `send` says so only then.
 * A child that never submits makes `send` fail (exit 3), never report "sent".
 *
 * Run as `node --import tsx test/send-codex-burst.test.ts --burst-agent --log F [--deaf]`.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { GUARD_EXIT, guardedSend } from '../src/runtime/typing-guard.ts';
import { UserError } from '../src/errors.ts';
import { until } from './support/until.ts';

function burstAgent(argv: string[]): void {
  const log = argv[argv.indexOf('--log') + 1];
  const deaf = argv.includes('--deaf'); // never submits
  let lines = [''];
  let burst = false;
  const draw = () => {
    const rows = process.stdout.rows || 24;
    const box = lines.map((l, i) => (i === 0 ? '› ' : '  ') + l);
    if (lines.length === 1 && !lines[0]) box[0] = '› Ask Codex to do anything';
    const top = rows - 3 - box.length;
    let out = '\x1b[?2026h\x1b[H\x1b[2J';
    out += `\x1b[${top};1H  ⠈⠙⠛⠿⠿⠿⠿⠛⠉`;
    box.forEach((l, i) => (out += `\x1b[${top + 1 + i};1H${l}`));
    out += `\x1b[${rows - 1};1H  ? for shortcuts\x1b[?2026l`;
    process.stdout.write(out);
  };
  process.stdin.setRawMode(true);
  process.stdout.write('\x1b[?1049h\x1b[?2004h');
  draw();
  process.stdin.on('data', (d: Buffer) => {
    for (const part of d.toString('utf8').split(/(\r)/)) {
      if (part === '\r') {
        // the first Enter after a burst is a newline, however late it comes (a loaded machine
        // may delay our Enter past Codex's window: the test must not depend on it)
        if (deaf || burst) {
          lines.push('');
          burst = false; // the next Enter submits
        } else {
          appendFileSync(log, JSON.stringify(lines.join('\n').trim()) + '\n');
          lines = [''];
        }
      } else if (part) {
        if ([...part].length >= 3) burst = true;
        lines[lines.length - 1] += part;
      }
    }
    draw();
  });
}

if (process.argv.includes('--burst-agent')) burstAgent(process.argv.slice(2));
else {
  const SELF = fileURLToPath(import.meta.url);

  const run = async (
    deaf: boolean,
    body: (send: () => Promise<number>, log: () => string[]) => Promise<void>,
  ) => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-burst-'));
    const logPath = join(dir, 'submitted.log');
    appendFileSync(logPath, '');
    const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
    try {
      const session = await host.start({
        command: process.execPath,
        args: [
          '--import',
          'tsx',
          SELF,
          '--burst-agent',
          '--log',
          logPath,
          ...(deaf ? ['--deaf'] : []),
        ],
        name: 'burst',
        agent: 'codex',
        headless: true,
        cwd: join(SELF, '..', '..'), // where `--import tsx` resolves
      });
      const w = host.ptyPane(session.id)!;
      await until(
        'the composer, read as idle and empty',
        () =>
          /› Ask Codex to do anything/.test(session.terminal.screenText()) &&
          w.classifyNow().state === 'idle',
        30_000,
      );
      const log = () =>
        readFileSync(logPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      await body(() => guardedSend(w, 'task-question q1'), log);
      session.kill('SIGTERM');
      await until('the child to exit', () => session.exit, 10_000);
    } finally {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test('send: an Enter taken as a newline after fast typing is pressed once more; the text is submitted once', async () => {
    await run(false, async (send, log) => {
      const written = await send();
      assert.equal(log(), ['task-question q1'], 'submitted once, when send returned');
      assert.is(written, 'task-question q1'.length + 2, 'the text and two Enters');
      const again = await send(); // the second send, the same way
      assert.equal(log(), ['task-question q1', 'task-question q1']);
      assert.is(again, written);
    });
  });

  test('send: text an agent never submits is an error (exit 3), never "sent"', async () => {
    await run(true, async (send, log) => {
      const e = await send().then(() => null, (e) => e);
      assert.instance(e, UserError);
      assert.is((e as UserError).exitCode, GUARD_EXIT);
      assert.match((e as Error).message, /typed but not submitted/);
      assert.equal(log(), []);
    });
  });

  test.run();
}
