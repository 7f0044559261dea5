/**
 * Claude Code 2.1.332's Bash dialog after a task of several lines, read off real captures
 * (fixtures/claude-code/claude.working.multiline and claude.blocked.multiline, 32x120, one
 * session: the second's bytes start with the first's).
 *
 * - The transcript echoes the task as `❯ task-bash alpha` / `  beta` / `  gamma` above the
 *   input box: no option list (testers: a hook said blocked about 0.2 s before the dialog was
 *   drawn, and the notice's options were the person's own lines, 3 of 3 such tasks).
 * - The dialog as one PTY read left it, half drawn (byte {@link HALF}: the capture's read
 *   ended there, 6 ms before the rest): `3. Yes, and switch to auto mode · auto mode
 *   handle────...`, the rest of the row still the input box's rule, and no `4. No`. It reads
 *   as the start of the whole dialog (the same question and details, options cut short or
 *   missing), so the notifier holds it and the whole one as one prompt (testers: two notices
 *   216 ms apart, 1 of 23 prompts).
 * - So does every screen from the echo to the dialog drawn whole, the bytes cut anywhere: a
 *   read can end in any row (`1. le-dazzling… ◐ medium`, the rest the spinner's old row), and
 *   while the input box of the frame before is still under the options nothing is read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Prompt, readPrompt } from '../src/detect/prompt.ts';
import { partOf, sameDetails, sameDialog } from '../src/runtime/notify-gate.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { REPO_ROOT } from './support/claude-home.ts';

const DIR = join(REPO_ROOT, 'fixtures', 'claude-code');
const bytes = (name: string) => new Uint8Array(readFileSync(join(DIR, name)));

function read(t: Terminal): Prompt {
  const rows = t.snapshot().rows;
  return readPrompt(rows, rows.map((_, y) => t.rowBackgrounds(y)));
}

/** The parts of a prompt the notifier compares, as a blocked info carries them. */
const asInfo = (p: Prompt) =>
  ({ question: p.question, options: p.options, details: p.details }) as SessionInfo;

test('a task of several lines echoed above the input box is no option list', () => {
  const t = new Terminal(32, 120);
  t.write(bytes('claude.working.multiline.raw'));
  assert.match(t.screenText(), /^❯ task-bash alpha\n {2}beta\n {2}gamma$/m);
  const p = read(t);
  assert.equal(p.options, [], JSON.stringify(p));
  assert.is(p.question, '');
  assert.equal(p.details, []);
});

test('a dialog quoted in a reply, above the input box, is no prompt', () => {
  const t = new Terminal(32, 120);
  t.write(bytes('claude.idle.quote.raw'));
  assert.match(t.screenText(), /^ {3}❯ 1\. Yes$/m);
  assert.equal(read(t).options, []);
});

/** Where the capture's PTY read ended with the dialog half drawn (bytes into the fixture). */
const HALF = 5199;

test('the dialog as a PTY read left it half drawn is the start of the whole one', () => {
  const before = bytes('claude.working.multiline.raw');
  const whole = bytes('claude.blocked.multiline.raw');
  assert.equal(whole.subarray(0, before.length), before, 'one session: the same first bytes');
  const t = new Terminal(32, 120);
  t.write(whole.subarray(0, HALF));
  const half = read(t);
  assert.match(t.screenText(), /auto mode handle─{8,}$/m, 'the half-drawn frame');
  t.write(whole.subarray(HALF));
  const full = read(t);
  assert.is(full.question, 'Do you want to proceed?');
  assert.equal(full.options.at(-1), '4. No');
  assert.equal(full.details, ['Bash command', 'Create empty hello.txt file', 'touch hello.txt']);
  assert.equal(half.options, [
    '1. Yes',
    `2. ${full.options[1].slice(3)}`,
    '3. Yes, and switch to auto mode · auto mode handle',
  ]);
  assert.ok(sameDialog(asInfo(half), asInfo(full)), JSON.stringify(half));
  assert.ok(sameDetails(asInfo(half), asInfo(full)), JSON.stringify(half));
});

test('the dialog read at every byte while it is drawn is the start of the whole one', () => {
  const before = bytes('claude.working.multiline.raw');
  const whole = bytes('claude.blocked.multiline.raw');
  const t = new Terminal(32, 120);
  t.write(before);
  const reads: Array<{ at: number; p: Prompt }> = [];
  for (let at = before.length; at < whole.length; at++) {
    t.write(whole.subarray(at, at + 1));
    const p = read(t);
    if (p.options.length) reads.push({ at: at + 1, p });
  }
  const full = asInfo(reads.at(-1)!.p);
  assert.is(full.options?.length, 4);
  for (const { at, p } of reads) {
    const info = asInfo(p);
    const same = (sameDialog(info, full) && sameDetails(info, full)) || partOf(info, full);
    assert.ok(same, `byte ${at}: ${JSON.stringify(p)}`);
  }
});

test.run();
