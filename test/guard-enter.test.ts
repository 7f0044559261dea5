/**
 * The typing guard watches the Enter until the agent has read it: an agent that stops reading
 * its input after our text (busy) and draws a permission dialog before it reads the Enter gets
 * that Enter as an answer to the dialog (Enter confirms the selected option). `send` must then
 * never say "sent": it exits 3 naming the dialog ("the Enter may have answered it"), or, when the
 * dialog already shows before the Enter is written, writes no Enter at all. The child,
 * test/support/late-dialog.ts, pauses its input after the text, draws the dialog 1.5 s later
 * and reads again 2.5 s after the text; `send` writes its Enter about 1 s after the text (no
 * echo comes), so the Enter waits in the terminal's input queue while the dialog is drawn.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { GUARD_EXIT, guardedSend } from '../src/runtime/typing-guard.ts';
import { UserError } from '../src/errors.ts';
import { DIALOG_QUESTION } from './support/prompt-flipper.ts';
import { until } from './support/until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHILD = join(ROOT, 'test', 'support', 'late-dialog.ts');

test('send: a dialog drawn before the agent read the Enter is reported, never "sent"', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-guard-enter-'));
  const logPath = join(dir, 'child.log');
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  const log = () => {
    try {
      return readFileSync(logPath, 'utf8');
    } catch {
      return '';
    }
  };
  try {
    const session = await host.start({
      command: process.execPath,
      args: ['--import', 'tsx', CHILD, '--late-dialog', '--log', logPath],
      name: 'late',
      agent: 'claude',
      headless: true,
      cwd: ROOT,
    });
    const w = host.ptyPane(session.id)!;
    await until('the child to be ready', () => log().startsWith('R'), 20_000);
    await until('the idle box, read as idle', () => w.classifyNow().state === 'idle');
    if (session.inputUnread() === undefined) {
      console.log('guard-enter: skipped: the native addon (inputQueued) is not built');
      return;
    }
    const err = await guardedSend(w, 'hello', true).then(() => undefined, (e: unknown) => e);
    assert.instance(err, UserError, 'send did not say "sent"');
    const e = err as UserError;
    assert.is(e.exitCode, GUARD_EXIT, e.message);
    assert.ok(e.message.includes(DIALOG_QUESTION), e.message);
    await until('the child drew its dialog', () => /^D$/m.test(log()), 20_000);
    if (/may have answered it/.test(e.message)) {
      // the Enter was written before the dialog showed, and read while it showed
      await until('the child read the Enter', () => /^I /m.test(log()), 20_000);
      assert.match(log(), /^I 1 0d$/m, 'the Enter reached the dialog (that is the case tested)');
    } else {
      // the dialog showed before the Enter was due (a slow run): no Enter was written
      assert.match(e.message, /the Enter was not sent/);
      assert.not.match(log(), /^I /m, 'no Enter reached the child');
    }
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
