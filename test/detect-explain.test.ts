/**
 * explain (every rule, every pattern, evidence, which rule decided) and runExamples.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import { runExamples } from '../src/detect/examples.ts';
import { explain, formatExplain } from '../src/detect/explain.ts';
import { parseManifest } from '../src/detect/manifest.ts';
import type { ScreenInput } from '../src/detect/types.ts';

const HEAD = `schema = 1\nid = "t"\nname = "t"\nversion = "1"\nprocess = ["t"]\n`;
const RULES = `
[[rules]]
name = "dialog"
state = "blocked"
region = { bottom = 3 }
all = ['Esc to cancel\\z']
any = ['Do you want to \\w+']
none = ['esc to interrupt']

[[rules]]
name = "spinner"
state = "working"
any = ['esc to interrupt']

[[rules]]
name = "footer"
state = "idle"
any = ['\\? for shortcuts']
`;

function screen(rows: string[]): ScreenInput {
  return { rows, wrapped: rows.map(() => false), title: '', osc: new Map() };
}

test('explain reports every rule and pattern, and marks the deciding rule', () => {
  const m = parseManifest(HEAD + RULES, 't.toml');
  const s = screen([
    'Do you want to proceed with the migration?',
    '',
    '· Churning…',
    '⏸ manual mode on · esc to interrupt',
  ]);
  const records = explain(s, m);
  assert.is(records.length, 3);
  const [dialog, spinner, footer] = records;
  assert.is(dialog.matched, false);
  assert.is(dialog.decided, false);
  assert.is(dialog.region, 'bottom 3');
  assert.is(dialog.regionSummary, 'bottom 3: 3 lines, 90 chars');
  assert.equal(
    dialog.patterns.map((p) => [p.field, p.index, p.matched]),
    [['all', 0, false], ['any', 0, true], ['none', 0, true]],
  );
  assert.is(dialog.patterns[0].evidence, 'no match in bottom 3');
  assert.is(dialog.patterns[1].evidence, '"Do you want to proceed"');
  assert.is(dialog.summary, 'all[0] did not match');
  assert.is(spinner.matched, true);
  assert.is(spinner.decided, true);
  assert.is(spinner.summary, 'matched');
  assert.is(footer.matched, false);
  assert.is(footer.decided, false);
  assert.is(footer.summary, "none of any's 1 matched");
  // explain and evaluate agree on the decision.
  assert.is(evaluate(s, m).rule, records.findIndex((r) => r.decided));
});

test('a later matching rule is reported matched but not decided', () => {
  const m = parseManifest(HEAD + RULES, 't.toml');
  const records = explain(screen(['esc to interrupt', '? for shortcuts']), m);
  assert.equal(records.map((r) => [r.matched, r.decided]), [[false, false], [true, true], [
    true,
    false,
  ]]);
});

test('evidence names an empty region, and long matches are shortened', () => {
  const m = parseManifest(
    HEAD +
      `[[rules]]\nstate = "blocked"\nregion = { osc = 7501 }\nany = ['x']\n[[rules]]\nstate = "idle"\nany = ['a+']\n`,
    't.toml',
  );
  const [osc, long] = explain(screen(['a'.repeat(200)]), m);
  assert.is(osc.patterns[0].evidence, 'osc 7501 is empty');
  assert.is(osc.regionSummary, 'osc 7501: empty');
  assert.is(long.patterns[0].evidence, `"${'a'.repeat(71)}…"`);
});

test('formatExplain prints one block per rule and the verdict', () => {
  const m = parseManifest(HEAD + RULES, 't.toml');
  const text = formatExplain(explain(screen(['Do you want to run this?', 'Esc to cancel']), m));
  const lines = text.trimEnd().split('\n');
  assert.is(lines[0], "rule 0 'dialog' (blocked) bottom 3: 2 lines, 38 chars: matched  <= decides");
  assert.is(lines[1], '  all[0]  ✓ \'Esc to cancel\\z\'  "Esc to cancel"');
  assert.is(lines[2], '  any[0]  ✓ \'Do you want to \\w+\'  "Do you want to run"');
  assert.is(lines[3], "  none[0] ✗ 'esc to interrupt'  no match in bottom 3");
  assert.is(lines[lines.length - 1], '=> blocked (rule 0)');
  const none = formatExplain(explain(screen(['hello']), m));
  assert.ok(none.endsWith('=> idle (no rule matched)\n'));
});

test('runExamples: passes, failures with index, expected, got and reason', () => {
  const m = parseManifest(
    HEAD + RULES +
      `
[[examples]]
name = "dialog"
state = "blocked"
screen = """
Do you want to proceed?
❯ 1. Yes
Esc to cancel
"""

[[examples]]
state = "blocked"
screen = "Do you want to proceed?"

[[examples]]
state = "working"
screen = "esc to interrupt"
`,
    't.toml',
  );
  const r = runExamples(m);
  assert.is(r.passed, 2);
  assert.equal(r.failed, [{
    index: 1,
    expected: 'blocked',
    got: 'idle',
    reason: 'no rule matched',
  }]);
  assert.equal(r.results.map((x) => x.ok), [true, false, true]);
  assert.is(r.results[0].name, 'dialog');
  assert.is(
    r.results[0].reason,
    "rule 0 'dialog' (blocked): any[0] matched, all 1 matched, none of 1 matched in bottom 3",
  );
});

test('example title and OSC reach the title and osc regions', () => {
  const m = parseManifest(
    HEAD +
      `[[rules]]\nstate = "blocked"\nregion = "title"\nany = ['Action Required']\n` +
      `[[rules]]\nstate = "working"\nregion = { osc = 7501 }\nany = ['state=working']\n` +
      `[[examples]]\nstate = "blocked"\ntitle = "✋  Action Required (p)"\nscreen = ""\n` +
      `[[examples]]\nstate = "working"\nosc = { 7501 = "state=working:app=codex" }\nscreen = ""\n` +
      `[[examples]]\nstate = "idle"\nscreen = "Action Required state=working"\n`,
    't.toml',
  );
  const r = runExamples(m);
  assert.equal(r.failed, []);
  assert.is(r.passed, 3);
});

test.run();
