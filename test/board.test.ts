/**
 * The board's pure rendering: fixed session lists -> expected frame lines (order, columns,
 * colours, selection, scrolling, narrow terminals, the answer panel).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ageless, printable, stripSgr } from '../src/cli/printable.ts';
import {
  ANSWER_KEYS,
  type AnswerPanel,
  detailsChanged,
  panelLines,
  panelWarning,
  wrap,
} from '../src/cli/board/answer-panel.ts';
import { detailOf, sortSessions } from '../src/cli/board/rows.ts';
import { renderBoard, WATCH_KEYS } from '../src/cli/board/render.ts';
import { processGone } from '../src/runtime/session-directory.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { DEMO_KEYS } from '../src/cli/demo.ts';

const NOW = 1_800_000_000_000;

function info(
  id: string,
  state: SessionInfo['state'],
  sinceAgoMs: number,
  extra: Partial<SessionInfo> = {},
): SessionInfo {
  return {
    id,
    name: id.replace(/-[0-9a-f]{4}$/, ''),
    agent: 'claude',
    state,
    since: NOW - sinceAgoMs,
    reason: `rule (${state})`,
    by: 'screen',
    pid: 100,
    command: ['claude'],
    foreground: 'claude',
    rows: 32,
    cols: 120,
    startedAt: NOW - 600_000,
    lastOutput: NOW,
    host: 1,
    socket: `/tmp/x/${id}.sock`,
    ...extra,
  };
}

const SESSIONS = [
  info('api-0001', 'working', 3_000, { startedAt: NOW - 900_000 }),
  info('web-0002', 'blocked', 12_000, {
    question: 'Do you want to proceed?',
    startedAt: NOW - 800_000,
  }),
  info('docs-0003', 'idle', 62_000, { startedAt: NOW - 700_000 }),
  info('old-0004', 'exited', 5_000, { exit: { code: 0 }, startedAt: NOW - 1_000_000 }),
  info('db-0005', 'blocked', 40_000, {
    question: 'Do you want to make this edit to schema.sql?',
    startedAt: NOW - 600_000,
  }),
];

test('sortSessions: blocked first (longest waiting on top), then by start, exited last', () => {
  assert.equal(sortSessions(SESSIONS).map((s) => s.id), [
    'db-0005',
    'web-0002',
    'api-0001',
    'docs-0003',
    'old-0004',
  ]);
});

test('renderBoard: a full frame at 24x100 without colours', () => {
  const lines = renderBoard(SESSIONS, {
    now: NOW,
    width: 100,
    height: 12,
    selected: 'web-0002',
    color: false,
  });
  assert.is(lines.length, 12);
  assert.equal(lines.slice(0, 9), [
    ' agentwatch · 5 sessions · 2 blocked · 1 working · 1 idle · 1 exited',
    '',
    '   NAME  AGENT   STATE    FOR     DETAIL',
    '   db    claude  blocked  40s     Do you want to make this edit to schema.sql?',
    ' > web   claude  blocked  12s     Do you want to proceed?',
    '   api   claude  working  3s      working',
    '   docs  claude  idle     1m02s   done 1 m ago',
    '   old   claude  exited   5s      exited with code 0',
    '',
  ]);
  assert.is(
    lines[11],
    ' ↑/↓ select · Enter attach (Ctrl-] detaches) · a/1-9 answer · n new · x clear exited · q quit',
  );
});

test('renderBoard: state colours (blocked red bold, working yellow, idle green, exited grey)', () => {
  const lines = renderBoard(SESSIONS, { now: NOW, width: 100, height: 12 });
  const row = (name: string) => lines.find((l) => stripSgr(l).includes(` ${name} `))!;
  assert.ok(row('db').includes('\x1b[1;31mblocked'), row('db'));
  assert.ok(row('api').includes('\x1b[33mworking'));
  assert.ok(row('docs').includes('\x1b[32midle'));
  assert.ok(row('old').includes('\x1b[90mexited'));
  assert.ok(row('db').includes('\x1b[1mDo you want to make this edit'), 'the question is bold');
  assert.equal(
    lines.map(stripSgr),
    renderBoard(SESSIONS, { now: NOW, width: 100, height: 12, color: false }),
  );
});

test('renderBoard: no line is wider than a narrow terminal; columns drop, text is cut', () => {
  for (const width of [30, 45, 70]) {
    const lines = renderBoard(SESSIONS, { now: NOW, width, height: 12, color: false });
    for (const l of lines) {
      assert.ok([...l].length <= width, `${width}: '${l}' is ${[...l].length} wide`);
    }
  }
  const w70 = renderBoard(SESSIONS, { now: NOW, width: 70, height: 12, color: false });
  assert.is(w70[3], '   db    claude  blocked  40s     Do you want to make this edit to sc…');
  const w45 = renderBoard(SESSIONS, { now: NOW, width: 45, height: 12, color: false });
  assert.is(
    w45[3],
    '   db    blocked  40s     Do you want to mak…',
    'AGENT dropped below 60 cells',
  );
  const w30 = renderBoard(SESSIONS, { now: NOW, width: 30, height: 12, color: false });
  assert.is(w30[3], '   db    blocked  Do you want…', 'FOR dropped below 40 cells');
});

test('renderBoard: long names are cut; an unknown agent shows as -', () => {
  const lines = renderBoard([
    info('a-very-long-session-name-indeed-0001', 'idle', 1000, { agent: '' }),
  ], {
    now: NOW,
    width: 80,
    height: 6,
    color: false,
  });
  assert.is(lines[3], '   a-very-long-session-nam…  -      idle     1s      done 1 s ago');
});

test('renderBoard: a key help too wide for one line takes two, broken between keys', () => {
  const lines = renderBoard(SESSIONS, { now: NOW, width: 80, height: 12, color: false });
  assert.equal(lines.slice(-2), [
    ' ↑/↓ select · Enter attach (Ctrl-] detaches) · a/1-9 answer · n new',
    ' x clear exited · q quit',
  ]);
  assert.is(lines.length, 12);
  const narrow = renderBoard(SESSIONS, { now: NOW, width: 30, height: 12, color: false });
  for (const l of narrow.slice(-2)) assert.ok([...l].length <= 30, l);
});

test('renderBoard: more sessions than rows keeps the selection visible and counts the rest', () => {
  const many = Array.from(
    { length: 20 },
    (_, i) =>
      info(`s${String(i).padStart(2, '0')}-0000`, 'idle', 1000, { startedAt: NOW - 1000 + i }),
  );
  const lines = renderBoard(many, {
    now: NOW,
    width: 60,
    height: 10,
    selected: 's15-0000',
    color: false,
  });
  assert.is(lines.length, 10);
  assert.ok(lines.some((l) => l.startsWith(' > s15 ')), lines.join('\n'));
  assert.ok(lines.some((l) => /… \d+ more \(\d+ above\)/.test(l)), lines.join('\n'));
});

test('renderBoard: status and input lines; an empty board says how to start', () => {
  const lines = renderBoard([], {
    now: NOW,
    width: 80,
    height: 8,
    status: 'cannot start foo',
    input: { label: 'command: ', text: 'claude' },
    color: false,
  });
  assert.is(lines.length, 8);
  assert.match(lines[2], /no sessions yet/);
  assert.is(lines[6], ' cannot start foo');
  assert.is(lines[7], ' command: claude_');
});

test('renderBoard: a blocked session without a readable question still says it waits', () => {
  const lines = renderBoard([info('x-0001', 'blocked', 0)], {
    now: NOW,
    width: 80,
    height: 6,
    color: false,
  });
  assert.match(lines[3], /blocked\s+0s\s+a prompt waits for you/);
});

test('renderBoard: sessions with the same name show their ids', () => {
  const twins = [
    info('node-1a2b', 'idle', 1000, { startedAt: 1 }),
    info('node-3c4d', 'working', 1000, { startedAt: 2 }),
  ];
  const lines = renderBoard(twins, { now: NOW, width: 100, height: 7, color: false });
  assert.match(lines[3], /^ {3}node-1a2b {2}claude/);
  assert.match(lines[4], /^ {3}node-3c4d {2}claude/);
});

test('renderBoard: a shell left in the foreground reads exited, but shows apart from a dead one', () => {
  const shell = info('sh-0001', 'exited', 4_000, {
    agent: '',
    foreground: 'bash',
    exit: null,
    reason: 'the agent ended: the shell (bash) is back in the foreground',
    by: 'foreground',
    startedAt: NOW - 1000,
  });
  const dead = info('gone-0002', 'exited', 2_000, {
    exit: { code: 0 },
    by: 'exit',
    startedAt: NOW - 2000,
  });
  const killed = info('hup-0003', 'exited', 1_000, {
    exit: { code: 0, signal: 1 },
    startedAt: NOW - 500,
  });
  assert.ok(!processGone(shell), 'state exited, exit null: the process lives');
  assert.ok(processGone(dead));
  assert.ok(processGone({ ...shell, by: 'socket' }), 'its control socket closed');
  const lines = renderBoard([dead, killed, shell], {
    now: NOW,
    width: 80,
    height: 9,
    color: false,
  });
  assert.equal(lines.slice(3, 6), [
    '   sh    -       exited   4s      agent ended, shell (bash)',
    '   gone  claude  exited   2s      exited with code 0',
    '   hup   claude  exited   1s      ended by SIGHUP (signal 1)',
  ], 'the live shell first');
});

test('renderBoard: a shell where no agent ran reads shell, a command in it running NAME', () => {
  const plain = { agent: '', exit: null, by: 'foreground' as const, startedAt: NOW - 1000 };
  const sh = info('sh-0001', 'shell', 4_000, { ...plain, foreground: 'bash', reason: 'x' });
  const job = info('job-0002', 'running', 2_000, {
    ...plain,
    foreground: 'sleep',
    reason: 'running sleep',
    startedAt: NOW - 500,
  });
  const lines = renderBoard([job, sh], { now: NOW, width: 80, height: 9, color: false });
  assert.equal(lines.slice(3, 5), [
    '   sh    -      shell    4s      bash, no agent started yet',
    '   job   -      running  2s      sleep',
  ]);
  assert.match(lines[1] + lines[0], /1 running · 1 shell/);
});

test('detailOf: rows speak to the person; rule internals stay in explain', () => {
  const rule = "rule 8 'idle footer' (idle): any[0] matched in below_last_rule";
  const row = (i: SessionInfo) => detailOf(i, NOW);
  assert.is(row(info('a-0001', 'idle', 120_000, { reason: rule })), 'done 2 m ago');
  assert.is(
    row(info('a-0001', 'idle', 0, { reason: 'started', by: 'start' })),
    'started, no task yet',
  );
  // idle since it started, no turn yet (a fresh Claude Code session): ready, not 'done'
  assert.is(
    row(info('a-0001', 'idle', 8_000, { reason: rule, fresh: true })),
    'ready, no task yet',
  );
  assert.is(row(info('a-0001', 'working', 0, { reason: rule })), 'working');
  const acp = { by: 'acp' as const, reason: 'turn ended: cancelled', stopReason: 'cancelled' };
  assert.is(row(info('a-0001', 'idle', 3000, acp)), 'done 3 s ago (cancelled)');
  assert.is(
    row(info('a-0001', 'idle', 3000, { ...acp, stopReason: 'end_turn' })),
    'done 3 s ago',
  );
  assert.is(
    row(info('a-0001', 'working', 0, { reason: rule, activity: 'Running the tests…' })),
    'Running the tests…',
    'what the agent says it does',
  );
  assert.is(
    row(info('a-0001', 'blocked', 0, {
      reason: rule,
      question: 'Do you want to proceed?',
      details: ['Bash command', 'npm test', 'Run the tests'],
    })),
    'Bash: npm test · Do you want to proceed?',
  );
  assert.is(
    row(info('a-0001', 'blocked', 0, { question: 'Allow once?', details: ['→ Edit hello.txt'] })),
    'Edit hello.txt · Allow once?',
  );
  assert.is(row(info('a-0001', 'blocked', 0, { options: ['1. Yes', '2. No'] })), '1. Yes');
  assert.is(row(info('a-0001', 'blocked', 0, {})), 'a prompt waits for you');
  for (const state of ['blocked', 'working', 'idle', 'running', 'shell', 'exited'] as const) {
    assert.not.match(row(info('a-0001', state, 0, { reason: rule })), /rule \d|below_last_rule/);
  }
});

test('renderBoard at 60 columns: a warning and a status message keep their ends', () => {
  const c1 = info('c1-0001', 'idle', 1000, {});
  const panel: AnswerPanel = {
    id: 'c1-0001',
    name: 'c1',
    phase: 'choosing',
    question: 'Do you want to proceed?',
    options: ['1. Yes', '2. No'],
    choice: 0,
  };
  const lines = renderBoard([c1], {
    now: NOW,
    width: 60,
    height: 24,
    color: false,
    answer: panel,
    status: 'cannot answer c1: the prompt changed since it was read, so nothing was sent',
  });
  for (const l of lines) assert.ok([...l].length <= 60, l);
  const text = lines.join(' ').replace(/ +/g, ' ');
  assert.match(text, /c1 is idle now, no longer waiting for this answer: y will be refused/);
  assert.match(text, /so nothing was sent/);
});

test('renderBoard: the answer panel says when what the prompt approves is not all visible', () => {
  const panel: AnswerPanel = {
    id: 'web-0002',
    name: 'web',
    phase: 'choosing',
    question: 'Do you want to proceed?',
    options: ['1. Yes', '2. No'],
    details: ['echo nine &&', 'echo ten'],
    detailsCut: true,
    choice: 0,
  };
  const text = renderBoard(SESSIONS, {
    now: NOW,
    width: 60,
    height: 24,
    color: false,
    answer: panel,
  })
    .join(' ').replace(/ +/g, ' ');
  assert.match(text, /what this prompt approves is not all visible in web's pane: make it taller/);
  assert.match(text, /Answer '1\. Yes'\? y\/N/);
  const whole = renderBoard(SESSIONS, {
    now: NOW,
    width: 60,
    height: 24,
    color: false,
    answer: { ...panel, detailsCut: false },
  }).join('\n');
  assert.not.match(whole, /not all visible/);
});

test('printable: escape sequences and control characters are removed, text stays', () => {
  assert.is(printable('\x1b]0;pwned\x07\x1b[2J\x1b[Hevil'), 'evil', 'OSC title, CSI clear');
  assert.is(printable('a\x9b31mb\x9d0;t\x9cc'), 'abc', '8-bit CSI and OSC');
  assert.is(printable('x\x1bcy\x1b(Bz'), 'xyz', 'RIS, a charset');
  assert.is(printable('p\x1bP1$r\x1b\\q\x1b_apc\x1b\\'), 'pq', 'DCS, APC');
  assert.is(printable('u\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\'), 'ulink', 'a hyperlink');
  assert.is(printable('tab\there\r\nnext\x7f\x00\x07\x85'), 'tab here  next');
  assert.is(printable('osc\x1b]0;never ends'), 'osc');
  assert.is(printable('Allow access to /tmp/é? ✓ ❯ ─'), 'Allow access to /tmp/é? ✓ ❯ ─');
});

test('renderBoard: names, questions, reasons, options and messages print no control bytes', () => {
  const evil = '\x1b]0;pwned\x07\x1b[2J\x1b[H';
  const infos = [
    info('bad-0001', 'blocked', 1000, {
      name: `${evil}bad\r\n`,
      question: `\x1b[31mDelete it?\x1b[0m${evil}`,
      options: ['1. Yes\x1bc', '2. No'],
      details: [`rm -rf ${evil}build`],
    }),
    info('worse-0002', 'idle', 1000, { name: 'worse\x9b2J', reason: `rule${evil}\x07(idle)` }),
    info('twin-0003', 'idle', 1000, { name: 'twin', id: `twin${evil}3` }),
    info('twin-0004', 'idle', 1000, { name: 'twin' }),
  ];
  const panelOf = (phase: AnswerPanel['phase']): AnswerPanel => ({
    id: 'bad-0001',
    name: `${evil}bad`,
    phase,
    question: `\x1b[31mDelete it?\x1b[0m${evil}`,
    options: ['1. Yes\x1bc', '2. No\x07'],
    choice: 0,
  });
  for (const color of [false, true]) {
    for (const answer of [undefined, panelOf('choosing'), panelOf('sending')]) {
      const lines = renderBoard(infos, {
        now: NOW,
        width: 100,
        height: 24,
        color,
        title: `agentwatch${evil}`,
        status: `cannot attach to ${evil}bad: gone\x07`,
        answer,
      });
      for (const l of lines) {
        const rest = color ? stripSgr(l) : l;
        assert.not.match(rest, /[\x00-\x1f\x7f-\x9f]/, JSON.stringify(l));
      }
      const text = lines.map(stripSgr).join('\n');
      assert.match(text, /cannot attach to bad: gone/);
      if (!answer) {
        assert.match(text, / bad +claude +blocked +1s +rm -rf build · Delete it\?/);
        assert.match(text, / worse +claude +idle +1s +done 1 s ago/);
      } else assert.match(text, /── answer bad \(bad-0001\) ─/);
    }
  }
});

test('renderBoard: times are computed when drawn, from since; no age written in a reason shows', () => {
  // A reason as hosts of earlier versions published it, the age of the report then.
  const s = info('hk-0001', 'idle', 0, { reason: 'hook Stop (3.2 s ago)', by: 'report' });
  const at = (now: number) => renderBoard([s], { now, width: 80, height: 6, color: false })[3];
  assert.is(at(NOW), '   hk    claude  idle     0s      done 0 s ago');
  assert.is(at(NOW + 65_000), '   hk    claude  idle     1m05s   done 1 m ago');
  assert.is(at(NOW + 2 * 3600_000), '   hk    claude  idle     2h00m   done 2 h ago');
  assert.is(ageless('quiet (12 s ago) since (0.5s ago)'), 'quiet since');
  assert.is(ageless('no age here (12 lines)'), 'no age here (12 lines)');
});

const OPTIONS = ['1. Yes', "2. Yes, and don't ask again for touch commands", '3. No'];

/** The panel of web-0002's prompt (as in SESSIONS), option `choice` chosen. */
function panel(choice: number, extra: Partial<AnswerPanel> = {}): AnswerPanel {
  return {
    id: 'web-0002',
    name: 'web',
    phase: 'choosing',
    question: 'Do you want to proceed?',
    options: OPTIONS,
    choice,
    ...extra,
  };
}

