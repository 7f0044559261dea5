/**
 * Claude Code 2.1.332's diff panel beside its dialogs (fixtures/claude-code-160: a 45x160 pane,
 * a git repository with no commits; Claude opens the panel right of a `│` at column 88 by
 * itself once files are written). Tester: in such a pane one Bash prompt was announced 8 times
 * in 8 s, each notice's action the panel's `New file not yet staged.` and its options glued to
 * panel text (`1. Yes  ...│Run \`git add ...`), Write prompts read with no question. The panel's
 * column is cut off (src/detect/side-panel.ts) before rules and prompt reading: the real
 * screens read as the dialog alone, and the recorded session replayed through a screen pane
 * publishes one prompt per blocked spell, which the notify gate announces once each.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import { Evaluator } from '../src/detect/evaluator.ts';
import { readPrompt } from '../src/detect/prompt.ts';
import {
  cutSidePanel,
  findSidePanel,
  SidePanelCut,
  withoutSidePanel,
} from '../src/detect/side-panel.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { type Notice, NotifyGate, promptAction } from '../src/runtime/notify-gate.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { ScreenPane, type SweptSession } from '../src/runtime/screen-pane.ts';
import { promptOn } from '../src/runtime/typing-guard.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { fakeInfo } from './support/fake-session.ts';

const DIR = join(REPO_ROOT, 'fixtures', 'claude-code-160');
const claude = loadBundledManifests().get('claude')!;

function render(file: string): Terminal {
  const t = new Terminal(45, 160);
  t.write(new Uint8Array(readFileSync(join(DIR, file))));
  return t;
}

function prompt(file: string) {
  const t = render(file);
  return readPrompt(t.snapshot().rows, (y) => t.rowBackgrounds(y));
}

const WRITE_OPTIONS = [
  '1. Yes',
  '2. Yes, and switch to accept edits (auto-approve file edits and common file commands) for this session (shift+tab)',
  '3. No',
];

test('the real screens have the divider at column 88; nothing right of it is read', () => {
  for (const f of ['write2', 'write6', 'bash'].map((n) => `claude.blocked.sidepanel.${n}.raw`)) {
    const rows = render(f).snapshot().rows;
    const panel = findSidePanel(rows);
    assert.ok(panel, f);
    assert.is(panel!.column, 88, f);
    const cut = cutSidePanel(rows);
    assert.ok(cut.every((r) => !/untracked|not yet staged|git add|files changed/.test(r)), f);
  }
  const idle = render('claude.idle.sidepanel.after.raw').snapshot().rows;
  const cut = cutSidePanel(idle);
  // the input box's rules and footer span the pane under the panel: kept whole
  assert.match(cut.at(-1)!, /manual mode on · \? for shortcuts/);
  assert.is(cut.filter((r) => /^─{160}$/.test(r)).length, 2);
});

test('Bash beside the panel: question, options and details of the dialog alone', () => {
  const p = prompt('claude.blocked.sidepanel.bash.raw');
  assert.is(p.question, 'Do you want to proceed?');
  assert.is(p.options.length, 4);
  assert.is(p.options[0], '1. Yes');
  assert.match(
    p.options[1],
    /^2\. Yes, and don't ask again for mkdir -p out and touch out\/done\.log commands in \/\S+\/proj$/,
  );
  assert.is(
    p.options[2],
    '3. Yes, and switch to auto mode · auto mode handles these prompts for you',
  );
  assert.is(p.options[3], '4. No');
  assert.is(p.selected, 0);
  assert.equal(p.details, [
    'Bash command',
    'Create the output marker',
    'mkdir -p out && touch out/done.log',
  ]);
  assert.is(promptAction(p.details), 'Bash: mkdir -p out && touch out/done.log');
});

test('Write beside the panel (its text on every row, or blank): the question and Create: FILE', () => {
  for (const n of [2, 6]) {
    const p = prompt(`claude.blocked.sidepanel.write${n}.raw`);
    assert.is(p.question, `Do you want to create file_${n}.txt?`);
    assert.equal(p.options, WRITE_OPTIONS);
    assert.is(p.selected, 0);
    assert.equal(p.details, ['Create file', `file_${n}.txt`, `1 file ${n}`]);
    assert.is(promptAction(p.details), `Create: file_${n}.txt`);
  }
});

test('every fixture gets its label, by evaluate and by the incremental evaluator', () => {
  const labels: Record<string, { state: string }> = JSON.parse(
    readFileSync(join(DIR, 'labels.json'), 'utf8'),
  );
  for (const [file, { state }] of Object.entries(labels)) {
    const s = render(file).snapshot();
    assert.is(evaluate(s, claude).state, state, file);
    assert.is(new Evaluator().evaluate(s, claude).state, state, file);
  }
});

test('no divider: a box border, a table, a left border, a short run, a bar near the left edge', () => {
  const box = [
    '╭' + '─'.repeat(40) + '╮',
    ...Array.from({ length: 10 }, (_, k) => `│ line ${k}`.padEnd(41) + '│'),
    '╰' + '─'.repeat(40) + '╯',
  ];
  assert.is(
    findSidePanel(box),
    null,
    'a box: the left border has nothing left, the right nothing right',
  );
  const table = Array.from(
    { length: 12 },
    (_, k) => `│ cell ${k}`.padEnd(30) + `│ value ${k}`.padEnd(30) + '│',
  );
  assert.is(findSidePanel(table), null, 'a table: every row starts with a border');
  const short = Array.from({ length: 7 }, (_, k) => `text ${k}`.padEnd(40) + `│panel ${k}`);
  assert.is(findSidePanel(short), null, '7 rows are no divider');
  const near = Array.from({ length: 12 }, (_, k) => `ab ${k}`.padEnd(10) + `│rest ${k}`);
  assert.is(findSidePanel(near), null, 'column 10 is left of the least column');
  const split = Array.from({ length: 8 }, (_, k) => `text ${k}`.padEnd(40) + `│panel ${k}`);
  assert.is(findSidePanel(split)?.column, 40);
});

test('a wide character left of the divider (two cells, one code unit): that row is cut too', () => {
  const t = new Terminal(10, 60);
  const rows = ['日本語 ok', 'Do you want to proceed?', '❯ 1. Yes', '  2. No', 'a', 'b', 'c', 'd'];
  t.write(new TextEncoder().encode(rows.map((r, k) => `${r}\x1b[30G│panel ${k}`).join('\r\n')));
  const cut = cutSidePanel(t.snapshot().rows);
  assert.equal(cut.slice(0, 8), rows);
  const p = readPrompt(t.snapshot().rows);
  assert.is(p.question, 'Do you want to proceed?');
  assert.equal(p.options, ['1. Yes', '2. No']);
});

/** A session info as a host publishes it, at time 0 (the gate's clock is scripted). */
function info(state: string, p?: { question: string; options: string[]; details: string[] }) {
  const base = { name: 'sp', state, since: 0, reason: '', startedAt: 0, lastOutput: 0 };
  return { ...fakeInfo('s-1', '/tmp/x.sock', base), exit: undefined, ...p } as SessionInfo;
}

