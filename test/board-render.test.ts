/**
 * The board's cost-saving pieces, pure: each session's texts made printable once per change
 * of them (PrintableInfos: same frame as making them printable every time), a hundred
 * sessions in a small terminal (only the rows that fit, the rest counted), and the status
 * line's notification failures taken from the frame's infos.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  missingNotice,
  notifyStatus,
  PrintableInfos,
  renderBoard,
  STATUS_LINES,
} from '../src/cli/board/render.ts';
import { NOTIFY_SEND_MISSING } from '../src/runtime/notify.ts';
import { cells, fit } from '../src/cli/format.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { detailOf, inBoardOrder, sortSessions } from '../src/cli/board/rows.ts';
import { readFileSync } from 'node:fs';
import { readPrompt } from '../src/detect/prompt.ts';
import { promptAction } from '../src/runtime/notify-gate.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { fakeInfo } from './support/fake-session.ts';

const NOW = 1_800_000_000_000;

function info(id: string, extra: Partial<SessionInfo> = {}): SessionInfo {
  return fakeInfo(id, `/tmp/x/${id}.sock`, {
    since: NOW - 5000,
    startedAt: NOW - 60_000,
    lastOutput: NOW,
    ...extra,
  });
}

const VIEW = { now: NOW, width: 100, height: 24, color: false };

test('PrintableInfos: a new info with the same texts keeps them; changed texts are made printable again', () => {
  const p = new PrintableInfos();
  const first = info('a-0001', {
    state: 'working',
    name: 'a\x1b]0;pwned\x07',
    activity: 'Reading\x1b[2J files',
  });
  const [c1] = p.of([first]);
  assert.is(c1.name, 'a');
  assert.is(c1.activity, 'Reading files');
  assert.equal(p.of([first])[0], c1, 'the same info: the same printable texts');
  const plain = info('b-0002', { activity: 'Reading files' });
  assert.is(p.of([plain])[0], plain, 'an info that needs no change is shown as it is');

  // The host builds a new info every frame: other times, same texts.
  const again = { ...first, since: NOW - 1000, lastOutput: NOW + 5 };
  const [c2] = p.of([again]);
  assert.is(c2.since, NOW - 1000, 'its own times');
  assert.is(c2.lastOutput, NOW + 5);
  assert.is(c2.activity, 'Reading files');

  // A changed text (the spinner's words), a question and options appear.
  const changed = {
    ...again,
    state: 'blocked' as const,
    activity: undefined,
    question: 'Run\x07 rm?',
    options: ['1. Yes\x1b[31m', '2. No'],
  };
  const [c3] = p.of([changed]);
  assert.is(c3.activity, undefined);
  assert.is(c3.question, 'Run rm?');
  assert.equal(c3.options, ['1. Yes', '2. No']);
  // Options with the same items in a new array are the same texts.
  const [c4] = p.of([{ ...changed, options: ['1. Yes\x1b[31m', '2. No'] }]);
  assert.equal(c4.options, c3.options);
  const [c5] = p.of([{ ...changed, options: ['1. Yes\x1b[31m', '2. Nope'] }]);
  assert.equal(c5.options, ['1. Yes', '2. Nope']);
});

test('renderBoard with PrintableInfos: the same frames as making every text printable each time', () => {
  const p = new PrintableInfos();
  const frames = [
    [info('a-0001', { name: 'x\x1b[2Jy', state: 'working', activity: 'Thinking\x9b1m…' })],
    [
      info('a-0001', { name: 'x\x1b[2Jy', state: 'working', activity: 'Thinking\x9b1m… 2s' }),
      info('b-0002', { state: 'blocked', question: 'Edit?', details: ['Edit\x1b]8;;x\x07 f'] }),
    ],
    [info('b-0002', { state: 'idle', reason: 'hook Stop (3.2 s ago)' })],
  ];
  for (const infos of frames) {
    assert.equal(renderBoard(infos, VIEW, p), renderBoard(infos, VIEW));
  }
});

test('renderBoard: a hundred sessions in 24 rows show the rows that fit and count the others', () => {
  const infos = Array.from({ length: 100 }, (_, i) =>
    info(`s${String(i).padStart(3, '0')}-0000`, {
      state: i % 10 === 0 ? 'blocked' : 'working',
      since: NOW - 1000 * (i + 1),
      startedAt: NOW - 60_000 + i,
      activity: `task ${i}`,
      question: i % 10 === 0 ? `question ${i}?` : undefined,
    }));
  const p = new PrintableInfos();
  const lines = renderBoard(infos, { ...VIEW, selected: 's050-0000' }, p);
  assert.is(lines.length, 24);
  const rows = lines.filter((l) => /^ ( {2}|> )s\d{3}-/.test(l));
  assert.ok(rows.length >= 10 && rows.length < 24, `${rows.length} rows`);
  assert.ok(rows.some((l) => l.startsWith(' > s050')), 'the selected one is visible');
  const more = lines.find((l) => /… \d+ more \(\d+ above\)/.test(l));
  assert.ok(more, 'the others counted');
  const [, hidden] = /… (\d+) more/.exec(more!)!;
  assert.is(Number(hidden) + rows.length, 100);
  assert.match(lines[0], /100 sessions · 10 blocked · 90 working/);
});

test('renderBoard: a tiny terminal shows session rows before the key help and the blank lines', () => {
  const infos = [
    info('api-0001', { name: 'api', state: 'blocked', question: 'Do you want to proceed?' }),
    info('web-0002', { name: 'web', state: 'working' }),
  ];
  const row = /^ {3}api +blocked +5s +Do you/;
  const status = 'rules updated: claude 2026.12.08 (catalog)';
  // 40x6 with a status of two lines: the help shrinks to one line, the blank goes.
  const six = renderBoard(infos, { ...VIEW, width: 40, height: 6, status });
  assert.is(six.length, 6);
  assert.ok(six.some((l) => row.test(l)), six.join('\n'));
  assert.match(six[0], /^ agentwatch · 2 sessions/);
  assert.match(six.join('\n'), /rules updated/);
  assert.ok(six.every((l) => [...l].length <= 40));
  // 40x3: the title and both rows; no status, no help, no table header
  const three = renderBoard(infos, { ...VIEW, width: 40, height: 3, status: 'a status' });
  assert.is(three.length, 3);
  assert.match(three[1], row);
  assert.match(three[2], /^ {3}web +working/);
  // 40x3 with one session: the title, its row, the status
  const one = renderBoard(infos.slice(0, 1), { ...VIEW, width: 40, height: 3, status: 'a status' });
  assert.match(one[1], row);
  assert.is(one[2], ' a status');
  // 40x3 with one session, without a status: the title, its row, the help's first line
  const bare = renderBoard(infos.slice(0, 1), { ...VIEW, width: 40, height: 3 });
  assert.match(bare[1], row);
  assert.match(bare[2], /^ ↑\/↓ select/);
  // typing a command at 40x3: the input line stays
  const typing = renderBoard(infos, {
    ...VIEW,
    width: 40,
    height: 3,
    status: 'x',
    input: { label: 'command: ', text: 'claude' },
  });
  assert.match(typing[1], row);
  assert.is(typing[2], ' command: claude_');
  // an empty board at 40x3 still says how to start
  assert.match(renderBoard([], { ...VIEW, width: 40, height: 3, status })[1], /no sessions yet/);
  // room enough: the layout as ever (title, blank, header, rows, help on two lines)
  const roomy = renderBoard(infos, { ...VIEW, width: 80, height: 12 });
  assert.is(roomy[1], '');
  assert.match(roomy[2], /^ {3}NAME/);
  assert.match(roomy[3], /^ {3}api +claude +blocked +5s +Do you/);
  assert.match(roomy[10], /^ ↑\/↓ select · Enter attach/);
  assert.match(roomy[11], /q quit$/);
});

test('renderBoard: a short terminal keeps the blocked session and "… N more" in sight', () => {
  // The tester's board: six sessions, one blocked, the selection on an idle one further down.
  const infos = [
    info('bd1-0001', { name: 'bd1', state: 'blocked', question: 'Do you want to proceed?' }),
    ...['a', 'b', 'c', 'd', 'e'].map((n, i) =>
      info(`${n}-000${i + 2}`, { name: n, state: 'idle', startedAt: NOW - 60_000 + i })
    ),
  ];
  const status = 'bd1: refused: bd1 is not waiting for an answer (it is idle)';
  for (const [width, height] of [[60, 7], [60, 5], [200, 10], [40, 4]]) {
    const frame = renderBoard(infos, { ...VIEW, width, height, selected: 'e-0006', status });
    const at = `${width}x${height}:\n${frame.join('\n')}`;
    assert.is(frame.length, height, at);
    assert.ok(frame.some((l) => /^ {3}bd1 .*blocked/.test(l)), `the blocked row, ${at}`);
    assert.ok(frame.some((l) => /^ > e /.test(l)), `the selected row, ${at}`);
    const more = frame.find((l) => /… \d+ more/.test(l));
    assert.ok(more, `the hidden rows counted, ${at}`);
    const shown = frame.filter((l) => /^ ( {2}|> )(bd1|[a-e]) /.test(l)).length;
    assert.is(Number(/… (\d+) more/.exec(more!)![1]) + shown, infos.length, at);
  }
  // Selected on the blocked row: the rows from the top, the rest counted below.
  const top = renderBoard(infos, { ...VIEW, width: 60, height: 5, selected: 'bd1-0001' });
  assert.ok(top.some((l) => /^ > bd1 /.test(l)), top.join('\n'));
  assert.ok(top.some((l) => /… 4 more \(0 above\)/.test(l)), top.join('\n'));
  // Two blocked, room for one beside the selection: the hidden one is counted as blocked.
  const two = [infos[0], info('bd2-0007', { name: 'bd2', state: 'blocked' }), ...infos.slice(1)];
  const f = renderBoard(two, { ...VIEW, width: 60, height: 5, selected: 'e-0006' });
  assert.ok(f.some((l) => /… 5 more \(\d+ above, 1 blocked\)/.test(l)), f.join('\n'));
});

test('renderBoard: a name with double-width characters keeps the columns in line (cells, not code points)', () => {
  const frame = renderBoard(
    [
      info('w-0001', { name: 'ünï 名前 🎉', state: 'idle' }),
      info('p-0002', { name: 'plain', state: 'idle' }),
    ],
    VIEW,
  );
  const rows = frame.filter((l) => /done 5 s ago/.test(l));
  assert.is(rows.length, 2, frame.join('\n'));
  const stateCell = (l: string) => cells(l.slice(0, l.search(/\bidle\b/)));
  assert.is(stateCell(rows[0]), stateCell(rows[1]), rows.join('\n'));
  assert.is(cells('名前🎉'), 6);
  assert.is(fit('名前名前', 5), '名前…');
  assert.ok(frame.every((l) => cells(l) <= VIEW.width), 'no line wider than the terminal');
});

test('notifyStatus: this process first, then each session host once per channel', () => {
  assert.is(notifyStatus({}, [info('a-0001')]), undefined);
  assert.is(
    notifyStatus({ desktop: 'notify-send missing' }, [
      info('a-0001', { name: 'api', notify: { desktop: 'other', push: 'HTTP 500' } }),
      info('b-0002', { name: 'web', notify: { push: 'HTTP 502' } }),
    ]),
    'notify failed: desktop (notify-send missing), push (api: HTTP 500)',
  );
});

test('notifyStatus leaves out a missing notify-send; missingNotice says it, with the ways out', () => {
  const api = info('a-0001', { name: 'api', notify: { desktop: NOTIFY_SEND_MISSING } });
  assert.is(notifyStatus({ desktop: NOTIFY_SEND_MISSING }, [api]), undefined);
  assert.is(
    notifyStatus({}, [api, info('b-0002', { name: 'web', notify: { push: 'HTTP 502' } })]),
    'notify failed: push (web: HTTP 502)',
  );
  assert.is(missingNotice({}, [info('b-0002')]), undefined);
  const said = missingNotice({}, [api])!;
  assert.is(said, missingNotice({ desktop: NOTIFY_SEND_MISSING }, []));
  assert.match(said, /^desktop notices are off: notify-send is not installed \(not on PATH\); /);
  assert.match(said, /--no-desktop, or desktop = false in \[notify\] of config\.toml$/);
});

test("the person's message wraps whole at 80 columns; the board's notice gets a line of its own, and goes first", () => {
  const message = "b1 is blocked, but its pane (60x12) is too small to show the dialog's options " +
    '(its screen ends with "⠏ Waiting for user confirmation..."); nothing was typed: make the ' +
    'pane larger (32 rows x 120 columns is enough; the agent draws its dialog again), then answer';
  const notice = 'notify failed: push (api: http://127.0.0.1:9/hook: ECONNREFUSED)';
  const view = { ...VIEW, width: 80, status: message, notice };
  const frame = renderBoard([info('b1-0001', { name: 'b1', state: 'blocked' })], view);
  const at = frame.findIndex((l) => l.startsWith(' b1 is blocked'));
  assert.ok(at > 0, frame.join('\n'));
  const lines = frame.slice(at, at + STATUS_LINES).filter((l) => !l.includes('notify failed'));
  assert.is(lines.map((l) => l.trim()).join(' '), message, frame.join('\n'));
  assert.ok(frame.some((l) => l.trim() === notice), frame.join('\n'));
  assert.ok(frame.every((l) => cells(l) <= 80));
  // a short terminal: the notice goes, the message stays whole
  const short = renderBoard([info('b1-0001', { name: 'b1', state: 'blocked' })], {
    ...view,
    height: 10,
  });
  assert.not.ok(short.some((l) => l.includes('notify failed')), short.join('\n'));
  assert.ok(short.join(' ').replace(/ +/g, ' ').includes('then answer'), short.join('\n'));
});

test('sortSessions: infos in the board order already come back as they are, others sorted', () => {
  const infos = [
    info('w-0003', { state: 'working', startedAt: NOW - 3 }),
    info('b-0001', { state: 'blocked', since: NOW - 10 }),
    info('x-0004', { state: 'exited', exit: { code: 0 } }),
    info('b-0002', { state: 'blocked', since: NOW - 20 }),
    info('i-0005', { state: 'idle', startedAt: NOW - 9 }),
  ];
  const sorted = sortSessions(infos);
  assert.equal(sorted.map((i) => i.id), ['b-0002', 'b-0001', 'i-0005', 'w-0003', 'x-0004']);
  assert.not.ok(inBoardOrder(infos));
  assert.ok(inBoardOrder(sorted));
  const again = sortSessions(sorted);
  assert.equal(again, sorted);
  assert.is.not(again, sorted, 'a copy');
  assert.ok(inBoardOrder([]));
});

test("a trust dialog's row shows its question, not the paragraph explaining it (Gemini CLI 0.61, Qwen Code 0.24)", () => {
  // tester7: Gemini's row read "Trusting a folder allows Gemini CLI to load its local
  // configurations, including cus…", its question never visible.
  for (
    const [file, question] of [
      ['gemini-cli/gemini-cli.blocked.trust.raw', 'Do you trust the files in this folder?'],
      ['qwen-code/qwen-code.blocked.trust.raw', 'Do you trust this folder?'],
    ]
  ) {
    const t = new Terminal(32, 120);
    t.write(new Uint8Array(readFileSync(new URL(`../fixtures/${file}`, import.meta.url))));
    const rows = t.snapshot().rows;
    const p = readPrompt(rows, rows.map((_, y) => t.rowBackgrounds(y)));
    assert.is(p.question, question, file);
    assert.match(p.details[0], /^Trusting a folder allows/, file);
    assert.is(promptAction(p.details), '', `${file}: a paragraph names no action`);
    const s = info('g1-0001', {
      name: 'g1',
      agent: 'gemini',
      state: 'blocked',
      question: p.question,
      options: p.options,
      details: p.details,
    });
    assert.is(detailOf(s, NOW), question, file);
    const row = renderBoard([s], { ...VIEW, width: 80 }).find((l) => l.includes('g1'));
    assert.ok(row?.includes(question), `${file}: ${row}`);
  }
  // An action line is still said first: Claude Code's Bash dialog.
  assert.is(
    detailOf(
      info('c1-0001', {
        state: 'blocked',
        question: 'Do you want to proceed?',
        details: ['Bash command', 'Create empty hello.txt file', 'touch hello.txt'],
      }),
      NOW,
    ),
    'Bash: touch hello.txt · Do you want to proceed?',
  );
});

test.run();
