/**
 * Why a Qwen Code session's blocked `watch --json` line can carry `question: null`: Qwen Code
 * 0.24.4 turns its window title to `✳` (WaitingForConfirmation) about 0.1 s before it draws its
 * dialog (fixtures/qwen-code/recordings/qwen-code-0.24.4), so the state is blocked by the
 * title rule while no question is on the screen yet; the `"event": "prompt"` line carries it
 * once the dialog is drawn. The README says so (it said only a Claude Code hook did this).
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import { readPrompt } from '../src/detect/prompt.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { Terminal } from '../src/vt/terminal.ts';

const RECORDING = new URL(
  '../fixtures/qwen-code/recordings/qwen-code-0.24.4.bytes.jsonl',
  import.meta.url,
);

test('Qwen Code 0.24.4: blocked by its title before its dialog is drawn, the question comes with the dialog', () => {
  const qwen = loadBundledManifests().get('qwen')!;
  const chunks = readFileSync(RECORDING, 'utf8').trim().split('\n').map((l) =>
    JSON.parse(l) as { t: number; b64?: string }
  );
  const term = new Terminal(32, 120);
  /** Per blocked spell: [blocked without a question at its start, when the question came]. */
  const spells: { titleFirst: boolean; questionAfter?: number }[] = [];
  let from: number | null = null;
  for (const { t, b64 } of chunks) {
    if (b64 === undefined) continue;
    term.write(Buffer.from(b64, 'base64'));
    const snap = term.snapshot();
    const ev = evaluate(snap, qwen);
    const question = readPrompt(snap.rows).question;
    if (ev.state !== 'blocked') {
      from = null;
      continue;
    }
    if (from === null) {
      from = t;
      spells.push({ titleFirst: !question && ev.region === 'title' });
    }
    const spell = spells[spells.length - 1];
    if (question && spell.questionAfter === undefined) spell.questionAfter = t - from;
  }
  assert.ok(spells.length >= 2, `${spells.length} blocked spells`);
  const titleFirst = spells.filter((s) => s.titleFirst);
  assert.ok(titleFirst.length >= 1, JSON.stringify(spells));
  for (const s of titleFirst) {
    assert.ok(s.questionAfter !== undefined && s.questionAfter < 1, JSON.stringify(spells));
  }
});

test("the README says a Qwen Code title can say blocked before the dialog's question shows", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(
    /\s+/g,
    ' ',
  );
  const at = readme.indexOf(
    'An agent often says it is blocked a moment before it draws its dialog',
  );
  assert.ok(at >= 0, 'the README says when blocked comes before its dialog');
  const said = readme.slice(at, at + 700);
  assert.match(said, /Qwen Code 0\.24's window title/);
  assert.match(said, /question is null only when no dialog could be read/);
});

test.run();
