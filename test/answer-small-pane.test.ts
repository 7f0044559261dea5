/**
 * `answer` in a small pane: Claude Code 2.1.332 in 40x12 scrolls its dialog's top (the command
 * it asks about) out of the pane, or says `↑ 8 more lines`. readPrompt says so (`detailsCut`),
 * and `answer` tells the person plainly before it asks for confirmation. An option whose path
 * was broken at the pane's edge reads whole (`/tmp/x/proj`, not `/ tmp/x/proj`).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPrompt } from '../src/detect/prompt.ts';
import { cli } from './support/cli.ts';
import { fakeInfo, fakeSession } from './support/fake-session.ts';

/** The bottom of a 40x12 pane whose Bash dialog's top (and most of the command) scrolled off. */
const CUT = [
  '   echo nine &&',
  '   echo ten',
  '   Run ten echo commands',
  ' Do you want to proceed?',
  ' ❯ 1. Yes',
  '   2. Yes, and always allow access to /',
  '      tmp/x/proj from this project',
  '   3. No, and tell Claude what to do',
  '      differently (esc)',
  '',
  ' Esc to cancel · Tab to amend',
  '',
];

/** The same dialog where Claude Code says how many rows of the command it left out. */
const MORE = [
  '────────────────────────────────────────',
  ' Bash command',
  '   ↑ 8 more lines',
  '   echo ten',
  ' Do you want to proceed?',
  ' ❯ 1. Yes',
  '   2. Yes, and always allow access to /',
  '      tmp/x/proj from this project',
  '   3. No',
  '',
  ' Esc to cancel · Tab to amend',
  '',
];

/** The whole dialog in sight. */
const WHOLE = [
  '',
  '────────────────────────────────────────',
  ' Bash command',
  '   npm test',
  '   Run the tests',
  ' Do you want to proceed?',
  ' ❯ 1. Yes',
  '   2. No',
  '',
  ' Esc to cancel · Tab to amend',
  '',
  '',
];

test('readPrompt: a dialog whose top is out of the pane, or that hides rows, says its details are cut', () => {
  const cut = readPrompt(CUT);
  assert.is(cut.detailsCut, true);
  assert.is(cut.options[1], '2. Yes, and always allow access to /tmp/x/proj from this project');
  assert.is(cut.options[2], '3. No, and tell Claude what to do differently (esc)');
  assert.is(readPrompt(MORE).detailsCut, true);
  assert.is(readPrompt(WHOLE).detailsCut, undefined);
  assert.equal(readPrompt(WHOLE).details, ['Bash command', 'npm test', 'Run the tests']);
});

test('answer: says plainly when what the prompt approves is not visible in the pane', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-small-'));
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTWATCH_DIR: dir };
  delete env.AGENTWATCH_SESSION;
  const sessions = [];
  try {
    for (const [name, screen] of [['small', CUT], ['tall', WHOLE]] as const) {
      const socket = join(dir, `${name}-0001.sock`);
      const p = readPrompt(screen);
      sessions.push(
        await fakeSession(
          socket,
          () =>
            fakeInfo(`${name}-0001`, socket, {
              name,
              state: 'blocked',
              question: p.question,
              options: p.options,
              rows: 12,
              cols: 40,
            }),
          (req) =>
            req.op === 'prompt'
              ? { ok: true, op: 'prompt', ...p, episode: 1 }
              : { ok: true, op: req.op, answered: p.options[0] },
        ),
      );
    }
    const small = await cli(['answer', '--yes', 'small', '1'], env, { tty: true });
    assert.is(small.code, 0, small.stderr);
    assert.match(
      small.stdout,
      /not all visible in the pane \(40x12\): make it taller or look at it/,
    );
    assert.match(small.stdout, /> 1\. Yes/);
    const tall = await cli(['answer', '--yes', 'tall', '1'], env, { tty: true });
    assert.is(tall.code, 0, tall.stderr);
    assert.not.match(tall.stdout, /not all visible/);
    assert.match(tall.stdout, /\| npm test/);
  } finally {
    for (const s of sessions) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