test('renderBoard: the answer panel at the bottom, the chosen option marked, its own keys', () => {
  const lines = renderBoard(SESSIONS, {
    now: NOW,
    width: 80,
    height: 18,
    selected: 'web-0002',
    answer: panel(1),
    color: false,
  });
  assert.is(lines.length, 18);
  assert.equal(lines.slice(0, 5), [
    ' agentwatch · 5 sessions · 2 blocked · 1 working · 1 idle · 1 exited',
    '',
    '   NAME  AGENT   STATE    FOR     DETAIL',
    '   db    claude  blocked  40s     Do you want to make this edit to schema.sql?',
    ' > web   claude  blocked  12s     Do you want to proceed?',
  ]);
  assert.equal(lines.slice(-8), [
    ' ── answer web (web-0002) ' + '─'.repeat(54),
    ' Do you want to proceed?',
    '     1. Yes',
    "   > 2. Yes, and don't ask again for touch commands",
    '     3. No',
    " Answer '2. Yes, and don't ask again for touch commands'? y/N",
    '',
    ' ' + ANSWER_KEYS,
  ]);
  for (const l of lines) assert.ok([...l].length <= 80, l);
  // with colours: the chosen option is bold, and stripping SGR gives the plain frame
  const coloured = renderBoard(SESSIONS, {
    now: NOW,
    width: 80,
    height: 18,
    selected: 'web-0002',
    answer: panel(1),
  });
  assert.ok(coloured.includes(" \x1b[1m  > 2. Yes, and don't ask again for touch commands\x1b[0m"));
  assert.equal(coloured.map(stripSgr), lines);
});

