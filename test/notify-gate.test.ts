import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CONTENT_WAIT_MS,
  FLAP_MAX,
  FLAP_WINDOW_MS,
  HYSTERESIS_MS,
  type Notice,
  NotifyGate,
  promptAction,
  TURN_MS,
} from '../src/runtime/notify-gate.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { fakeInfo } from './support/fake-session.ts';
import type { SessionState } from '../src/detect/types.ts';
import { readPrompt } from '../src/detect/prompt.ts';

const PROCEED = {
  question: 'Do you want to proceed?',
  options: ['1. Yes', '2. Yes, and always allow access to proj/ from this project', '3. No'],
};

/** A session info in `state` at time 0 (the gate's clock is scripted), with `over` on top. */
function info(state: SessionState, over: Partial<SessionInfo> = {}): SessionInfo {
  const base = { name: 'claude', state, since: 0, reason: '', startedAt: 0, lastOutput: 0 };
  return { ...fakeInfo('s-1', '/tmp/x.sock', base), exit: undefined, ...over } as SessionInfo;
}

/** Replays a scripted timeline: [ms, info]; returns every notice with its time. */
function replay(
  gate: NotifyGate,
  steps: Array<[number, SessionInfo]>,
  end = Infinity,
): Array<{ t: number; n: Notice }> {
  const out: Array<{ t: number; n: Notice }> = [];
  const flush = (until: number) => {
    for (let next = gate.nextDue(); next !== null && next <= until; next = gate.nextDue()) {
      for (const n of gate.due(next)) out.push({ t: next, n });
    }
  };
  for (const [t, i] of steps) {
    flush(t);
    const n = gate.observe(i, t);
    if (n) out.push({ t, n });
  }
  flush(end);
  return out;
}

const blocked = (over: Partial<SessionInfo> = {}) => info('blocked', { ...PROCEED, ...over });

test('the five-prompt repro: the same question and options, 45 s apart, five notices', () => {
  const steps: Array<[number, SessionInfo]> = [[0, info('idle')]];
  for (let k = 0; k < 5; k++) {
    const t = 1_000 + k * 45_000;
    steps.push([t, info('working')], [t + 5_000, blocked()], [t + 9_000, info('working')]);
  }
  const notices = replay(new NotifyGate(), steps);
  assert.is(notices.length, 5);
  assert.ok(notices.every(({ n }) => n.kind === 'blocked' && n.question === PROCEED.question));
});

test('five prompts in 62 s, each answered in seconds, each with its command: five notices', () => {
  const steps: Array<[number, SessionInfo]> = [[0, info('idle')], [500, info('working')]];
  for (let k = 0; k < 5; k++) {
    const t = 1_000 + k * 15_000;
    const details = ['Bash command', `touch file${k}.txt`];
    steps.push([t, blocked({ details })], [t + 3_000, info('working')]);
  }
  const notices = replay(new NotifyGate(), steps);
  assert.equal(
    notices.map(({ n }) => n.action),
    [0, 1, 2, 3, 4].map((k) => `Bash: touch file${k}.txt`),
  );
});

test('a flapping screen: the same prompt flickering within the hysteresis is one notice', () => {
  const steps: Array<[number, SessionInfo]> = [[0, info('working')]];
  for (let t = 1_000; t < 61_000; t += 1_000) {
    steps.push([t, blocked()], [t + 300, info('working')]); // back 700 ms later, every second
  }
  const notices = replay(new NotifyGate(), steps);
  assert.is(notices.length, 1);
});

test('a prompt flapping slower than the hysteresis: at most FLAP_MAX notices a minute', () => {
  const gate = new NotifyGate();
  const steps: Array<[number, SessionInfo]> = [[0, info('working')]];
  // back 3 s after it left, for two minutes: 30 episodes of the identical prompt
  for (let t = 1_000; t < 121_000; t += 4_000) {
    steps.push([t, blocked()], [t + 1_000, info('working')]);
  }
  const notices = replay(gate, steps);
  assert.ok(notices.length <= FLAP_MAX * Math.ceil(120_000 / FLAP_WINDOW_MS) + FLAP_MAX);
  assert.ok(notices.length >= FLAP_MAX, `${notices.length}`);
  for (const { t } of notices) {
    const inWindow = notices.filter((o) => o.t <= t && t - o.t < FLAP_WINDOW_MS).length;
    assert.ok(inWindow <= FLAP_MAX, `${inWindow} in a minute`);
  }
  assert.ok(gate.suppressedFlaps > 0);
  // ...and a different prompt in the middle of the flapping is announced all the same
  const g2 = new NotifyGate();
  const mixed = [...steps.slice(0, 41), [200_000, info('working')], [
    201_000,
    blocked({ question: 'Do you want to make this edit to greet.py?' }),
  ]] as Array<[number, SessionInfo]>;
  const n2 = replay(g2, mixed);
  assert.is(n2.at(-1)!.n.question, 'Do you want to make this edit to greet.py?');
});

