/**
 * The bundled manifests on the real agents' real screens: every fixture in fixtures/* gets its
 * label through the real emulator (with the agent's OSC/title signals, and from the screen
 * alone), every manifest's [[examples]] pass, and adversarial screens made from real ones
 * (reply prose quoting a prompt, "1. Yes" typed in the input box) are not blocked.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import { Evaluator } from '../src/detect/evaluator.ts';
import { runExamples } from '../src/detect/examples.ts';
import { type Manifest, parseManifest } from '../src/detect/manifest.ts';
import type { RuleState, ScreenInput } from '../src/detect/types.ts';
import { bundledManifestTexts } from '../src/runtime/bundled-manifests.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { Terminal } from '../src/vt/terminal.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
/** Fixture folder -> manifest id (the file prefix names the agent). */
const AGENTS: Record<string, string> = {
  'claude-code': 'claude',
  codex: 'codex',
  'gemini-cli': 'gemini',
  'qwen-code': 'qwen',
  opencode: 'opencode',
};

const manifests = loadBundledManifests();

function manifest(id: string): Manifest {
  const m = manifests.get(id);
  if (!m) throw new Error(`no bundled manifest '${id}'`);
  return m;
}

/** Renders a capture through the real emulator at 32x120. */
function render(folder: string, file: string): ScreenInput {
  const t = new Terminal(32, 120);
  t.write(readFileSync(new URL(`${folder}/${file}`, FIXTURES)));
  return t.snapshot();
}

function labels(folder: string): Array<[string, RuleState]> {
  return Object.entries(
    JSON.parse(readFileSync(new URL(`${folder}/labels.json`, FIXTURES), 'utf8')),
  );
}

/** The same screen without the agent's own signals (title, OSC): the screen rules alone. */
function screenOnly(s: ScreenInput): ScreenInput {
  return { ...s, title: '', osc: new Map() };
}

/** A copy of `s` with row `y` replaced (for adversarial screens made from real ones). */
function withRow(s: ScreenInput, y: number, text: string): ScreenInput {
  const rows = [...s.rows];
  rows[y] = text;
  return { ...s, rows };
}

/** The seed's rules, unanchored (DESIGN.md section 1), to show what the anchoring prevents. */
const SEED = parseManifest(
  `schema = 1
id = "seed"
name = "seed rules"
version = "0"
process = ["claude"]
[[rules]]
state = "blocked"
any = ['Do you want to (proceed|continue|make this edit|create)', '❯\\s*1\\.\\s*Yes', 'Esc to cancel · Tab to amend', 'Enter to select · ↑/↓ to navigate', 'Exit plan mode\\?', 'Would you like to']
[[rules]]
state = "working"
any = ['esc to interrupt']
[[rules]]
state = "idle"
any = ['\\? for shortcuts', '(?:⏸|⏵⏵) [a-z ]+ mode on']
`,
  'seed.toml',
);

test('bundled manifests: the five agents, ids match file names', () => {
  assert.equal(Object.keys(bundledManifestTexts()), [
    'claude.toml',
    'codex.toml',
    'gemini.toml',
    'opencode.toml',
    'qwen.toml',
  ]);
  assert.equal([...manifests.keys()].sort(), ['claude', 'codex', 'gemini', 'opencode', 'qwen']);
  for (const m of manifests.values()) {
    assert.is(m.source, `resources/agent-detection/${m.id}.toml`);
    assert.ok(m.process.includes(m.id === 'claude' ? 'claude' : m.id), m.id);
  }
});

for (const id of ['claude', 'codex', 'gemini', 'qwen', 'opencode']) {
  test(`${id}.toml: every example passes, adversarial ones included`, () => {
    const m = manifest(id);
    const report = runExamples(m);
    assert.equal(report.failed, [], JSON.stringify(report.failed));
    assert.is(report.passed, m.examples.length);
    assert.ok(m.examples.some((e) => e.state === 'blocked'), 'has a blocked example');
    assert.ok(
      m.examples.some((e) => e.state === 'idle' && e.name?.startsWith('adversarial')),
      'has an adversarial idle example',
    );
  });
}

for (const [folder, id] of Object.entries(AGENTS)) {
  test(`${folder}: every fixture gets its label through the real emulator`, () => {
    const m = manifest(id);
    const rows = labels(folder);
    assert.ok(rows.length >= 11, `${rows.length} fixtures`);
    const wrong: string[] = [];
    for (const [file, want] of rows) {
      const s = render(folder, file);
      const all = evaluate(s, m);
      const screen = evaluate(screenOnly(s), m);
      if (all.state !== want) wrong.push(`${file}: want ${want}, got ${all.state} (${all.reason})`);
      if (screen.state !== want) {
        wrong.push(`${file} (screen only): want ${want}, got ${screen.state} (${screen.reason})`);
      }
    }
    assert.equal(wrong, []);
  });
}

test('Codex and Gemini decide by their own signals first (OSC 7501, title)', () => {
  const codex = evaluate(render('codex', 'codex.blocked.raw'), manifest('codex'));
  assert.is(codex.region, 'osc 7501');
  assert.is(codex.match, 'state=blocked');
  const done = evaluate(render('codex', 'codex.idle.question.raw'), manifest('codex'));
  assert.is(done.region, 'osc 7501');
  assert.is(done.state, 'idle');
  const gemini = evaluate(render('gemini-cli', 'gemini-cli.working.raw'), manifest('gemini'));
  assert.is(gemini.region, 'title');
  assert.is(gemini.match, '✦  Working');
});