test('renderBoard: the panel while reading the prompt, while sending, and with a status', () => {
  const view = { now: NOW, width: 80, height: 16, selected: 'web-0002', color: false };
  const reading = renderBoard(SESSIONS, {
    ...view,
    answer: { id: 'web-0002', name: 'web', phase: 'reading', choice: 0 },
  });
  assert.equal(reading.slice(-4), [
    ' ── answer web (web-0002) ' + '─'.repeat(54),
    ' reading the prompt of web…',
    '',
    ' ' + ANSWER_KEYS,
  ]);
  const sending = renderBoard(SESSIONS, {
    ...view,
    answer: panel(2, { phase: 'sending' }),
    status: 'a status',
  });
  assert.equal(sending.slice(-4), [" answering '3. No'…", '', ' a status', ' ' + ANSWER_KEYS]);
  assert.ok(sending.includes('   > 3. No'));
});

test('renderBoard: the panel warns when the session no longer shows that prompt', () => {
  const web = SESSIONS[1];
  assert.is(panelWarning(panel(0), web), undefined);
  assert.is(panelWarning(panel(0), { ...web, options: OPTIONS }), undefined);
  assert.is(panelWarning(panel(0), undefined), 'web is gone');
  assert.is(
    panelWarning(panel(0), { ...web, state: 'working', question: undefined }),
    'web is working now, no longer waiting for this answer',
  );
  assert.is(
    panelWarning(panel(0), { ...web, question: 'Do you want to make this edit?' }),
    'the prompt of web has changed',
  );
  assert.is(
    panelWarning(panel(0), { ...web, options: ['1. Yes', '2. No'] }),
    'the prompt of web has changed',
  );
  const moved = SESSIONS.map((s) => (s.id === 'web-0002' ? { ...s, state: 'idle' as const } : s));
  const lines = renderBoard(moved, {
    now: NOW,
    width: 80,
    height: 18,
    selected: 'web-0002',
    answer: panel(0),
    color: false,
  });
  assert.equal(lines.slice(-4, -2), [
    ' web is idle now, no longer waiting for this answer: y will be refused',
    " Answer '1. Yes'? y/N",
  ]);
});

