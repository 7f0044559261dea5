/**
 * The board's rendering, pure: a list of sessions, the time and the terminal's size in, the
 * frame's lines out (exactly `height` lines, each at most `width` cells, with SGR colours
 * unless `color` is false). `watch` and `demo` paint what this returns; tests compare it.
 *
 * Layout (one row per session, blocked first):
 * ```
 *  agentwatch · 3 sessions · 1 blocked · 1 working · 1 idle
 *
 *    NAME       AGENT    STATE    FOR     DETAIL
 *  > backend    claude   blocked  12s     Do you want to proceed?
 *    frontend   claude   working  3s      rule 3 (working) matched ...
 *
 *  ↑/↓ select · Enter attach (Ctrl-] detaches) · a/1-9 answer · n new · x clear exited · q quit
 * ```
 * With an {@link AnswerPanel} (the `a` key on a blocked session), the panel takes the bottom
 * lines above the status line, and the key help becomes the panel's keys:
 * ```
 *  ── answer backend (backend-1a2b) ─────────────────
 *  Do you want to proceed?
 *    > 1. Yes
 *      2. No
 *  Answer '1. Yes'? y/N
 *
 *  ↑/↓ or 1-9 choose · y answer · n/Esc cancel
 * ```
 * Widths count code points as cells (names and questions of the agents seen are narrow text);
 * a narrow terminal drops the AGENT, then the FOR column, then cuts the rest with `…`.
 */
import type { SessionInfo } from '../runtime/protocol.ts';
import { promptAction } from '../runtime/notify-gate.ts';
import { SESSION_STATES, type SessionState } from '../detect/types.ts';
import { duration, fit } from './format.ts';

/** What the board shows besides the sessions. */
export interface BoardView {
  /** Current time, ms since the epoch (time in state = now - since). */
  now: number;
  /** Terminal size in cells. */
  width: number;
  height: number;
  /** Id of the selected session (its row is marked), if any. */
  selected?: string;
  /** First words of the title line (default 'agentwatch'). */
  title?: string;
  /** A message line above the key help (errors, confirmations, the demo's countdown). */
  status?: string;
  /** When set, the bottom line is an input prompt: `label` then `text` and a cursor block. */
  input?: { label: string; text: string };
  /** Key help line (default: the watch keys). */
  keys?: string;
  /** SGR colours (default true). */
  color?: boolean;
  /** The confirmation panel of an answer, when one is open (replaces the key help). */
  answer?: AnswerPanel;
}

/**
 * The confirmation panel for answering a blocked session's prompt: the prompt as read with the
 * `prompt` op (the one `y` confirms, sent as the answer's `expect`) and the option chosen.
 */
export interface AnswerPanel {
  /** The session's id (to compare the prompt with the session's latest info) and name. */
  id: string;
  name: string;
  /** `reading`: the prompt is being read; `choosing`: waits for y/n; `sending`: answer sent. */
  phase: 'reading' | 'choosing' | 'sending';
  /** The prompt's question ('' when none was read; undefined while reading). */
  question?: string;
  /** The prompt's numbered options ('1. Yes', ...); undefined while reading. */
  options?: string[];
  /** What the prompt is about (the command, the file, the reason), as read with it. */
  details?: string[];
  /** True when what the prompt approves is not all visible in the session's pane. */
  detailsCut?: boolean;
  /** Index into `options` of the chosen one. */
  choice: number;
}

/** The key help while an answer panel is open. */
export const ANSWER_KEYS = '↑/↓ or 1-9 choose · y answer · n/Esc cancel';

/** The default key help. */
export const WATCH_KEYS =
  '↑/↓ select · Enter attach (Ctrl-] detaches) · a/1-9 answer · n new · x clear exited · q quit';

/** The board's keys, for `watch --help`. */
export const BOARD_HELP = [
  'keys on the board:',
  '  ↑/↓, k/j       select a session',
  '  Enter          attach to it (its screen, your keys go to it); Ctrl-] detaches',
  '  a, 1-9         answer its prompt: a opens the panel, a digit opens it with that option',
  '                 (in the panel: ↑/↓ or 1-9 choose, y answers, n/Esc cancels)',
  '  n              start a new session (a command line)',
  '  x              clear the rows of sessions whose process is gone',
  '  q, Ctrl-C      quit (asks first when sessions started here would end)',
].join('\n');

