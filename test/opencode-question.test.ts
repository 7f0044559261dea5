/**
 * opencode 1.18.33's question dialog (its `question` tool: `Which database should I use?` /
 * `1. Postgres (Recommended)` / `2. SQLite` / `3. Type your own answer` / `↑↓ select  enter
 * submit  esc dismiss`), captured with `agentwatch record` (fixtures/opencode/marked/ocq.*, at
 * 32x120 then resized to 28x90 and 20x60, and fixtures/opencode-90/marked/ocq90.*, at 28x90
 * from its start). It read `idle` ("done N s ago"), was never announced, and `answer` refused
 * it (tester3 #1). Now: blocked by the manifest's rules, its question and options read with the
 * selected option told by its background alone, the second question of a session too, at every
 * width; and `answer --yes NAME 2` types Down then Enter into a real PTY that replays the
 * capture, then answers the session's second question with Enter.
 *
 * A person's own rule for a dialog the bundled manifest does not know (README "When an agent
 * changes its screens"; tester3 #10): with the question rules taken out of the bundled manifest
 * and the person's one-pattern rule on the dialog's key hints in their folder, the dialog reads
 * blocked, and its question and numbered options are read too (they were empty, and `answer`
 * said "blocked but shows no numbered options").
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import { type Manifest, parseManifest } from '../src/detect/manifest.ts';
import { createHost } from '../src/runtime/default-host.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { readRecording } from '../src/runtime/recording.ts';
import { ScreenPane, type SweptSession } from '../src/runtime/screen-pane.ts';
import { decide, initialState } from '../src/runtime/signals.ts';
import { dialogShown, promptOn } from '../src/runtime/typing-guard.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { cli } from './support/cli.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { privateHost } from './support/hosted-agent.ts';
import { until } from './support/until.ts';

const OC = join(REPO_ROOT, 'fixtures', 'opencode');
const OC90 = join(REPO_ROOT, 'fixtures', 'opencode-90');
const TOML = join(REPO_ROOT, 'resources', 'agent-detection', 'opencode.toml');
const bundled = parseManifest(readFileSync(TOML, 'utf8'), TOML);

function render(file: string, rows = 32, cols = 120): Terminal {
  const t = new Terminal(rows, cols);
  t.write(new Uint8Array(readFileSync(file)));
  return t;
}

const DATABASE = ['1. Postgres (Recommended)', '2. SQLite', '3. Type your own answer'];
const RUNNER = ['1. Vitest', '2. Jest', '3. uvu', '4. Type your own answer'];

test('every captured question dialog reads blocked, with its question, options and selection', () => {
  const cases: Array<[string, number, number, string, string[], number]> = [
    [
      join(OC, 'opencode.blocked.v118-question.raw'),
      32,
      120,
      'Which database should I use?',
      DATABASE,
      0,
    ],
    [
      join(OC, 'opencode.blocked.v118-question-down.raw'),
      32,
      120,
      'Which database should I use?',
      DATABASE,
      1,
    ],
    [
      join(OC, 'opencode.blocked.v118-question-second.raw'),
      32,
      120,
      'Which test runner do you prefer?',
      RUNNER,
      0,
    ],
    [
      join(OC90, 'opencode.blocked.v118-90-question.raw'),
      28,
      90,
      'Which database should I use?',
      DATABASE,
      0,
    ],
    [
      join(OC90, 'opencode.blocked.v118-90-question-second.raw'),
      28,
      90,
      'Which test runner do you prefer?',
      RUNNER,
      0,
    ],
    [
      join(OC, 'opencode.blocked.v118-questions-tabs.raw'),
      32,
      120,
      'Which database should I use?',
      ['1. Postgres', '2. SQLite', '3. Type your own answer'],
      0,
    ],
    [
      join(OC, 'opencode.blocked.v118-questions-multiple.raw'),
      32,
      120,
      'Which features do you want?',
      ['1. [ ] Auth', '2. [ ] Search', '3. [ ] Type your own answer'],
      0,
    ],
  ];
  for (const [file, rows, cols, question, options, selected] of cases) {
    const t = render(file, rows, cols);
    const ev = evaluate(t.snapshot(), bundled);
    assert.is(ev.state, 'blocked', `${file}: ${ev.reason}`);
    assert.match(ev.reason, /'question dialog'/, file);
    const p = promptOn(t);
    assert.is(p.question, question, file);
    assert.equal(p.options, options, file);
    assert.is(p.selected, selected, file);
    assert.is(p.layout, 'vertical');
    // the transcript above the panel (`→ Asked 1 question`, the person's task) is no detail
    assert.not.ok(p.details.some((d) => /Asked|task-ask/.test(d)), `${file}: ${p.details}`);
  }
});

test("the review step after several questions: blocked, its heading, answers and Enter's Submit", () => {
  const t = render(join(OC, 'opencode.blocked.v118-questions-confirm.raw'));
  const ev = evaluate(t.snapshot(), bundled);
  assert.is(ev.state, 'blocked', ev.reason);
  assert.match(ev.reason, /'question dialog, review step'/);
  const p = promptOn(t);
  assert.is(p.question, 'Review');
  assert.equal(p.options, ['Submit']);
  assert.is(p.selected, 0);
  assert.equal(p.details, ['Database: Postgres', 'Features: Auth']);
});

test('the dialog dismissed with esc reads idle; no idle or working capture reads blocked', () => {
  const t = render(join(OC, 'opencode.idle.v118-question-dismissed.raw'));
  assert.is(evaluate(t.snapshot(), bundled).state, 'idle');
  for (const dir of [OC, OC90]) {
    const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'));
    for (const [file, label] of Object.entries(labels)) {
      const { state, size } = typeof label === 'string'
        ? { state: label, size: '32x120' }
        : label as { state: string; size: string };
      const [rows, cols] = size.split('x').map(Number);
      const ev = evaluate(render(join(dir, file), rows, cols).snapshot(), bundled);
      assert.is(ev.state, state, `${file}: ${ev.reason}`);
    }
  }
});

/** Replays `name`'s recorded session with its resizes up to `at` seconds. */
function replay(dir: string, name: string, at: number): Terminal {
  const rec = readRecording(join(dir, 'marked', name));
  const t = new Terminal(rec.meta.rows, rec.meta.cols);
  const resizes = rec.meta.resizes.filter((r) => r.t <= at);
  for (const c of rec.chunks.filter((c) => c.t <= at)) {
    while (resizes.length && resizes[0].t <= c.t) {
      const r = resizes.shift()!;
      t.resize(r.rows, r.cols);
    }
    t.write(c.bytes);
  }
  for (const r of resizes) t.resize(r.rows, r.cols);
  return t;
}