test('renderBoard: a panel on a small terminal keeps the choice and the confirmation', () => {
  const many = Array.from({ length: 9 }, (_, i) => `${i + 1}. option ${i + 1}`);
  for (const height of [8, 12]) {
    const lines = renderBoard(SESSIONS, {
      now: NOW,
      width: 40,
      height,
      selected: 'web-0002',
      answer: panel(7, { options: many }),
      color: false,
    });
    assert.is(lines.length, height);
    for (const l of lines) assert.ok([...l].length <= 40, `'${l}'`);
    assert.ok(lines.includes('   > 8. option 8'), lines.join('\n'));
    assert.ok(lines.includes(" Answer '8. option 8'? y/N"), lines.join('\n'));
    assert.ok(!lines.includes('     1. option 1'), 'the options before the window are left out');
  }
});

test('wrap: at blanks, a word longer than a line inside; nothing is left out', () => {
  assert.equal(wrap('Yes, and always allow access to /tmp/proj/', 20), [
    'Yes, and always',
    'allow access to',
    '/tmp/proj/',
  ]);
  assert.equal(wrap('rm  /a/very/long/path/name', 10), ['rm', '/a/very/lo', 'ng/path/na', 'me']);
  assert.equal(wrap('', 10), ['']);
  assert.equal(wrap('fits', 4), ['fits']);
});