test('the same prompt answered each time is never held back, however often it comes', () => {
  // the simulated agent at speed 4 asked `rm -f build.log` more than 4 times a minute
  const steps: Array<[number, SessionInfo]> = [[0, info('working')]];
  for (let k = 0; k < 10; k++) {
    const t = 1_000 + k * 5_000;
    steps.push([t, blocked()], [t + 1_500, info('working', { lastInput: t + 1_000 })]);
  }
  const input = (i: SessionInfo, t: number): SessionInfo => ({ ...i, lastInput: t - 4_000 });
  const notices = replay(
    new NotifyGate(),
    steps.map(([t, i]) => [t, i.state === 'blocked' && t > 1_000 ? input(i, t) : i]),
  );
  assert.is(notices.length, 10);
});

test('two different prompts 3 s apart are both announced, and within one blocked spell too', () => {
  const a = blocked({ details: ['Bash command', 'rm -rf build/'] });
  const b = blocked({ details: ['Bash command', 'npm test'] });
  const apart = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, a],
    [2_000, info('working')],
    [4_000, b],
  ]);
  assert.equal(apart.map(({ n }) => n.action), ['Bash: rm -rf build/', 'Bash: npm test']);
  // the next prompt drawn while the state stays blocked (answered between two sweeps)
  const within = replay(new NotifyGate(), [[0, info('working')], [1_000, a], [4_000, b]]);
  assert.is(within.length, 2);
  // the same prompt back after 2.5 s (beyond the hysteresis) is a new episode
  const again = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, a],
    [2_000, info('working')],
    [2_000 + HYSTERESIS_MS + 500, a],
  ]);
  assert.is(again.length, 2);
});

test('a prompt redrawn at another size (rewrapped, its top cut) after a resize is not announced again', () => {
  // Qwen Code 0.24.4 redraws its dialog on every resize: its header line wraps at 90 columns,
  // its top is out of sight at 15 rows (the tester: 120 -> 100 -> 90 -> 120, 6 notices in 9 s)
  const wide = blocked({ details: ['? Shell touch hello.txt (Create an empty hello.txt) ←'] });
  const narrow = blocked({ details: ['? Shell touch hello.txt (Create an empty', 'hello.txt) ←'] });
  const cut = blocked({ details: ['hello.txt) ←'] });
  const at = (i: SessionInfo, resizedAt: number) => ({ ...i, resizedAt });
  const resized = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, wide],
    [4_000, at(narrow, 3_900)],
    [7_000, at(cut, 6_950)],
    [7_100, at(info('working'), 6_950)], // a frame of the redraw reads no dialog
    [7_300, at(wide, 7_200)],
    [10_000, at(narrow, 9_800)],
  ]);
  assert.equal(resized.map(({ t }) => t), [1_000], 'one notice for one prompt');
  // not resized: a prompt that reads differently is another prompt, announced
  const moved = replay(new NotifyGate(), [[0, info('working')], [1_000, wide], [4_000, narrow]]);
  assert.is(moved.length, 2);
  // read long after the resize (a slow --interval, a loaded machine): the same question and
  // options are still that prompt, clipped (Qwen at 40 columns) or cut to its first options
  // (10 rows) too; another question, or other options, is another prompt
  const late = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, wide],
    [4_000 + HYSTERESIS_MS, at(narrow, 3_900)],
    [9_000, at(blocked({ options: ['1. Yes', '2. Yes, and always allow access to…'] }), 6_000)],
  ]);
  assert.is(late.length, 1);
  const other = (over: Partial<SessionInfo>) =>
    replay(new NotifyGate(), [
      [0, info('working')],
      [1_000, wide],
      [4_000 + HYSTERESIS_MS, at(blocked({ ...over, details: narrow.details }), 3_900)],
    ]).length;
  assert.is(other({ question: 'Do you want to make this edit?' }), 2);
  assert.is(other({ options: ['1. Allow once', '2. Deny'] }), 2);
  // announced before its dialog could be read (a slow sweep), the dialog read, then resized
  const blind = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, info('blocked')],
    [3_500, wide],
    [9_000, at(narrow, 6_000)],
  ]);
  assert.equal(blind.map(({ n }) => n.content), [false]);
  // typed into since the prompt appeared, and then it reads another command: announced
  const typed = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, wide],
    [4_000, {
      ...at(blocked({ details: ['? Shell rm hello.txt (Remove hello.txt) ←'] }), 3_900),
      lastInput: 2_000,
    }],
  ]);
  assert.is(typed.length, 2);
  // a resize before the prompt appeared says nothing about it (read past the hysteresis: a
  // dialog read again as it is drawn is the same one)
  const before = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, at(wide, 900)],
    [1_500 + HYSTERESIS_MS, at(narrow, 900)],
  ]);
  assert.is(before.length, 2);
});

