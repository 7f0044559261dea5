/**
 * `answer` on Claude Code 2.1.332's first-start security notes (`Security notes:` / two
 * numbered notes / `Press Enter to continue`): the one answer is Enter. A plain node program
 * in a real PTY (hosted by a SessionHost, the bundled claude.toml) replays the real capture
 * (fixtures/claude-code/claude.blocked.onboarding.security.raw), logs every key it reads and
 * closes the notes on Enter only, as Claude Code does (the terminal's replies to the capture's
 * queries reach it too, and are told apart by their ESC): the prompt reads as the question
 * `Security notes` with the one option `Continue`, and answering it types Enter, once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { guardedAnswer } from '../src/runtime/typing-guard.ts';
import { startDialog } from './support/fake-dialog.ts';
import { REPO_ROOT } from './support/claude-home.ts';

const CAPTURE = join(
  REPO_ROOT,
  'fixtures',
  'claude-code',
  'claude.blocked.onboarding.security.raw',
);

/** argv CAPTURE LOG: draws the capture; Enter closes it (`C`), every key is logged (`K <hex>`). */
const NOTES = String.raw`
const fs = require('fs');
const [capture, log] = process.argv.slice(2);
let open = true;
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  fs.appendFileSync(log, 'K ' + d.toString('hex') + '\n');
  if (!open || !d.includes(13)) return;
  open = false;
  fs.appendFileSync(log, 'C\n');
  process.stdout.write('\x1b[H\x1b[2J' + '─'.repeat(120) + '\r\n❯ \r\n' + '─'.repeat(120) +
    '\r\n  ? for shortcuts');
});
process.stdout.write(fs.readFileSync(capture));
`;

test('security notes: question and the one option Continue; answering types Enter once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-notes-'));
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  try {
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const { w } = await startDialog(host, dir, {
      name: 'notes',
      program: NOTES,
      args: [CAPTURE, log],
      agent: 'claude',
    });
    const confirmed = await w.prompt();
    assert.is(confirmed.question, 'Security notes');
    assert.equal(confirmed.options, ['Continue']);
    assert.is(confirmed.details?.[0], '1. Claude can make mistakes.');
    const answered = await guardedAnswer(w, 0, confirmed);
    assert.is(answered, 'Continue');
    const lines = readFileSync(log, 'utf8').split('\n');
    // the emulator's replies to the capture's queries (ESC ...) are no keys of answer's
    const keys = lines.filter((l) => l.startsWith('K ') && !l.startsWith('K 1b'));
    assert.equal(keys, ['K 0d'], 'Enter, once');
    assert.ok(lines.includes('C'));
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