/** A Bash prompt in a narrow pane: details, a question, long options. */
const BASH = panel(1, {
  options: [
    '1. Yes',
    '2. Yes, and always allow access to /tmp/proj/ from this project',
    '3. No, and tell Claude what to do differently (esc)',
  ],
  details: [
    'Bash command',
    'rm -rf /tmp/proj/build/output/cache && touch done.txt',
    'Clean the build cache',
  ],
});

test('renderBoard: the panel shows the details above the question, long options wrapped', () => {
  const lines = renderBoard([SESSIONS[1]], {
    now: NOW,
    width: 44,
    height: 24,
    selected: 'web-0002',
    answer: BASH,
    color: false,
  });
  assert.equal(lines.slice(-14), [
    ' ── answer web (web-0002) ' + '─'.repeat(18),
    '   Bash command',
    '   rm -rf /tmp/proj/build/output/cache &&',
    '   touch done.txt',
    '   Clean the build cache',
    ' Do you want to proceed?',
    '     1. Yes',
    '   > 2. Yes, and always allow access to',
    '        /tmp/proj/ from this project',
    '     3. No, and tell Claude what to do',
    '        differently (esc)',
    ' Answer with option 2 (marked >)? y/N',
    '',
    ' ' + ANSWER_KEYS,
  ]);
  for (const l of lines) assert.ok([...l].length <= 44, l);
  // No text of the prompt is cut: every word of every option and detail shows.
  const text = lines.join(' ').replace(/\s+/g, ' ');
  for (const t of [...BASH.options!, ...BASH.details!]) assert.ok(text.includes(t), t);
  assert.not.match(lines.slice(-14).join('\n'), /…/, 'nothing cut in the panel');
});