test('the answer key pressed as the dialog is redrawn after a resize: the redraw read after it is the same prompt, not a second notice', () => {
  // Seen once in CI (agentwatch-qwen-notify): resized to 120x32, the person's Enter came as Qwen
  // redrew its dialog, and the look after the key read the redraw: the gate took the key for
  // typing since the prompt appeared and announced it again.
  const wide = blocked({ details: ['? Shell touch hello.txt (Create an empty hello.txt) ←'] });
  const narrow = blocked({ details: ['? Shell touch hello.txt (Create an empty', 'hello.txt) ←'] });
  const at = (i: SessionInfo, resizedAt: number, lastInput?: number) => ({
    ...i,
    resizedAt,
    lastInput,
  });
  const steps = (back: SessionInfo): Array<[number, SessionInfo]> => [
    [0, info('working')],
    [1_000, wide],
    [4_000, at(narrow, 3_900)], // resized: held, nobody typed
    // resized back at 6 000; Enter at 6 050, as the dialog is redrawn; the look at 6 100 reads it
    [6_100, at(back, 6_000, 6_050)],
    [6_400, at(info('working'), 6_000, 6_050)], // the answer takes effect
  ];
  assert.equal(replay(new NotifyGate(), steps(wide)).map(({ t }) => t), [1_000]);
  // read long after the resize, and clipped to its first options (a short pane): the same
  assert.equal(
    replay(new NotifyGate(), [
      [0, info('working')],
      [1_000, wide],
      [9_000, at({ ...narrow, options: PROCEED.options.slice(0, 2) }, 3_000, 8_000)],
    ]).length,
    1,
  );
  // the same question and options about another command after a key: a new prompt
  const other = blocked({ details: ['? Shell rm hello.txt (Remove hello.txt) ←'] });
  assert.equal(replay(new NotifyGate(), steps(other)).map(({ t }) => t), [1_000, 6_100]);
});

test('a dialog read while it was drawn, then whole: one notice; another question, or a key since, is another prompt', () => {
  // Claude Code 2.1.332's AskUserQuestion dialog read before its last option was drawn whole
  // (agentwatch-claude-notify, under load): `4. Chat`, then `4. Chat about this`.
  const ask = {
    question: 'Which test framework should I use?',
    details: ['Framework'],
  };
  const options = ['1. pytest The common choice', '2. unittest In the standard library'];
  const part = blocked({ ...ask, options: [...options, '3. Type something.', '4. Chat'] });
  const whole = blocked({
    ...ask,
    options: [...options, '3. Type something.', '4. Chat about this'],
  });
  const first = blocked({ ...ask, options: options.slice(0, 1) });
  const run = (...reads: Array<[number, SessionInfo]>) =>
    replay(new NotifyGate(), [[0, info('working')], ...reads]).map(({ t }) => t);
  assert.equal(run([1_000, part], [1_200, whole]), [1_000]);
  assert.equal(run([1_000, first], [1_100, part], [1_300, whole]), [1_000]);
  // another question with the same options: another prompt
  assert.equal(
    run([1_000, part], [
      1_200,
      blocked({ ...ask, question: 'Which linter?', options: whole.options }),
    ]),
    [1_000, 1_200],
  );
  // someone typed since it appeared (an answer, then the agent asked on): announced
  assert.equal(run([1_000, part], [1_500, { ...whole, lastInput: 1_300 }]), [1_000, 1_500]);
  // long after it appeared: not a dialog being drawn
  assert.equal(run([1_000, part], [1_000 + HYSTERESIS_MS + 100, whole]), [
    1_000,
    1_000 + HYSTERESIS_MS + 100,
  ]);
});