/**
 * The key help in lines of at most `width` cells: broken between its ` · ` items onto a
 * second line when it is too wide for one (a key cut off the help is a key nobody finds),
 * the second line cut when even that is too narrow.
 */
function keyLines(keys: string, width: number): string[] {
  if ([...keys].length <= width) return [keys];
  const items = keys.split(' · ');
  let first = items[0];
  let i = 1;
  while (i < items.length && [...`${first} · ${items[i]}`].length <= width) {
    first += ` · ${items[i++]}`;
  }
  const rest = items.slice(i).join(' · ');
  return rest ? [fit(first, width), fit(rest, width)] : [fit(first, width)];
}

const STATE_ORDER: Record<SessionState, number> = {
  blocked: 0,
  working: 1,
  idle: 1,
  running: 1,
  shell: 1,
  exited: 2,
};

/**
 * `by` of the info the board makes up for a session hosted elsewhere whose control socket
 * closed without its exit being told: its host is gone, and the process with it.
 */
export const SOCKET_CLOSED_BY = 'socket';

/**
 * Whether `info`'s process is gone: its PTY child ended (`exit` set), or its control socket
 * closed. Not the same as the `exited` state, which only means that no agent is in the
 * foreground: a shell left after the agent (`run -- bash`, `watch -- bash`) is alive, can be
 * attached to, and ends with the watch that hosts it.
 */
export function processGone(info: SessionInfo): boolean {
  return info.exit != null || info.by === SOCKET_CLOSED_BY;
}

/**
 * SGR per state: blocked red bold, working yellow, idle green, running cyan, shell dim,
 * exited grey.
 */
export const STATE_SGR: Record<SessionState, string> = {
  blocked: '1;31',
  working: '33',
  idle: '32',
  running: '36',
  shell: '2',
  exited: '90',
};

/**
 * The board's order: blocked first (the longest waiting on top), then working and idle in
 * the order they started (rows must not jump about as states change), exited last (live
 * shells before the processes that are gone).
 */
export function sortSessions(infos: readonly SessionInfo[]): SessionInfo[] {
  const rank = (i: SessionInfo) => STATE_ORDER[i.state] + (processGone(i) ? 1 : 0);
  return [...infos].sort((a, b) => {
    const o = rank(a) - rank(b);
    if (o) return o;
    if (a.state === 'blocked') return a.since - b.since || a.id.localeCompare(b.id);
    return a.startedAt - b.startedAt || a.id.localeCompare(b.id);
  });
}

/**
 * Escape sequences a terminal would act on: CSI (7- and 8-bit), OSC (a title, a hyperlink, a
 * clipboard write; up to BEL or ST, or the end of the text), DCS/SOS/PM/APC strings, and
 * other ESC sequences (RIS `ESC c`, charsets, keypad modes).
 */
const ESCAPE_SEQUENCES =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;

/**
 * `text` as safe to print on the person's terminal: escape sequences removed, tabs and line
 * breaks made spaces, every other control character (C0, DEL, C1) removed. Session names,
 * questions, options, details and reasons come from sessions (a name can be anything a
 * `--name` or a command line said): printed raw, one cleared the board and set the title.
 */
export function printable(text: string): string {
  return String(text).replace(ESCAPE_SEQUENCES, '').replace(/[\t\n\r]/g, ' ').replace(
    /[\x00-\x1f\x7f-\x9f]/g,
    '',
  );
}

/**
 * `text` with each line made {@link printable} and its line breaks kept: for multi-line text
 * that came from a session (an error quoting a prompt, `explain`'s screen and rules).
 */
export function printableLines(text: string): string {
  return String(text).split('\n').map(printable).join('\n');
}

/** `info` with every text the board shows made {@link printable} (the id is kept to match). */
function printableInfo(info: SessionInfo): SessionInfo {
  return {
    ...info,
    name: printable(info.name),
    agent: printable(info.agent),
    reason: ageless(printable(info.reason)),
    foreground: printable(info.foreground),
    question: info.question === undefined ? undefined : printable(info.question),
    activity: info.activity === undefined ? undefined : printable(info.activity),
    stopReason: info.stopReason === undefined ? undefined : printable(info.stopReason),
    options: info.options?.map(printable),
    details: info.details?.map(printable),
  };
}