test('the recorded session through a screen pane: one prompt per blocked spell, one notice each', () => {
  const base = join(DIR, 'marked', 'sidepanel');
  const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8'));
  const manifests = loadBundledManifests();
  const term = new Terminal(meta.rows, meta.cols);
  const start = Date.parse(meta.started);
  let clock = start;
  const session: SweptSession = {
    id: 'sp',
    spec: { agent: 'claude', command: 'claude', args: [] },
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
  const gate = new NotifyGate();
  const notices: Notice[] = [];
  const flush = (until: number) => {
    for (let next = gate.nextDue(); next !== null && next <= until; next = gate.nextDue()) {
      notices.push(...gate.due(next));
    }
  };
  // what a PtyPane publishes after each evaluation: the state and, when blocked, the prompt
  const published: string[] = [];
  pane.onClassified(() => {
    const state = pane.record.state;
    const p = promptOn(term);
    const read = { question: p.question, options: p.options, details: p.details };
    const s = state === 'blocked' ? `blocked ${JSON.stringify(read)}` : state;
    if (published.at(-1) === s) return;
    published.push(s);
    flush(clock - start);
    const n = gate.observe(info(state, state === 'blocked' ? read : undefined), clock - start);
    if (n) notices.push(n);
  });
  for (const line of readFileSync(`${base}.bytes.jsonl`, 'utf8').split('\n')) {
    if (!line) continue;
    const { t, b64 } = JSON.parse(line) as { t: number; b64: string };
    clock = start + t * 1000;
    term.write(Buffer.from(b64, 'base64'));
    pane.classifyNow(); // as the sweep does once the screen changed
  }
  flush(Infinity);
  // the dialog's text, once each: a blocked read before the dialog was drawn has no options
  const read = published.filter((s) => s.startsWith('blocked') && !s.includes('"options":[]'));
  assert.is(read.length, 7, published.join('\n'));
  assert.ok(read.every((s) => !/│|untracked|not yet staged|git add/.test(s)), read.join('\n'));
  const blocked = notices.filter((n) => n.kind === 'blocked');
  assert.equal(
    blocked.map((n) => n.action),
    [1, 2, 3, 4, 5, 6].map((n) => `Create: file_${n}.txt`).concat(
      'Bash: mkdir -p out && touch out/done.log',
    ),
  );
  assert.equal(
    blocked.map((n) => n.question),
    [1, 2, 3, 4, 5, 6].map((n) => `Do you want to create file_${n}.txt?`).concat(
      'Do you want to proceed?',
    ),
  );
});

test('the cut kept per pane agrees with withoutSidePanel on every screen of the recorded session', () => {
  const base = join(DIR, 'marked', 'sidepanel');
  const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8'));
  const term = new Terminal(meta.rows, meta.cols);
  const kept = new SidePanelCut();
  let withPanel = 0;
  let screens = 0;
  for (const line of readFileSync(`${base}.bytes.jsonl`, 'utf8').split('\n')) {
    if (!line) continue;
    term.write(Buffer.from((JSON.parse(line) as { b64: string }).b64, 'base64'));
    const screen = term.snapshot();
    const want = withoutSidePanel(screen);
    const got = kept.cut(screen);
    assert.equal(got.rows, want.rows, `screen ${screens}`);
    assert.equal(got.wrapped, want.wrapped, `screen ${screens}`);
    if (want !== screen) withPanel++;
    screens++;
  }
  // the session has screens with the panel and without it, so both ways were taken
  assert.ok(withPanel > 0 && withPanel < screens, `${withPanel} of ${screens}`);
  // a resize (fewer rows) and back: rows of another count are read afresh
  const small = new Terminal(10, 60);
  const rows = Array.from({ length: 9 }, (_, k) => `text ${k}`.padEnd(40) + `│panel ${k}`);
  small.write(new TextEncoder().encode(rows.join('\r\n')));
  assert.equal(kept.cut(small.snapshot()).rows, withoutSidePanel(small.snapshot()).rows);
  assert.ok(kept.cut(small.snapshot()).rows.every((r) => !r.includes('panel')));
});

test.run();
