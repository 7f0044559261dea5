/**
 * Codex CLI 0.171.0's first start, recorded with `agentwatch record` against a fake Responses
 * API server on 127.0.0.1 (fixtures/codex/marked/trust.*, fixtures/codex/README.md "First
 * start"): its composer drawn while it connects, then the folder trust dialog ("Trust this
 * folder? ..." / `› 1. Trust and continue` / `2. Back to Agent Command Center` / `enter
 * continue · esc back`), answered with Enter; then Codex reports `state=working` by OSC 7501
 * for about 0.5 s with nothing on screen (a start-up task of its own), and one task.
 *
 * The trust dialog is a prompt (blocked, its question and options read, one notice); the
 * start-up spell is no turn (no working, no "done", still "ready, no task yet"); the task after
 * it is a turn (one done notice).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import { readPrompt } from '../src/detect/prompt.ts';
import type { ScreenInput } from '../src/detect/types.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { type Notice, NotifyGate, promptAction } from '../src/runtime/notify-gate.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { readRecording } from '../src/runtime/recording.ts';
import { decide, initialState, type StateRecord } from '../src/runtime/signals.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { REPO_ROOT } from './support/claude-home.ts';

const DIR = join(REPO_ROOT, 'fixtures', 'codex');
const codex = loadBundledManifests().get('codex')!;

function render(file: string, before = ''): ScreenInput {
  const t = new Terminal(32, 120);
  if (before) t.write(new TextEncoder().encode(before));
  t.write(new Uint8Array(readFileSync(join(DIR, file))));
  return t.snapshot();
}

test('the folder trust dialog reads blocked, with its question and both options', () => {
  const s = render('codex.blocked.trust.raw');
  const e = evaluate(s, codex);
  assert.is(e.state, 'blocked', e.reason);
  assert.is(e.rule !== null && codex.rules[e.rule].name, 'folder trust dialog');
  const p = readPrompt(s.rows);
  assert.is(p.question, 'Trust this folder?');
  assert.equal(p.options, ['1. Trust and continue', '2. Back to Agent Command Center']);
  assert.is(p.selected, 0);
  // a state Codex reported before (a task left for a folder not trusted yet) does not hide it
  const after = render('codex.blocked.trust.raw', '\x1b]7501;state=idle:app=codex\x1b\\');
  assert.is(evaluate(after, codex).state, 'blocked');
});

test('the start screen: its own start-up work is idle; while it connects no rule matches', () => {
  const spell = evaluate(render('codex.idle.startup_work.raw'), codex);
  assert.is(spell.state, 'idle', spell.reason);
  assert.is(spell.rule !== null && codex.rules[spell.rule].name, 'start screen: no task asked yet');
  assert.ok(
    render('codex.idle.startup_work.raw').osc.get(7501)?.includes('state=working'),
    'Codex says working meanwhile',
  );
  // connecting: its composer is drawn, no status line under it yet, no OSC 7501: not ready
  const connecting = evaluate(render('codex.idle.connecting.raw'), codex);
  assert.is(connecting.state, 'idle');
  assert.is(connecting.rule, null, connecting.reason);
  // a task submitted leaves its line above the composer: the OSC 7501 working rule decides
  const s = render('codex.idle.startup_work.raw');
  const rows = [...s.rows];
  rows[5] = '› task-question q1';
  assert.is(evaluate({ ...s, rows }, codex).state, 'working');
});

test("the approval dialog's details: not the transcript line above it; its action a shell command", () => {
  // codex.blocked.raw with the blank rows between `• Running ...` and the dialog taken out, as
  // on a screen with more transcript (the tester's: the line was listed above `Environment`)
  const rows = readFileSync(join(DIR, 'codex.blocked.screen.txt'), 'utf8').split('\n');
  const close = [...rows.slice(0, 9), ...rows.slice(18)];
  assert.ok(close.some((r) => r.startsWith('• Running touch ran_tests.txt')));
  for (const screen of [rows, close]) {
    const p = readPrompt(screen);
    assert.is(p.question, 'Would you like to run the following command?');
    assert.equal(p.details, [
      'Environment: local',
      'Reason: Run the test suite',
      '$ touch ran_tests.txt && echo tests passed',
    ]);
    assert.not.ok(p.detailsCut);
    assert.is(promptAction(p.details), 'Shell: touch ran_tests.txt && echo tests passed');
  }
});

/** One published state, as a session publishes it (src/runtime/pty-pane.ts). */
interface Published {
  t: number;
  state: string;
  fresh: boolean;
  question?: string;
}