test("opencode's edit prompt: its panel, then its diff a frame later, is one notice; a fragment read as the answer erases it is none", () => {
  // tester 3, opencode 1.18.33: every edit prompt was announced twice 50-150 ms apart, and
  // `answer` (Right, Right, Enter) drew one more notice with only the options, 20 ms before
  // working.
  const panel = {
    question: 'Permission required',
    options: ['1. Allow once', '2. Allow always', '3. Reject'],
  };
  const head = blocked({ ...panel, details: ['→ Edit hello.txt'] });
  const diff = blocked({ ...panel, details: ['→ Edit hello.txt', '1 - hello', '1 + hello world'] });
  const fragment = blocked({ question: '', options: panel.options, details: [] });
  const notices = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, head],
    [1_120, diff],
    [9_000, { ...fragment, lastInput: 8_980 }],
    [9_020, info('working', { lastInput: 8_980 })],
  ]);
  assert.equal(notices.map(({ t }) => t), [1_000]);
  // a fragment with another question, or details, is not a fragment of it
  const other = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, diff],
    [9_000, { ...fragment, question: 'Always allow', lastInput: 8_980 }],
  ]);
  assert.is(other.length, 2);
});

test('the same prompt asked again 1.5 s after its answer is announced, each time', () => {
  // The repro on real Claude Code: `Bash: touch same.txt`, answered 1.5 s after it showed
  // (`answer` notes input), asked again about 1.5 s after the answer; six times.
  const ask = blocked({ details: ['Bash command', 'touch same.txt'] });
  const steps: Array<[number, SessionInfo]> = [[0, info('working')]];
  let t = 1_000;
  for (let k = 0; k < 6; k++) {
    const lastInput = k ? t - 1_500 : undefined; // every info carries the latest input
    steps.push([t, { ...ask, lastInput }], [t + 1_500, info('working', { lastInput: t + 1_500 })]);
    t += 3_000;
  }
  assert.is(replay(new NotifyGate(), steps).length, 6);
  // ...with an idle and a new task between: each episode 1.8 s after the answer before it
  const viaIdle: Array<[number, SessionInfo]> = [[0, info('working')]];
  t = 1_000;
  for (let k = 0; k < 6; k++) {
    const lastInput = k ? t - 1_650 : undefined;
    viaIdle.push(
      [t, { ...ask, lastInput }],
      [t + 1_500, info('working', { lastInput: t + 1_500 })], // answered
      [t + 1_600, info('idle', { lastInput: t + 1_500 })],
      [t + 1_700, info('working', { lastInput: t + 1_650 })], // the next task sent
    );
    t += 3_300;
  }
  assert.is(replay(new NotifyGate(), viaIdle).length, 6);
});

test('the flicker hold: only a redraw with no input and no turn between is held', () => {
  const ask = blocked({ details: ['Bash command', 'touch same.txt'] });
  const run = (between: Array<[number, SessionInfo]>, back: SessionInfo = ask) =>
    replay(new NotifyGate(), [[0, info('working')], [1_000, ask], ...between, [2_800, back]])
      .length;
  // a redraw: working for 300 ms, nobody typed: one episode
  assert.is(run([[2_500, info('working')]]), 1);
  // typed before the prompt appeared does not count: still a redraw
  assert.is(run([[2_500, info('working', { lastInput: 500 })]], { ...ask, lastInput: 500 }), 1);
  // answered (a key, `answer`, the board): the agent asks again
  assert.is(run([[2_500, info('working', { lastInput: 2_400 })]], { ...ask, lastInput: 2_400 }), 2);
  // through idle, nobody typed (a turn ended): a new prompt
  assert.is(run([[2_000, info('idle')], [2_500, info('working')]]), 2);
  // working for TURN_MS or more: the agent ran something, not a redraw
  assert.is(run([[2_800 - TURN_MS, info('working')]]), 2);
  assert.is(run([[2_800 - TURN_MS + 100, info('working')]]), 1);
  // a flicker held, then an answer: the prompt back after that is announced
  const chained = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, ask],
    [2_000, info('working')],
    [2_300, ask], // held: the same episode, which began at 1 000
    [3_000, info('working', { lastInput: 2_900 })],
    [3_300, { ...ask, lastInput: 2_900 }],
  ]);
  assert.equal(chained.map(({ t }) => t), [1_000, 3_300]);
  // announced blind (a hook said blocked, the dialog came late), a flicker, then the dialog:
  // that dialog is the prompt already announced
  const late = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, info('blocked', { by: 'report' })],
    [1_000 + CONTENT_WAIT_MS + 10, info('working')],
    [2_300, ask],
  ]);
  assert.equal(late.map(({ n }) => n.content), [false]);
});