test('renderBoard: a short panel keeps the chosen option whole and says what details it leaves out', () => {
  for (const height of [11, 12, 14, 16]) {
    const lines = renderBoard([SESSIONS[1]], {
      now: NOW,
      width: 44,
      height,
      selected: 'web-0002',
      answer: BASH,
      color: false,
    });
    const frame = lines.join('\n');
    assert.is(lines.length, height);
    assert.ok(
      frame.includes(
        '   > 2. Yes, and always allow access to\n        /tmp/proj/ from this project',
      ),
      frame,
    );
    assert.ok(frame.includes(' Answer with option 2 (marked >)? y/N'), frame);
    assert.ok(frame.includes(' Do you want to proceed?'), frame);
    assert.ok(!/access to …|access to\n(?! {8}\/tmp)/.test(frame), 'never "access to /" cut');
    const shownDetails = lines.filter((l) => /^ {3}(Bash|rm|touch|Clean)/.test(l)).length;
    const more = /… (\d+) more lines? of details/.exec(frame);
    assert.ok(
      shownDetails === 4 || more || shownDetails === 0,
      `details all shown, or the rest counted: ${frame}`,
    );
    if (more) assert.is(shownDetails + Number(more[1]), 4, frame);
  }
  const h14 = renderBoard([SESSIONS[1]], {
    now: NOW,
    width: 44,
    height: 14,
    selected: 'web-0002',
    answer: BASH,
    color: false,
  });
  assert.equal(h14.slice(4, 8), [
    ' ── answer web (web-0002) ' + '─'.repeat(18),
    '   Bash command',
    '   rm -rf /tmp/proj/build/output/cache &&',
    '   … 2 more lines of details',
  ]);
});