test('the recorded sessions, resized while blocked (120 -> 90 -> 60 columns): blocked at each mark', () => {
  for (const [dir, name] of [[OC, 'ocq'], [OC90, 'ocq90']]) {
    const rec = readRecording(join(dir, 'marked', name));
    assert.ok(rec.truth.length >= 2);
    for (const mark of rec.truth) {
      const t = replay(dir, name, mark.t);
      const ev = evaluate(t.snapshot(), bundled);
      assert.is(ev.state, mark.state, `${name} at ${mark.t} s (${mark.why}, ${t.rows}x${t.cols})`);
      if (mark.state === 'blocked' && /question/.test(mark.why) && !/confirm/.test(mark.why)) {
        const p = promptOn(t);
        assert.ok(p.question.endsWith('?'), `${mark.why}: ${JSON.stringify(p)}`);
        assert.ok(p.options.length >= 3 && p.selected >= 0, `${mark.why}: ${JSON.stringify(p)}`);
      }
    }
  }
  // the narrowest: the second question at 20x60
  const t = replay(OC, 'ocq', 53.301);
  assert.is(t.cols, 60);
  assert.equal(promptOn(t).options, RUNNER);
});

test("a screen pane replaying the session: one prompt per question, the picked option's ✓ no new one", () => {
  const base = join(OC, 'marked', 'ocq');
  const rec = readRecording(base);
  const manifests = loadBundledManifests();
  const term = new Terminal(rec.meta.rows, rec.meta.cols);
  let clock = Date.parse(rec.meta.started);
  const session: SweptSession = {
    id: 'oc',
    spec: { agent: 'opencode', command: 'opencode', args: [] },
    terminal: term,
    inputsVersion: 0,
    exit: null,
    report: null,
    onOutput: () => () => {},
    onExit: () => () => {},
  };
  const pane = new ScreenPane(session, {
    manifests: () => manifests,
    foreground: () => null,
    now: () => clock,
  });
  // what a PtyPane publishes after each evaluation: the state and, when blocked, the prompt
  const published: string[] = [];
  pane.onClassified(() => {
    const p = promptOn(term, dialogShown(pane.record));
    const s = pane.record.state === 'blocked'
      ? `blocked ${JSON.stringify([p.question, p.options, p.details])}`
      : pane.record.state;
    if (published.at(-1) !== s) published.push(s);
  });
  const start = clock;
  const resizes = [...rec.meta.resizes];
  for (const c of rec.chunks) {
    while (resizes.length && resizes[0].t <= c.t) {
      const r = resizes.shift()!;
      term.resize(r.rows, r.cols);
    }
    clock = start + c.t * 1000;
    term.write(c.bytes);
    pane.classifyNow();
  }
  assert.not.ok(published.some((s) => / ✓"/.test(s)), published.join('\n'));
  // the first question: one prompt, from its drawing to its answer (Down, then the person's 1)
  const db = published.findIndex((s) => s.startsWith('blocked') && s.includes('Which database'));
  assert.ok(db >= 0, published.join('\n'));
  assert.not.ok(published[db + 1].startsWith('blocked'), published.slice(db, db + 3).join('\n'));
  // the second question too, though resized to 90 and 60 columns and back while it showed
  const runner = published.findIndex((s) => s.includes('Which test runner'));
  assert.ok(runner > db);
  assert.not.ok(published[runner + 1].startsWith('blocked'), published.slice(runner).join('\n'));
});

/**
 * argv LOG FILE...: writes FILE 1's bytes; each key read is logged (`K <hex>`); a Down, an Up or
 * an Enter writes the bytes of the next FILE that the previous one's are the start of (the
 * recorded session went on from there), and a key with no next file draws opencode's idle
 * composer and footer (logs `C`).
 */
const PLAY = String.raw`
const fs = require('fs');
const [log, ...files] = process.argv.slice(2);
let at = 0;
let sent = 0;
const next = () => {
  if (at >= files.length) {
    fs.appendFileSync(log, 'C\n');
    process.stdout.write('\x1b[H\x1b[2J\x1b[29;3H┃  Build · Fake Model Fake\x1b[30;3H╹' + '▀'.repeat(100) +
      '\x1b[31;4H/tmp/proj' + ' '.repeat(80) + '110  ctrl+p commands');
    return;
  }
  const bytes = fs.readFileSync(files[at++]);
  process.stdout.write(bytes.subarray(sent));
  sent = bytes.length;
};
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  const hex = d.toString('hex');
  fs.appendFileSync(log, 'K ' + hex + '\n');
  if (hex === '1b5b42' || hex === '1b5b41' || hex === '0d') next();
});
next();
`;

/** The keys the player logged (not the emulator's replies to the capture's queries). */
function keysIn(log: string): string[] {
  return readFileSync(log, 'utf8').split('\n').filter((l) => /^K (3\d|0d|1b5b4[1-4]|1b)$/.test(l))
    .map((l) => l.slice(2));
}

test('answer --yes NAME 2 on the real capture: Down, Enter; the second question: Enter', async () => {
  const { dir, env, host, close } = privateHost('aw-ocq-');
  try {
    const script = join(dir, 'play.cjs');
    writeFileSync(script, PLAY);
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const session = await host.start({
      command: process.execPath,
      args: [
        script,
        log,
        join(OC, 'opencode.blocked.v118-question.raw'),
        join(OC, 'opencode.blocked.v118-question-down.raw'),
        join(OC, 'opencode.blocked.v118-question-second.raw'),
      ],
      name: 'ocq',
      agent: 'opencode',
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    await until('the first question, blocked', () => {
      w.classifyNow();
      return w.record.state === 'blocked' && w.info().question === 'Which database should I use?';
    });
    assert.equal(w.info().options, DATABASE, 'the options published (notice, board, ls)');
    const first = await cli(['answer', '--yes', 'ocq', '2'], env, { tty: true });
    assert.is(first.code, 0, first.stdout + first.stderr);
    assert.match(first.stdout, /Which database should I use\?/);
    assert.match(first.stdout, /answered: 2\. SQLite/);
    assert.equal(keysIn(log), ['1b5b42', '0d'], 'Down, then Enter');

    await until('the second question, blocked', () => {
      w.classifyNow();
      return w.record.state === 'blocked' &&
        w.info().question === 'Which test runner do you prefer?';
    });
    assert.equal(w.info().options, RUNNER);
    const second = await cli(['answer', '--yes', 'ocq', '1'], env, { tty: true });
    assert.is(second.code, 0, second.stdout + second.stderr);
    assert.match(second.stdout, /answered: 1\. Vitest/);
    assert.equal(keysIn(log), ['1b5b42', '0d', '0d'], 'then Enter alone');
    assert.ok(readFileSync(log, 'utf8').includes('C\n'), 'the dialog left');
  } finally {
    await close();
  }
});

/**
 * The bundled opencode manifest without its question rules (and their examples, which they alone
 * read blocked): what a person had before them.
 */
function withoutQuestionRules(text: string): string {
  return text.split(/\n(?=\[\[rules\]\]\n|\[\[examples\]\]\n)/).filter((block) =>
    !/^\[\[(?:rules|examples)\]\]\n(?:#[^\n]*\n)*name = "question dialog/.test(block)
  ).join('\n');
}

/** The person's rule (tester3's): one pattern, the dialog's key hints, at the bottom. */
const USER_RULE = `
[[rules]]
name = "my rule: opencode question"
state = "blocked"
region = { bottom = 3 }
any = ['↑↓ select  enter submit  esc dismiss']
`;

/** A user manifest: the bundled one without its question rules, a newer version, the rule. */
function userManifest(): string {
  const text = withoutQuestionRules(readFileSync(TOML, 'utf8'))
    .replace(/^version = "[^"]*"/m, 'version = "2099.1"');
  // the person's rule goes first, before the other rules
  return text.replace('\n[[rules]]\n', `${USER_RULE}\n[[rules]]\n`);
}

test("a person's own rule: without it the dialog is idle, with it blocked, its options read", () => {
  const before = parseManifest(withoutQuestionRules(readFileSync(TOML, 'utf8')), 'before.toml');
  assert.not.ok(before.rules.some((r) => /question/.test(r.name ?? '')), 'the rules are out');
  const mine = parseManifest(userManifest(), 'mine.toml');
  const t = render(join(OC, 'opencode.blocked.v118-question-second.raw'));
  assert.is(evaluate(t.snapshot(), before).state, 'idle', 'what tester3 saw');
  const ev = evaluate(t.snapshot(), mine);
  assert.is(ev.state, 'blocked');
  assert.match(ev.reason, /my rule/);
  const p = promptOn(t, true);
  assert.is(p.question, 'Which test runner do you prefer?');
  assert.equal(p.options, RUNNER);
  assert.is(p.selected, 0);
});

/** A dialog whose selection is drawn in a way not read here (bold, a colour of its text). */
const PLAIN_DIALOG = [
  '  Transcript line one',
  '  1. a numbered line of the reply',
  '  2. another one',
  '',
  '  ┃  Pick a colour for the theme',
  '  ┃',
  '  ┃  1. Red',
  '  ┃  2. Green',
  '  ┃  3. Blue',
  '  ┃',
  '  ┃  ↑↓ choose  enter pick',
].join('\r\n');

test("a person's own rule, live: blocked by it, the options published, answer --yes NAME 2 answers", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-ocu-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AGENTWATCH_DIR: join(dir, 'sock'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_CACHE_HOME: join(dir, 'cache'),
  };
  mkdirSync(env.AGENTWATCH_DIR!, { mode: 0o700 });
  const folder = join(dir, 'config', 'agentwatch', 'agent-detection');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  writeFileSync(join(folder, 'opencode.toml'), userManifest());
  delete env.AGENTWATCH_SESSION;
  const host = createHost({ intervalMs: 100 }, env, { update: false });
  try {
    const script = join(dir, 'play.cjs');
    writeFileSync(script, PLAY);
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const session = await host.start({
      command: process.execPath,
      args: [
        script,
        log,
        join(OC, 'opencode.blocked.v118-question.raw'),
        join(OC, 'opencode.blocked.v118-question-down.raw'),
      ],
      name: 'ocu',
      agent: 'opencode',
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    await until("the question, blocked by the person's rule", () => {
      w.classifyNow();
      return w.record.state === 'blocked' && /my rule/.test(w.record.reason) &&
        w.info().question === 'Which database should I use?';
    });
    assert.equal(w.info().options, DATABASE, 'the options published (notice, board, ls)');
    const run = await cli(['answer', '--yes', 'ocu', '2'], env, { tty: true });
    assert.is(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /answered: 2\. SQLite/);
    assert.equal(keysIn(log), ['1b5b42', '0d'], 'Down, then Enter');
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a rule's dialog with no visible selection: its question and options, selected -1", () => {
  const t = new Terminal(32, 120);
  t.write(new TextEncoder().encode(PLAIN_DIALOG));
  const manifest: Manifest = parseManifest(
    `schema = 1\nid = "toy"\nname = "toy"\nversion = "1"\nprocess = ["toy"]\n` +
      `[[rules]]\nname = "pick"\nstate = "blocked"\nregion = { bottom = 2 }\n` +
      `any = ['↑↓ choose  enter pick$']\n`,
    'toy.toml',
  );
  const ev = evaluate(t.snapshot(), manifest);
  assert.is(ev.state, 'blocked');
  const record = decide(initialState(0), {
    now: 1,
    evaluation: ev,
    foreground: 'agent',
    foregroundName: 'toy',
    exit: null,
    report: null,
  });
  assert.ok(dialogShown(record), 'a screen rule read the dialog');
  const p = promptOn(t, dialogShown(record));
  assert.equal(p.options, ['1. Red', '2. Green', '3. Blue'], 'the dialog, not the reply above');
  assert.is(p.question, 'Pick a colour for the theme', "the bordered panel's first line");
  assert.is(p.selected, -1);
  // not read off the screen by a rule (an in-band state, a hook): no options from numbered text
  assert.equal(promptOn(t, false).options, []);
  const osc = { ...record, by: 'osc' as const };
  assert.not.ok(dialogShown(osc));
});

test.run();