test('the stale question: a report says blocked before the dialog; the notice waits for it', () => {
  // The reply's prose ended with a question; the dialog comes 150 ms after the hook.
  const gate = new NotifyGate();
  const notices = replay(gate, [
    [0, info('working')],
    [1_000, info('blocked', { by: 'report' })], // nothing readable yet
    [
      1_150,
      info('blocked', {
        by: 'report',
        question: 'Which test framework should I use?',
        options: ['1. pytest', '2. unittest', '3. Type something.'],
      }),
    ],
  ]);
  assert.is(notices.length, 1);
  assert.is(notices[0].t, 1_150);
  assert.is(notices[0].n.question, 'Which test framework should I use?');
  assert.ok(notices[0].n.content);
  // The dialog never comes: after CONTENT_WAIT_MS, what is known
  const late = replay(new NotifyGate(), [[0, info('working')], [1_000, info('blocked')]], 5_000);
  assert.is(late.length, 1);
  assert.is(late[0].t, 1_000 + CONTENT_WAIT_MS);
  assert.not.ok(late[0].n.content);
  assert.is(late[0].n.body, 'a prompt is waiting for you');
  // ...and when it comes after all (a slow hook held the agent), it is not announced again;
  // the next, different prompt of the same spell is
  const after = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, info('blocked')],
    [1_000 + CONTENT_WAIT_MS + 500, blocked({ details: ['Bash command', 'ls'] })],
    [5_000, blocked({ details: ['Bash command', 'rm -rf build/'] })],
  ]);
  assert.equal(after.map(({ t, n }) => [t, n.action]), [
    [1_000 + CONTENT_WAIT_MS, ''],
    [5_000, 'Bash: rm -rf build/'],
  ]);
  // The prompt answered before its text came: no notice
  const gone = replay(
    new NotifyGate(),
    [[0, info('working')], [1_000, info('blocked')], [1_100, info('working')]],
    5_000,
  );
  assert.is(gone.length, 0);
  // The previous dialog's text still on screen when the next episode starts (within the
  // hysteresis), then the new dialog: the new one is announced, the old one is not again
  const stale = replay(new NotifyGate(), [
    [0, info('working')],
    [1_000, blocked({ details: ['Bash command', 'ls'] })],
    [2_000, info('working')],
    [2_500, blocked({ details: ['Bash command', 'ls'] })],
    [2_700, blocked({ details: ['Bash command', 'rm -rf build/'] })],
  ]);
  assert.equal(stale.map(({ n }) => n.action), ['Bash: ls', 'Bash: rm -rf build/']);
});

test('done notices: opt-in, one per turn, flicker and flapping held', () => {
  const turn = (t: number): Array<[number, SessionInfo]> => [
    [t, info('working')],
    [t + 10_000, info('idle')],
  ];
  assert.is(replay(new NotifyGate(), [[0, info('idle')], ...turn(1_000)]).length, 0);
  const on = replay(new NotifyGate({ done: true }), [
    [0, info('idle')],
    ...turn(1_000),
    ...turn(30_000),
  ]);
  assert.equal(on.map(({ n }) => n.kind), ['done', 'done']);
  // working for 300 ms after the end (a spinner glyph): flicker
  const flicker = replay(new NotifyGate({ done: true }), [
    [0, info('idle')],
    ...turn(1_000),
    [11_500, info('working')],
    [11_800, info('idle')],
  ]);
  assert.is(flicker.length, 1);
  // a turn that ends right after its prompt was answered (blocked -> working for 0 ms -> idle)
  // is a turn's end, not a flicker (the replayed hooks session showed it)
  const afterPrompt = replay(new NotifyGate({ done: true }), [
    [0, info('idle')],
    ...turn(1_000),
    [30_000, info('working')],
    [30_200, blocked()],
    [40_000, info('working')],
    [40_000, info('idle')],
  ]);
  assert.equal(afterPrompt.map(({ n }) => n.kind), ['done', 'blocked', 'done']);
});

