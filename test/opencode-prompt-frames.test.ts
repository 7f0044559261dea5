/**
 * opencode 1.18.33's edit permission panel, frame by frame: the recorded session
 * fixtures/opencode/marked/ocdraft (agentwatch record, 32x120) replayed one PTY read at a time.
 * The panel's first frame draws the diff's scrollbar in its last column (`█` rows ending in a
 * `▀`), the next frame (about 90 ms later) drops it. Read through the guard's {@link promptOn},
 * every frame of that blocked spell is the same prompt (question, options, details): the
 * scrollbar is no detail, so the notify gate sees one prompt, not two (tester3: every edit
 * prompt was announced twice, 50-150 ms apart). And the Enter that rejects it: opencode's next
 * frame (inside a synchronized update, DEC mode 2026) came in two PTY reads 30 ms apart, the
 * first one the panel half erased with its button row still there: read, that was a prompt
 * with no question and no details (tester3: a notice with an empty question right before
 * blocked -> working). A {@link ScreenPane} does not look at a screen inside a synchronized
 * update, so the prompts it publishes (read after each of its evaluations) are one per spell.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Evaluator } from '../src/detect/evaluator.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { ScreenPane, type SweptSession } from '../src/runtime/screen-pane.ts';
import { promptOn } from '../src/runtime/typing-guard.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { REPO_ROOT } from './support/claude-home.ts';

const BASE = join(REPO_ROOT, 'fixtures', 'opencode', 'marked', 'ocdraft');

interface Frame {
  t: number;
  state: string;
  prompt: string;
  selected: number;
  synchronized: boolean;
}

/** Every PTY read of the recording, replayed (its resizes too), with what was read after it. */
function frames(): Frame[] {
  const meta = JSON.parse(readFileSync(`${BASE}.meta.json`, 'utf8'));
  const manifest = loadBundledManifests().get('opencode')!;
  const evaluator = new Evaluator();
  const term = new Terminal(meta.rows, meta.cols);
  const resizes: Array<{ t: number; rows: number; cols: number }> = [...meta.resizes];
  const out: Frame[] = [];
  for (const line of readFileSync(`${BASE}.bytes.jsonl`, 'utf8').split('\n')) {
    if (!line) continue;
    const { t, b64 } = JSON.parse(line) as { t: number; b64: string };
    while (resizes.length && resizes[0].t <= t) {
      const r = resizes.shift()!;
      term.resize(r.rows, r.cols);
    }
    term.write(Buffer.from(b64, 'base64'));
    const p = promptOn(term);
    out.push({
      t,
      state: evaluator.evaluate(term.snapshot(), manifest).state,
      prompt: JSON.stringify([p.question, p.options, p.details]),
      selected: p.selected,
      synchronized: term.synchronizedUpdate,
    });
  }
  return out;
}

/** The blocked spells: runs of frames read blocked (frames inside a synchronized update left out). */
function spells(all: Frame[]): Frame[][] {
  const runs: Frame[][] = [];
  let run: Frame[] = [];
  for (const f of all) {
    if (f.synchronized) continue;
    if (f.state === 'blocked') run.push(f);
    else if (run.length) runs.push(run), run = [];
  }
  if (run.length) runs.push(run);
  return runs;
}

test('the edit and the bash prompt each read as one prompt in every complete frame (scrollbar or not)', () => {
  const runs = spells(frames());
  assert.is(runs.length, 2, 'two prompts: the edit (rejected), then the bash command (allowed)');
  const [edit, bash] = runs;
  const editPrompts = new Set(edit.map((f) => f.prompt));
  assert.equal([...editPrompts], [
    JSON.stringify([
      'Permission required',
      ['1. Allow once', '2. Allow always', '3. Reject'],
      ['→ Edit hello.txt', '1 - Helo, world!', '1 + Hello, world!'],
    ]),
  ]);
  assert.is(new Set(bash.map((f) => f.prompt)).size, 1, [...bash.map((f) => f.prompt)].join('\n'));
  // the denial's two Right keys move the selection; the Enter ends the spell
  assert.equal([...new Set(edit.map((f) => f.selected))], [0, 1, 2]);
});

test('a screen pane replaying the session publishes one prompt per blocked spell (torn frames unread)', () => {
  const meta = JSON.parse(readFileSync(`${BASE}.meta.json`, 'utf8'));
  const manifests = loadBundledManifests();
  const term = new Terminal(meta.rows, meta.cols);
  let clock = Date.parse(meta.started);
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
    const p = promptOn(term);
    const s = pane.record.state === 'blocked'
      ? `blocked ${JSON.stringify([p.question, p.options, p.details])}`
      : pane.record.state;
    if (published.at(-1) !== s) published.push(s);
  });
  const start = clock;
  const resizes: Array<{ t: number; rows: number; cols: number }> = [...meta.resizes];
  let torn = 0;
  for (const line of readFileSync(`${BASE}.bytes.jsonl`, 'utf8').split('\n')) {
    if (!line) continue;
    const { t, b64 } = JSON.parse(line) as { t: number; b64: string };
    while (resizes.length && resizes[0].t <= t) {
      const r = resizes.shift()!;
      term.resize(r.rows, r.cols);
    }
    clock = start + t * 1000;
    term.write(Buffer.from(b64, 'base64'));
    if (term.synchronizedUpdate) torn++;
    pane.classifyNow(); // as the sweep does once the screen changed (and the guard at any time)
  }
  assert.ok(torn > 0, 'the recording has frames read in part');
  const blocked = published.filter((s) => s.startsWith('blocked'));
  assert.equal(blocked, [
    `blocked ${
      JSON.stringify([
        'Permission required',
        ['1. Allow once', '2. Allow always', '3. Reject'],
        ['→ Edit hello.txt', '1 - Helo, world!', '1 + Hello, world!'],
      ])
    }`,
    blocked[1],
  ], published.join('\n'));
  assert.match(blocked[1], /Shell command/);
});

test('at 28x90 (3 spaces between the last button and the hints) the panel still has its options and selection', () => {
  const dir = join(REPO_ROOT, 'fixtures', 'opencode-90');
  const read = (file: string) => {
    const t = new Terminal(28, 90);
    t.write(new Uint8Array(readFileSync(join(dir, file))));
    assert.match(t.screenText(), /┃ {3}Allow once {3}Allow always {3}Reject {3}ctrl\+f fullscreen/);
    return promptOn(t);
  };
  for (
    const [file, selected] of [['opencode.blocked.v118-90-bash.raw', 0], [
      'opencode.blocked.v118-90-bash-always.raw',
      1,
    ]] as const
  ) {
    const p = read(file);
    assert.is(p.question, 'Permission required', file);
    assert.equal(p.options, ['1. Allow once', '2. Allow always', '3. Reject'], file);
    assert.is(p.selected, selected, file);
    assert.is(p.layout, 'horizontal');
    assert.equal(
      p.details,
      ['# Shell command', '$ touch ran_tests_11.txt && echo tests passed'],
      file,
    );
  }
});

test.run();