test('Claude: the deciding rule and text on real dialogs', () => {
  const claude = manifest('claude');
  const bash = evaluate(render('claude-code', 'claude.blocked.raw'), claude);
  assert.is(bash.rule, 1); // after 'OSC 7501 blocked'
  assert.is(bash.match, 'Do you want to proceed');
  const question = evaluate(render('claude-code', 'claude.blocked.question.raw'), claude);
  assert.is(question.rule, 2);
  assert.is(question.match, 'Enter to select · ↑/↓ to navigate · Esc to cancel');
  const plan = evaluate(render('claude-code', 'claude.blocked.plan.raw'), claude);
  assert.is(claude.rules[plan.rule!].name, 'plan approval');
  assert.is(plan.match, 'Would you like to proceed?');
  const working = evaluate(render('claude-code', 'claude.working.raw'), claude);
  assert.is(working.state, 'working');
  assert.is(working.region, 'below_last_rule');
});

test('adversarial (Claude): reply prose "Do you want to proceed with the migration?" above the idle footer is idle', () => {
  const real = render('claude-code', 'claude.idle.raw');
  assert.is(
    real.rows[24],
    '● I looked through the project. Everything is in order, and there is nothing else to change right now.',
  );
  const s = withRow(
    real,
    24,
    '● The schema change is ready. Do you want to proceed with the migration?',
  );
  assert.is(evaluate(s, SEED).state, 'blocked', 'the seed rules fire on it');
  const e = evaluate(s, manifest('claude'));
  assert.is(e.state, 'idle');
  assert.match(e.reason, /idle footer/);
});

test('adversarial (Claude): "1. Yes" typed into the input box is not blocked', () => {
  const real = render('claude-code', 'claude.idle.after.raw');
  assert.match(real.rows[29], /^❯\s*$/);
  const s = withRow(real, 29, '❯ 1. Yes');
  assert.is(evaluate(s, SEED).state, 'blocked', 'the seed rules fire on it');
  assert.is(evaluate(s, manifest('claude')).state, 'idle');
});

test('adversarial (Claude): a reply quoting the whole permission dialog while working is working', () => {
  const real = render('claude-code', 'claude.working.raw');
  const quoted = [
    ' Do you want to proceed?',
    ' ❯ 1. Yes',
    '   2. No',
    ' Esc to cancel · Tab to amend',
  ];
  let s = real;
  quoted.forEach((line, i) => (s = withRow(s, 16 + i, line)));
  assert.is(evaluate(s, SEED).state, 'blocked', 'the seed rules fire on it');
  assert.is(evaluate(s, manifest('claude')).state, 'working');
});

test('adversarial (Codex): the reply "Would you like to add a regression test?" is not blocked', () => {
  const codex = manifest('codex');
  for (
    const [file, want] of [['codex.idle.question.raw', 'idle'], [
      'codex.working.tool.raw',
      'working',
    ]] as const
  ) {
    const s = screenOnly(render('codex', file));
    assert.ok(s.rows.some((r) => r.trim() === 'Would you like to add a regression test?'), file);
    assert.is(
      evaluate(s, SEED).state,
      'blocked',
      `the seed's 'Would you like to' fires on ${file}`,
    );
    assert.is(evaluate(s, codex).state, want, file);
  }
});

test('adversarial (Gemini, Qwen, opencode): the same reply question stays not blocked from the screen alone', () => {
  const cases: Array<[string, string, string, RuleState]> = [
    ['gemini-cli', 'gemini-cli.idle.question.raw', 'gemini', 'idle'],
    ['qwen-code', 'qwen-code.idle.question.raw', 'qwen', 'idle'],
    ['opencode', 'opencode.idle.question.raw', 'opencode', 'idle'],
    ['qwen-code', 'qwen-code.working.tool.raw', 'qwen', 'working'],
  ];
  for (const [folder, file, id, want] of cases) {
    const s = screenOnly(render(folder, file));
    assert.ok(s.rows.some((r) => r.includes('Would you like to add a regression test?')), file);
    assert.is(evaluate(s, manifest(id)).state, want, file);
  }
});

test('claude [activity]: a working screen says what Claude Code does (its spinner text); idle and blocked ones say nothing', () => {
  const claude = manifest('claude');
  const working = evaluate(render('claude-code', 'claude.working.raw'), claude);
  assert.is(working.state, 'working');
  assert.match(working.activity ?? '', /^[A-Z][a-z]+…$/, String(working.activity));
  for (const f of ['claude.idle.after.raw', 'claude.blocked.raw']) {
    assert.is(evaluate(render('claude-code', f), claude).activity, undefined, f);
  }
  // The active form of a task, as a todo list gives it, is kept whole.
  const rows = Array(32).fill('');
  rows[24] = '✻ Running the test suite… (12s · ↓ 230 tokens · esc to interrupt)';
  rows[26] = '─'.repeat(120);
  rows[27] = '❯ ';
  rows[28] = '─'.repeat(120);
  rows[29] = '  ⏵⏵ accept edits on · esc to interrupt';
  const screen: ScreenInput = { rows, wrapped: rows.map(() => false), title: '', osc: new Map() };
  const e = evaluate(screen, claude);
  assert.is(e.state, 'working');
  assert.is(e.activity, 'Running the test suite…'); // The sweep's evaluator (a cached result while the deciding rule's text is the same) gives
  // the new activity when only the spinner line changed.
  const ev = new Evaluator();
  assert.is(ev.evaluate(screen, claude).activity, 'Running the test suite…');
  const next = [...rows];
  next[24] = '✶ Writing the report… (13s · ↓ 240 tokens · esc to interrupt)';
  const later = ev.evaluate({ ...screen, rows: next }, claude);
  assert.is(later.activity, 'Writing the report…');
  assert.equal(later, evaluate({ ...screen, rows: next }, claude), 'as evaluate() says');
});

test.run();