test('done: short turns the person asked for are each announced (typed or sent since the last end)', () => {
  // the tester: task-question p1..p7, 0.3-0.7 s of work each, 10 s apart: only p1 was announced
  const steps: Array<[number, SessionInfo]> = [[0, info('idle')]];
  for (let k = 0; k < 7; k++) {
    const t = 1_000 + k * 10_000;
    steps.push(
      [t + 500, info('working', { lastInput: t })], // typed the task, then Enter
      [t + 1_000, info('idle', { lastInput: t })],
    );
  }
  const notices = replay(new NotifyGate({ done: true }), steps);
  assert.is(notices.length, 7);
  // the same short turns with nobody typing: flicker after the first, as before
  const alone = replay(
    new NotifyGate({ done: true }),
    steps.map(([t, i]) => [t, { ...i, lastInput: undefined }] as [number, SessionInfo]),
  );
  assert.ok(alone.length <= FLAP_MAX, `${alone.length}`);
});

test('done: an agent starting up (working from its start until its first idle) is no turn', () => {
  const starting = info('working', { by: 'start', reason: 'starting: no input box yet' });
  const steps: Array<[number, SessionInfo]> = [
    [0, starting],
    [2_000, info('working', { reason: "rule 6 'starting: Initializing...'" })],
    [6_000, info('idle')], // the composer drawn
    [9_000, info('working')], // the first task
    [20_000, info('idle')],
  ];
  const notices = replay(new NotifyGate({ done: true }), steps);
  assert.equal(notices.map(({ t, n }) => [t, n.kind]), [[20_000, 'done']]);
  // a board that joins while a task runs (working, not by start) still announces its end
  const joined = replay(new NotifyGate({ done: true }), [[0, info('working')], [
    5_000,
    info('idle'),
  ]]);
  assert.is(joined.length, 1);
  // an agent started in a session's shell (`sh -c 'cd DIR && exec qwen'`, or typed at a bash
  // prompt): its start-up is working by a rule, not by 'start'; its first idle is fresh
  const inShell = replay(new NotifyGate({ done: true }), [
    [0, info('idle')],
    [1_000, info('working', { reason: "rule 6 'starting'" })],
    [5_000, info('idle', { fresh: true })],
    [9_000, info('working', { lastInput: 8_900 })],
    [9_500, info('idle', { lastInput: 8_900 })],
  ]);
  assert.equal(inShell.map(({ t }) => t), [9_500]);
});

test('a session first seen is the baseline; exited forgets it; sessions are apart', () => {
  const gate = new NotifyGate();
  assert.is(gate.observe(blocked(), 0), null); // a board opened on a blocked session
  assert.is(gate.observe(blocked({ id: 's-2' }), 0), null);
  gate.observe(info('exited'), 10);
  assert.is(gate.observe(info('working'), 20), null);
  assert.ok(gate.observe(blocked(), 30));
  gate.observe(info('working', { id: 's-2' }), 40);
  assert.ok(gate.observe(blocked({ id: 's-2' }), 50));
});

test('promptAction: what the real dialogs would do, from their details', () => {
  const dialog = (file: string) =>
    readPrompt(readFileSync(new URL(`../fixtures/${file}`, import.meta.url), 'utf8').split('\n'));
  assert.is(
    promptAction(dialog('claude-code/claude.blocked.screen.txt').details),
    'Bash: touch hello.txt',
  );
  assert.is(
    promptAction(dialog('claude-code/claude.blocked.edit.screen.txt').details),
    'Edit: greet.py',
  );
  assert.is(
    promptAction(dialog('codex/codex.blocked.screen.txt').details),
    'Shell: touch ran_tests.txt && echo tests passed',
  );
  assert.is(
    promptAction(dialog('opencode/opencode.blocked.screen.txt').details),
    'Shell: touch ran_tests.txt && echo tests passed',
  );
  assert.is(
    promptAction(dialog('gemini-cli/gemini-cli.blocked.before_deny.screen.txt').details),
    'Shell: touch ran_tests.txt && echo tests passed',
  );
  assert.is(promptAction([]), '');
  // the simulated agent draws the description under the command
  assert.is(
    promptAction(['Bash command', 'rm -f build.log', 'Remove the stale build log']),
    'Bash: rm -f build.log',
  );
});

test.run();
