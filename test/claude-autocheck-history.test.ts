/**
 * Two screens of real Claude Code 2.1.332 that read wrong (tester9, 2026-12-02), on their
 * captures (fixtures/claude-code, test/support/capture-claude.ts cases autocheck and history):
 * - started without `--permission-mode` (auto mode, its default) against a server that does
 *   not pass the auto-mode check (any gateway, our fake server), the first action that needs
 *   the check opens a notice, "Auto mode can't check actions in this session" / ... /
 *   "Enter to stay in auto mode · shift+Tab to leave for accept edits mode and stop · Esc to
 *   cancel", no cursor, no options: it read idle; it reads blocked, its heading the question;
 *   the Bash dialog after it ("❯ No / Yes") and the one of the second prompt read blocked too;
 * - Ctrl-R's prompt history search ("Search prompts · everywhere", rows `❯ 2s ago  <prompt>`,
 *   "Enter to use · Esc to cancel") under a transcript holding "⎿  Interrupted · What should
 *   Claude do instead?" read blocked ('question over options'); it reads idle, its input a
 *   menu (so `send` types nothing), like /model.
 * Each is read from the screen alone and with the OSC 7501 state the recording carries.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, inputBox } from '../src/detect/evaluate.ts';
import { readPrompt } from '../src/detect/prompt.ts';
import type { ScreenInput } from '../src/detect/types.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { Terminal } from '../src/vt/terminal.ts';

const claude = loadBundledManifests().get('claude')!;

/** A fixture of fixtures/claude-code through the real emulator at 32x120. */
function render(file: string): ScreenInput {
  const t = new Terminal(32, 120);
  t.write(readFileSync(new URL(`../fixtures/claude-code/${file}`, import.meta.url)));
  return t.snapshot();
}

const screenOnly = (s: ScreenInput): ScreenInput => ({ ...s, title: '', osc: new Map() });

test('the auto-mode notice reads blocked from the screen alone, its heading the question', () => {
  const s = render('claude.blocked.autocheck.raw');
  const e = evaluate(screenOnly(s), claude);
  assert.is(e.state, 'blocked');
  const rule = claude.rules[e.rule!].name ?? '';
  assert.ok(['dialog footer', 'auto-mode check notice'].includes(rule), rule);
  assert.is(evaluate(s, claude).state, 'blocked');
  const p = readPrompt(s.rows);
  assert.is(p.question, "Auto mode can't check actions in this session");
  assert.equal(p.options, ['Stay in auto mode']);
  assert.is(p.selected, 0);
  assert.ok(p.details.some((d) => /approve each action/.test(d)), p.details.join('\n'));
});

test('the Bash dialogs after it (first and second prompt) read blocked, "Do you want to proceed?"', () => {
  for (const f of ['claude.blocked.autocheck.approve.raw', 'claude.blocked.autocheck.again.raw']) {
    const s = render(f);
    assert.is(evaluate(screenOnly(s), claude).state, 'blocked', f);
    const p = readPrompt(s.rows);
    assert.is(p.question, 'Do you want to proceed?', f);
    assert.equal(p.options, ['No', 'Yes'], f);
  }
  // the turn over, the notice's text left in the transcript: idle
  assert.is(evaluate(screenOnly(render('claude.idle.autocheck.raw')), claude).state, 'idle');
});

test("Ctrl-R's history search reads idle with the input a menu, with or without a query", () => {
  for (const f of ['claude.idle.pickers.history.raw', 'claude.idle.pickers.history-query.raw']) {
    const s = render(f);
    assert.ok(s.rows.some((r) => /Interrupted · What should Claude do instead\?/.test(r)), f);
    assert.is(evaluate(screenOnly(s), claude).state, 'idle', f);
    assert.is(evaluate(s, claude).state, 'idle', f);
    assert.is(inputBox(s, claude), 'menu', f);
  }
});

test.run();