/**
 * `reason` without an age written into it (`hook Stop (3.2 s ago)`, as hosts of earlier
 * versions published a report's reason): an age in a string is only true when it was
 * written, and the board shows a reason for as long as it holds. The board and `ls` compute
 * times when they draw them, from `since`.
 */
export function ageless(reason: string): string {
  return reason.replace(/\s*\(\d+(?:\.\d+)?\s*s ago\)/g, '');
}

/** Removes SGR sequences (for tests and width checks). */
export function stripSgr(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

/**
 * Why the prompt an answer panel shows is no longer the one on the session's screen, going by
 * the session's latest info; undefined while it still is (or nothing says otherwise). Then `y`
 * will be refused: by the session, which compares question and options afresh before
 * writing, or by the board, for a prompt about something else (other details, same
 * question and options: see {@link detailsChanged}).
 */
export function panelWarning(
  panel: AnswerPanel,
  info: SessionInfo | undefined,
): string | undefined {
  if (panel.phase === 'reading' || !panel.options) return undefined;
  if (!info) return `${panel.name} is gone`;
  if (info.state !== 'blocked') {
    return `${panel.name} is ${info.state} now, no longer waiting for this answer`;
  }
  const sameQuestion = info.question === undefined || info.question === panel.question;
  const sameOptions = info.options === undefined ||
    info.options.join('\n') === panel.options.join('\n');
  if (!sameQuestion || !sameOptions) return `the prompt of ${panel.name} has changed`;
  if (detailsChanged(panel, info)) {
    return `the prompt of ${panel.name} is now about something else`;
  }
  return undefined;
}

/**
 * Whether the session's latest info tells other details (the command, the file) than the
 * panel shows, with the same question and options ("Do you want to proceed?" about another
 * command): the session's guard compares question and options only, so the board refuses
 * to send such an answer itself.
 */
export function detailsChanged(panel: AnswerPanel, info: SessionInfo | undefined): boolean {
  return info?.details !== undefined && panel.details !== undefined &&
    info.details.join('\n') !== panel.details.join('\n');
}

/** Length of `text` in cells (code points; see the file comment). */
const cells = (text: string) => [...text].length;

/**
 * `text` in lines of at most `width` cells, broken at blanks (runs of blanks become one); a
 * word longer than a line is broken inside. Never cut: every character shows.
 */
export function wrap(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const lines: string[] = [];
  let line = '';
  for (const word of text.trim().split(/ +/)) {
    let rest = [...word];
    while (rest.length) {
      const room = line ? w - cells(line) - 1 : w;
      if (rest.length <= room) {
        line = line ? `${line} ${rest.join('')}` : rest.join('');
        rest = [];
      } else if (line) {
        lines.push(line);
        line = '';
      } else {
        lines.push(rest.slice(0, w).join(''));
        rest = rest.slice(w);
      }
    }
  }
  if (line || !lines.length) lines.push(line);
  return lines;
}

/**
 * The panel's lines (without the leading space each board line gets), at most `room` when
 * the essentials fit: a rule naming the session, the details (what is approved: the command,
 * the file), the question, the options (the chosen one marked `>`), a warning, and the
 * confirmation question, or what is happening. Long texts are wrapped, not cut, so a cut
 * cannot change what an option or a command says ("access to /" of "access to /tmp/proj").
 * When the room is short, the rule, the chosen option, the first line of the question, the
 * warning and the confirmation come first, then the rest of the question, the details (with
 * a line saying how many are left out), then the other options around the chosen one.
 */
function panelLines(
  panel: AnswerPanel,
  info: SessionInfo | undefined,
  width: number,
  room: number,
  sgr: (code: string, text: string) => string,
): string[] {
  const w = width - 1;
  const id = printable(panel.id);
  const label = `── answer ${panel.name}${panel.name === id ? '' : ` (${id})`} `;
  const rule = sgr('1', fit(label + '─'.repeat(Math.max(0, w - cells(label))), w));
  if (panel.phase === 'reading' || !panel.options) {
    return [rule, fit(`reading the prompt of ${panel.name}…`, w)];
  }
  const options = panel.options;
  // Each option as its lines, the text wrapped after its number:
  // '  > 2. Yes, and always allow access to' then '       /tmp/proj/'.
  const optionLines = options.map((text, i) => {
    const m = /^(\d+[.)] )(.*)$/.exec(text);
    const num = m ? m[1] : '';
    const indent = ' '.repeat(cells(num));
    const mark = i === panel.choice ? '  > ' : '    ';
    const lines = wrap(m ? m[2] : text, w - 4 - cells(num)).map((l, j) =>
      j ? `    ${indent}${l}` : `${mark}${num}${l}`
    );
    return i === panel.choice ? lines.map((l) => sgr('1', l)) : lines;
  });
  const question = wrap(panel.question || '(no question line)', w);
  const details = (panel.details ?? []).flatMap((d) => wrap(d, w - 2).map((l) => `  ${l}`));
  const warning = panelWarning(panel, info);
  const chosen = options[panel.choice] ?? '';
  // The chosen option in full, or its number when it does not fit on the line.
  const n = panel.choice + 1;
  const confirm = panel.phase === 'sending'
    ? (cells(`answering '${chosen}'…`) <= w
      ? `answering '${chosen}'…`
      : `answering with option ${n}…`)
    : (cells(`Answer '${chosen}'? y/N`) <= w
      ? `Answer '${chosen}'? y/N`
      : `Answer with option ${n} (marked >)? y/N`);
  // The warning is wrapped, never cut: its end says what y would do.
  const cut = panel.detailsCut
    ? wrap(
      `what this prompt approves is not all visible in ${panel.name}'s pane: make it taller or look at it (Enter) before answering`,
      w,
    ).map((l) => sgr('1;33', l))
    : [];
  const tail = [
    ...cut,
    ...(warning ? wrap(`${warning}: y will be refused`, w).map((l) => sgr('1;31', l)) : []),
    fit(confirm, w),
  ];

  // What is left once the rule, the question's first line, the chosen option and the tail
  // are in.
  let left = room - 2 - tail.length - (optionLines[panel.choice]?.length ?? 0);
  const take = (wanted: number) => {
    const k = Math.max(0, Math.min(wanted, left));
    left -= k;
    return k;
  };
  const shownQuestion = question.slice(0, 1 + take(question.length - 1));
  if (shownQuestion.length < question.length) {
    shownQuestion.push(fit(`${shownQuestion.pop()} …`, w)); // said to go on
  }
  let shownDetails = details;
  if (details.length > left) {
    const k = take(details.length) - 1; // a line says how many are left out
    const more = details.length - k;
    shownDetails = k < 0
      ? []
      : [...details.slice(0, k), `  … ${more} more line${more === 1 ? '' : 's'} of details`];
  } else take(details.length);
  // The other options: whole ones around the chosen one, above first, while they fit.
  let lo = panel.choice;
  let hi = panel.choice;
  for (let grew = true; grew;) {
    grew = false;
    if (lo > 0 && optionLines[lo - 1].length <= left) {
      left -= optionLines[--lo].length;
      grew = true;
    }
    if (hi < options.length - 1 && optionLines[hi + 1].length <= left) {
      left -= optionLines[++hi].length;
      grew = true;
    }
  }
  return [
    rule,
    ...shownDetails,
    ...shownQuestion.map((l) => sgr('1', l)),
    ...optionLines.slice(lo, hi + 1).flat(),
    ...tail,
  ];
}