test('panel: other details under the same question and options are a changed prompt', () => {
  const web = { ...SESSIONS[1], options: BASH.options, details: BASH.details };
  assert.is(panelWarning(BASH, web), undefined);
  assert.not.ok(detailsChanged(BASH, web));
  assert.not.ok(detailsChanged(BASH, { ...web, details: undefined }), 'not told: not changed');
  const other = { ...web, details: ['Bash command', 'rm -rf /', 'Clean everything'] };
  assert.ok(detailsChanged(BASH, other));
  assert.is(panelWarning(BASH, other), 'the prompt of web now shows other details');
  // y reads it again and shows it (nothing typed): the panel says so, not 'refused'
  const text = panelLines({ ...BASH, phase: 'choosing' }, other, 60, 20, (_c, t) => t).join('\n');
  assert.match(text, /now shows other details: y shows it first/);
  assert.not.match(text, /refused/);
});

test("demo's key help: the watch's keys but n (it starts no session), q ending the demo", () => {
  const demo = String(DEMO_KEYS).split(' · ');
  for (const key of WATCH_KEYS.split(' · ')) {
    if (key.startsWith('n ') || key.startsWith('q ')) continue;
    assert.ok(demo.includes(key), `the demo's help tells '${key}': ${DEMO_KEYS}`);
  }
  assert.ok(demo.includes('q end the demo'));
  assert.not.ok(demo.some((k) => k.startsWith('n ')));
});

test.run();