test('replayed: one notice for the trust dialog, none for the start-up, done after the task', () => {
  const rec = readRecording(join(DIR, 'marked', 'trust'));
  const inputs = readFileSync(join(DIR, 'marked', 'trust.input.jsonl'), 'utf8').trim().split('\n')
    .map((l) => JSON.parse(l) as { t: number; keys: string });
  const task = inputs.find((i) => i.keys.startsWith('task-question'))!.t * 1000;
  const resizes = (rec.meta.resizes ?? []).map((r) => ({ ...r, t: r.t * 1000 }));
  const term = new Terminal(rec.meta.rows, rec.meta.cols);
  const gate = new NotifyGate({ done: true });
  let r: StateRecord = initialState(0);
  const published: Published[] = [];
  const notices: Array<Notice & { t: number }> = [];
  let last = '';
  const step = (now: number) => {
    const screen = term.snapshot();
    r = decide(r, {
      now,
      evaluation: evaluate(screen, codex),
      foreground: 'agent',
      foregroundName: 'codex',
      exit: null,
      report: null,
    });
    const prompt = r.state === 'blocked' ? readPrompt(screen.rows) : undefined;
    const fresh = r.state === 'idle' && !r.worked;
    const key = `${r.state}|${prompt?.question ?? ''}|${fresh}`;
    const typed = inputs.filter((i) => i.t * 1000 <= now).at(-1);
    if (key !== last) {
      last = key;
      published.push({ t: now, state: r.state, fresh, question: prompt?.question });
      const info: SessionInfo = {
        id: 'trust-0001',
        name: 'trust',
        agent: 'codex',
        state: r.state,
        since: r.since,
        reason: r.reason,
        by: r.by,
        pid: 1,
        command: ['codex'],
        foreground: 'codex',
        rows: term.rows,
        cols: term.cols,
        startedAt: 0,
        lastOutput: now,
        host: 1,
        socket: '',
        ...(typed ? { lastInput: typed.t * 1000 } : {}),
        ...(fresh ? { fresh: true } : {}),
        ...(prompt?.options.length ? { question: prompt.question, options: prompt.options } : {}),
      };
      const n = gate.observe(info, now);
      if (n) notices.push({ ...n, t: now });
    }
    for (const n of gate.due(now)) notices.push({ ...n, t: now });
  };
  const end = (rec.meta.exit?.t ?? rec.chunks.at(-1)!.t) * 1000;
  let i = 0;
  for (let now = 0; now <= end; now += 50) {
    while (resizes.length && resizes[0].t <= now) {
      const z = resizes.shift()!;
      term.resize(z.rows, z.cols);
    }
    while (i < rec.chunks.length && rec.chunks[i].t * 1000 <= now) {
      term.write(rec.chunks[i++].bytes);
    }
    step(now);
  }
  const before = published.filter((p) => p.t < task);
  assert.equal(
    before.map((p) => p.state),
    ['idle', 'blocked', 'idle'],
    JSON.stringify(before),
  );
  assert.is(before[1].question, 'Trust this folder?');
  assert.ok(before.every((p) => p.state !== 'idle' || p.fresh), 'ready, no task yet');
  assert.equal(
    published.filter((p) => p.t >= task).map((p) => p.state),
    ['working', 'idle'],
    'the task is a turn',
  );
  assert.equal(notices.map((n) => [n.kind, n.question]), [
    ['blocked', 'Trust this folder?'],
    ['done', ''],
  ]);
  assert.equal(notices[0].options, ['1. Trust and continue', '2. Back to Agent Command Center']);
  assert.ok(notices[1].t > task, 'done only after the task');
});

test.run();