/**
 * What a blocked prompt asks about, in a person's words (`Bash: npm test`): the notice's
 * action, see {@link promptAction}; '' when the prompt has no details.
 */
export function askedAbout(details: readonly string[] | undefined): string {
  return promptAction(details ?? []);
}

/** An age for a person: '12 s', '2 m', '3 h'. */
function ago(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} m`;
  return `${Math.floor(s / 3600)} h`;
}

/**
 * The detail column, in a person's words (how a rule decided is `explain`'s): a blocked
 * session's prompt (what it is about, then the question); a working one's activity when the
 * agent says it, else `working`; an idle one's `done 2 m ago`; the command a `running` pane
 * runs; for an exited one, how its process ended, or the shell left in it. `now` in ms.
 */
export function detailOf(info: SessionInfo, now = Date.now()): string {
  const state = info.state;
  switch (state) {
    case 'blocked': {
      const what = askedAbout(info.details);
      const question = info.question || (what ? '' : info.options?.[0]) || '';
      return [what, question].filter(Boolean).join(' · ') || 'a prompt waits for you';
    }
    case 'working':
      return info.activity || (info.by === 'acp' ? info.reason : 'working');
    case 'idle':
      if (info.by === 'start') return 'started, no task yet';
      if (info.by === 'acp' && !info.reason.startsWith('turn ended')) return info.reason;
      // An ACP turn's stop reason when it is not the usual one ('cancelled', 'refusal').
      return `done ${ago(now - info.since)} ago${
        info.stopReason && info.stopReason !== 'end_turn' ? ` (${info.stopReason})` : ''
      }`;
    case 'running':
      return info.foreground || info.reason;
    case 'shell':
      return `${info.foreground || 'a shell'}, no agent started yet`;
    case 'exited':
      if (info.exit) {
        return info.exit.signal
          ? `ended by signal ${info.exit.signal}`
          : `exited with code ${info.exit.code}`;
      }
      if (!processGone(info)) {
        return `agent ended, shell (${info.foreground || 'no agent in the foreground'})`;
      }
      return info.reason;
    default: {
      const never: never = state;
      return never;
    }
  }
}

function counts(infos: readonly SessionInfo[]): string {
  const n: Record<string, number> = {};
  for (const i of infos) n[i.state] = (n[i.state] ?? 0) + 1;
  const parts = SESSION_STATES.filter((s) => n[s]).map((s) => `${n[s]} ${s}`);
  const total = `${infos.length} session${infos.length === 1 ? '' : 's'}`;
  return [total, ...parts].join(' · ');
}

function pad(text: string, width: number): string {
  const cut = fit(text, width);
  return cut + ' '.repeat(Math.max(0, width - [...cut].length));
}

/** The columns that fit in `width`, with their widths (DETAIL takes the rest). */
function layout(infos: readonly SessionInfo[], width: number) {
  const nameW = Math.min(24, Math.max(4, ...infos.map((i) => [...i.name].length)));
  const agentW = Math.min(10, Math.max(5, ...infos.map((i) => [...(i.agent || '-')].length)));
  const stateW = 7;
  const forW = 6;
  const showAgent = width >= 60;
  const showFor = width >= 40;
  // marker (3) + name + gaps
  const fixed = 3 + nameW + 2 + (showAgent ? agentW + 2 : 0) + stateW + 2 +
    (showFor ? forW + 2 : 0);
  const detailW = width - fixed;
  return { nameW, agentW, stateW, forW, showAgent, showFor, detailW: detailW >= 8 ? detailW : 0 };
}

/**
 * The board's frame: exactly `view.height` lines (at least 1), none wider than `view.width`.
 * The selected session's row is kept visible; rows that do not fit are counted in a
 * `… N more` line.
 */
export function renderBoard(
  rawInfos: readonly SessionInfo[],
  rawView: BoardView,
): string[] {
  // Every text from sessions (and messages quoting them) made printable first.
  const infos = rawInfos.map(printableInfo);
  const view: BoardView = {
    ...rawView,
    title: rawView.title === undefined ? undefined : printable(rawView.title),
    status: rawView.status === undefined ? undefined : printable(rawView.status),
    keys: rawView.keys === undefined ? undefined : printable(rawView.keys),
    input: rawView.input && {
      label: printable(rawView.input.label),
      text: printable(rawView.input.text),
    },
    answer: rawView.answer && {
      ...rawView.answer,
      name: printable(rawView.answer.name),
      question: rawView.answer.question === undefined
        ? undefined
        : printable(rawView.answer.question),
      options: rawView.answer.options?.map(printable),
      details: rawView.answer.details?.map(printable),
    },
  };
  const width = Math.max(10, view.width);
  const height = Math.max(1, view.height);
  const color = view.color !== false;
  const sgr = (
    code: string,
    text: string,
  ) => (color && text ? `\x1b[${code}m${text}\x1b[0m` : text);
  // Two sessions with the same name (two `node ...`) are told apart by their ids.
  const named = new Map<string, number>();
  for (const i of infos) named.set(i.name, (named.get(i.name) ?? 0) + 1);
  const sorted = sortSessions(infos).map((
    i,
  ) => (named.get(i.name)! > 1 ? { ...i, name: printable(i.id) } : i));
  const L = layout(sorted, width);

  const title = fit(`${view.title ?? 'agentwatch'} · ${counts(sorted)}`, width - 1);
  const head: string[] = [' ' + sgr('1', title), ''];
  const bottom: string[] = [];
  const keys = view.input && !view.answer
    ? []
    : keyLines(view.answer ? ANSWER_KEYS : view.keys ?? WATCH_KEYS, width - 1);
  // The status message wrapped on up to 2 lines (a message's end often says what matters:
  // '... : y will be refused'), cut only beyond that.
  const statusWrapped = view.status ? wrap(view.status, width - 1) : [];
  const status = statusWrapped.length > 2
    ? [statusWrapped[0], fit(statusWrapped.slice(1).join(' '), width - 1)]
    : statusWrapped;
  if (view.answer) {
    const panel = view.answer;
    // The panel's room: the screen less title, blank, table header, one row, the blank
    // under the panel, the status and the key help.
    const fixedRows = 4 + 1 + status.length + Math.max(1, keys.length);
    const lines = panelLines(
      panel,
      infos.find((i) => i.id === panel.id),
      width,
      height - fixedRows,
      sgr,
    );
    bottom.push(...lines.map((l) => ' ' + l), '');
  }
  bottom.push(...status.map((l) => ' ' + l));
  if (view.input && !view.answer) {
    const line = `${view.input.label}${view.input.text}`;
    const shown = [...line].length < width - 2
      ? line
      : '…' + [...line].slice(-(width - 3)).join('');
    bottom.push(' ' + shown + (color ? '\x1b[7m \x1b[0m' : '_'));
  } else {
    bottom.push(...keys.map((l) => ' ' + sgr('2', l)));
  }

  const cols = (
    name: string,
    agent: string,
    state: string,
    stateSgr: string | null,
    forText: string,
    detail: string,
  ) => {
    let line = pad(name, L.nameW) + '  ';
    if (L.showAgent) line += pad(agent, L.agentW) + '  ';
    const st = pad(state, L.stateW);
    line += (stateSgr ? sgr(stateSgr, st) : st) + '  ';
    if (L.showFor) line += pad(forText, L.forW) + '  ';
    return { line, detail: L.detailW ? fit(detail, L.detailW) : '' };
  };

  const body: string[] = [];
  if (!sorted.length) {
    body.push(
      '   ' + fit("no sessions yet: start one with 'agentwatch run -- CMD' or press n", width - 3),
    );
  } else {
    const h = cols('NAME', 'AGENT', 'STATE', null, 'FOR', 'DETAIL');
    body.push('   ' + sgr('2', (h.line + h.detail).trimEnd()));
    const room = Math.max(1, height - head.length - bottom.length - 2); // header row + blank
    let first = 0;
    let last = sorted.length;
    if (sorted.length > room) {
      const visible = Math.max(1, room - 1); // keep a line for '… N more'
      const sel = Math.max(0, sorted.findIndex((i) => i.id === view.selected));
      first = Math.min(Math.max(0, sel - visible + 1), sorted.length - visible);
      last = first + visible;
    }
    for (const info of sorted.slice(first, last)) {
      const selected = info.id === view.selected;
      const r = cols(
        info.name,
        info.agent || '-',
        info.state,
        STATE_SGR[info.state],
        duration(view.now - info.since),
        detailOf(info, view.now),
      );
      const detail = info.state === 'blocked' ? sgr('1', r.detail) : sgr('2', r.detail);
      const marker = selected ? (color ? '\x1b[1m > \x1b[0m' : ' > ') : '   ';
      body.push(marker + r.line + detail);
    }
    const more = sorted.length - (last - first);
    if (more > 0) body.push('   ' + sgr('2', `… ${more} more (${first} above)`));
  }

  const lines = [...head, ...body];
  const fillTo = height - bottom.length;
  while (lines.length < fillTo) lines.push('');
  lines.length = Math.max(0, fillTo);
  lines.push(...bottom);
  return lines.slice(-height).map((l) => l.trimEnd());
}
