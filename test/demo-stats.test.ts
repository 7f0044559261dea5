/**
 * src/cli/demo-stats.ts, pure: the demo's figures from scripted truth and board timelines
 * (ms): time in a state, the board's delay per prompt and the prompts it missed, how the
 * notices matched the prompts, and the summary's lines.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatSummary, noticeStats, promptLatencies, timeIn } from '../src/cli/demo-stats.ts';
import { maxDemoSpeed } from '../src/cli/demo.ts';

const truth = [
  { t: 0, state: 'idle' },
  { t: 1000, state: 'working' },
  { t: 2000, state: 'blocked' },
  { t: 3000, state: 'working' },
  { t: 5000, state: 'blocked' },
  { t: 5500, state: 'working' },
  { t: 8000, state: 'blocked' },
];

test('timeIn: each spell up to the next change, the last up to the end', () => {
  assert.is(timeIn(truth, 'blocked', 9000), 1000 + 500 + 1000);
  assert.is(timeIn(truth, 'working', 9000), 1000 + 2000 + 2500);
  assert.is(timeIn([], 'idle', 9000), 0);
});

test('promptLatencies: the first blocked of each board spell within the prompt (plus slack)', () => {
  const board = [
    { t: 0, state: 'idle' },
    { t: 2300, state: 'blocked' }, // prompt 1, 300 ms late
    { t: 2400, state: 'blocked' }, // the same spell: not counted again
    { t: 3100, state: 'working' },
    { t: 5600, state: 'blocked' }, // prompt 2 answered at 5500: only within 200 ms slack
    { t: 5700, state: 'working' },
  ];
  assert.equal(promptLatencies(truth, board, 9000, 200), { latenciesMs: [300, 600], missed: 1 });
  assert.equal(promptLatencies(truth, board, 9000, 0), { latenciesMs: [300], missed: 2 });
});

test('noticeStats: announced, right question, duplicates and stray notices', () => {
  const q = 'Do you want to proceed?';
  const s = noticeStats(
    truth,
    [
      { t: 2100, question: q },
      { t: 2200, question: q }, // a duplicate of prompt 1
      { t: 5550, question: 'Other?' }, // prompt 2, within the 100 ms tolerance
      { t: 7000, question: q }, // no prompt up
    ],
    q,
    9000,
    100,
  );
  assert.equal(s, { sent: 4, announced: 2, rightQuestion: 3, duplicates: 1, stray: 1 });
});

test('at a high --speed: a notice and a board episode go to their own prompt, not the one just answered', () => {
  // Prompts of 150 ms with 100 ms of work between them (--speed 20): each notice and each
  // board episode comes about 100 ms after its prompt showed, within the 800 ms tolerance of
  // the prompt before (which took them all: "5/6 announced, 1 duplicate").
  const fast = [
    { t: 0, state: 'working' },
    { t: 1000, state: 'blocked' },
    { t: 1150, state: 'working' },
    { t: 1250, state: 'blocked' },
    { t: 1400, state: 'working' },
    { t: 3000, state: 'blocked' },
    { t: 3150, state: 'working' },
  ];
  const q = 'Do you want to proceed?';
  const notices = [1100, 1350, 3100].map((t) => ({ t, question: q }));
  assert.equal(noticeStats(fast, notices, q, 5000, 800), {
    sent: 3,
    announced: 3,
    rightQuestion: 3,
    duplicates: 0,
    stray: 0,
  });
  // A late notice of the first prompt while the second shows, then the second's own.
  const late = [{ t: 1200, question: q }, { t: 1300, question: q }, { t: 3100, question: q }];
  assert.equal(noticeStats(fast, late, q, 5000, 800).duplicates, 0);
  const board = [
    { t: 0, state: 'working' },
    { t: 1100, state: 'blocked' },
    { t: 1200, state: 'working' },
    { t: 1300, state: 'blocked' },
    { t: 1500, state: 'working' },
    { t: 3100, state: 'blocked' },
    { t: 3200, state: 'working' },
  ];
  assert.equal(promptLatencies(fast, board, 5000, 800), {
    latenciesMs: [100, 50, 100],
    missed: 0,
  });
  // The sweep never saw the work between the first two: the board said blocked throughout.
  const merged = [
    { t: 0, state: 'working' },
    { t: 1100, state: 'blocked' },
    { t: 1500, state: 'working' },
    { t: 3100, state: 'blocked' },
    { t: 3200, state: 'working' },
  ];
  assert.equal(promptLatencies(fast, merged, 5000, 800), {
    latenciesMs: [100, 0, 100],
    missed: 0,
  });
  // A prompt the board never showed is missed, whatever came after it.
  const none = [{ t: 0, state: 'working' }, { t: 3100, state: 'blocked' }];
  assert.equal(promptLatencies(fast, none, 5000, 800), { latenciesMs: [100], missed: 2 });
});

test('formatSummary: one line per session with its figures', () => {
  const out = formatSummary([{
    name: 'backend',
    transitions: 7,
    promptsShown: 3,
    promptsAnswered: 2,
    blockedBoardMs: 2400,
    blockedTrueMs: 2500,
    latenciesMs: [300, 600],
    missed: 1,
    notices: { sent: 4, announced: 2, rightQuestion: 3, duplicates: 1, stray: 1 },
  }], 60_000);
  assert.is(
    out,
    'agentwatch demo: 1 simulated session for 60.0 s\n' +
      '  backend   7 transitions · 2/3 prompts answered · blocked 2.4 s on the board, 2.5 s in ' +
      'truth · board noticed 2/3 prompts, median 0.5 s after they appeared · 4 notices ' +
      "(2/3 prompts announced, 3 with the dialog's question, 1 duplicate, 1 stray)\n",
  );
});

test('maxDemoSpeed: the shortest simulated prompt lasts twice what the sweep takes to look', () => {
  assert.is(maxDemoSpeed(700, true), 12); // 3000 ms / (2 x 125 ms)
  assert.is(maxDemoSpeed(700, false), 2.1); // 3000 ms / (2 x 700 ms)
  assert.is(maxDemoSpeed(50, false), 30);
});

test.run();
