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
 *    frontend   claude   working  3s      Running tests…
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
 *
 * Cost (the board redraws up to 10 times a second with a hundred sessions): the sessions'
 * texts are made printable once per change of them ({@link PrintableInfos}), and only the
 * rows that fit the screen are laid out.
 */
import type { SessionInfo } from '../../runtime/protocol.ts';
import { SESSION_STATES } from '../../detect/types.ts';
import { missingBackend } from '../../runtime/notify.ts';
import { cells, duration, fit, padCells } from '../format.ts';
import { ageless, isAgeless, isPrintable, printable } from '../printable.ts';
import { ANSWER_KEYS, type AnswerPanel, panelLines, wrap } from './answer-panel.ts';
import { detailOf, sortSessions, STATE_SGR } from './rows.ts';

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
  /**
   * The person's message above the key help (an answer's outcome, a refusal, a question):
   * wrapped on up to {@link STATUS_LINES} lines, so that one is read in full.
   */
  status?: string;
  /**
   * What the board says besides (rule files, notifications that fail, the demo's countdown,
   * ended sessions no longer kept): a line under the message per '\n'-separated part, each cut
   * to fit, the first thing left out when rows are short.
   */
  notice?: string;
  /** When set, the bottom line is an input prompt: `label` then `text` and a cursor block. */
  input?: { label: string; text: string };
  /** Key help line (default: the watch keys). */
  keys?: string;
  /** SGR colours (default true). */
  color?: boolean;
  /** The confirmation panel of an answer, when one is open (replaces the key help). */
  answer?: AnswerPanel;
  /** The last line an ended session printed, by id (ended-sessions.ts), shown after its detail. */
  lastLines?: ReadonlyMap<string, string>;
}

/** The most lines the person's message ({@link BoardView.status}) wraps on; cut beyond. */
export const STATUS_LINES = 4;

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
  '  n              start a new session (a command line) in the background host',
  '  x              clear the rows of sessions whose process is gone',
  '  q, Ctrl-C      quit (the sessions go on; agentwatch kill SESSION ends one)',
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

/** The texts of a {@link SessionInfo} the board shows, besides options and details. */
const TEXT_FIELDS = [
  'name',
  'agent',
  'reason',
  'foreground',
  'question',
  'activity',
  'stopReason',
] as const;

/** The texts of a session info the board shows (what {@link printableTexts} returns). */
type Texts = Pick<SessionInfo, (typeof TEXT_FIELDS)[number] | 'options' | 'details'>;

const listPrintable = (l: readonly string[] | undefined) => !l || l.every(isPrintable);

/**
 * `info`'s texts made {@link printable} (the reason {@link ageless} as well), or null when
 * they all are already (the usual case: then the info is shown as it is, not copied).
 */
function printableTexts(info: SessionInfo): Texts | null {
  if (
    TEXT_FIELDS.every((k) => info[k] === undefined || isPrintable(info[k])) &&
    isAgeless(info.reason) && listPrintable(info.options) && listPrintable(info.details)
  ) return null;
  const opt = (t: string | undefined) => (t === undefined ? undefined : printable(t));
  return {
    name: printable(info.name),
    agent: printable(info.agent),
    reason: ageless(printable(info.reason)),
    foreground: printable(info.foreground),
    question: opt(info.question),
    activity: opt(info.activity),
    stopReason: opt(info.stopReason),
    options: info.options?.map(printable),
    details: info.details?.map(printable),
  };
}

/** `info` with every text the board shows made {@link printable} (the id is kept to match). */
function printableInfo(info: SessionInfo): SessionInfo {
  const texts = printableTexts(info);
  return texts ? { ...info, ...texts } : info;
}

/** Whether `a` and `b` hold the same texts (arrays compared item by item). */
function sameTexts(a: SessionInfo, b: SessionInfo): boolean {
  for (const k of TEXT_FIELDS) if (a[k] !== b[k]) return false;
  return sameList(a.options, b.options) && sameList(a.details, b.details);
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Makes session infos printable for the board, each session's texts once per change of them:
 * an info whose texts are those of the last one seen for its id (a host builds a new info
 * every frame, with the same texts) is shown with the printable texts kept from then; an info
 * whose texts need no change is shown as it is. Remembers the sessions of the last call only.
 */
export class PrintableInfos {
  readonly #cache = new Map<string, { raw: SessionInfo; texts: Texts | null; frame: number }>();
  #frame = 0;

  /** `infos`, each with every text the board shows made {@link printable}. */
  of(infos: readonly SessionInfo[]): SessionInfo[] {
    const frame = ++this.#frame;
    const out: SessionInfo[] = new Array(infos.length);
    for (let i = 0; i < infos.length; i++) {
      const info = infos[i];
      let e = this.#cache.get(info.id);
      if (!e) this.#cache.set(info.id, e = { raw: info, texts: printableTexts(info), frame });
      else if (e.raw !== info) {
        if (!sameTexts(e.raw, info)) e.texts = printableTexts(info);
        e.raw = info;
      }
      e.frame = frame;
      out[i] = e.texts ? { ...info, ...e.texts } : info;
    }
    if (this.#cache.size > infos.length) {
      for (const [id, e] of this.#cache) if (e.frame !== frame) this.#cache.delete(id);
    }
    return out;
  }
}

/**
 * The board's status line part about notifications that fail: this process's channels, then
 * those of the hosts of the sessions shown (their `notify` field), each channel once:
 * 'notify failed: desktop (notify-send exited with code 1: Cannot autolaunch D-Bus ...)'.
 * undefined when every channel works. A channel whose program is missing
 * ({@link missingBackend}: no notify-send) is left out: {@link missingNotice} says it once.
 */
export function notifyStatus(
  own: Partial<Record<string, string>>,
  infos: readonly SessionInfo[],
): string | undefined {
  const seen = new Map<string, string>();
  for (const [c, why] of Object.entries(own)) if (why && !missingBackend(why)) seen.set(c, why);
  for (const i of infos) {
    for (const [c, why] of Object.entries(i.notify ?? {})) {
      if (why && !missingBackend(why) && !seen.has(c)) seen.set(c, `${i.name}: ${why}`);
    }
  }
  if (!seen.size) return undefined;
  return `notify failed: ${[...seen].map(([c, why]) => `${c} (${why})`).join(', ')}`;
}

/**
 * What the board says once about a notification channel whose program is missing on this
 * machine or on a session's host (`missing`: {@link Notifier.missing}, then the sessions'
 * `notify` fields, {@link missingBackend}): which channel, why, and the two ways out, e.g.
 * 'desktop notices are off: notify-send is not installed (not on PATH); install it (libnotify),
 * or turn them off: --no-desktop, or desktop = false in [notify] of config.toml'. undefined
 * when none is missing.
 */
export function missingNotice(
  missing: Partial<Record<string, string>>,
  infos: readonly SessionInfo[],
): string | undefined {
  const seen = new Map<string, string>();
  for (const [c, why] of Object.entries(missing)) if (why) seen.set(c, why);
  for (const i of infos) {
    for (const [c, why] of Object.entries(i.notify ?? {})) {
      if (why && missingBackend(why) && !seen.has(c)) seen.set(c, why);
    }
  }
  const desktop = seen.get('desktop');
  if (!desktop) return undefined;
  return `desktop notices are off: ${desktop}; install it (libnotify), or turn them off: ` +
    '--no-desktop, or desktop = false in [notify] of config.toml';
}

function counts(infos: readonly SessionInfo[]): string {
  const n: Record<string, number> = {};
  for (const i of infos) n[i.state] = (n[i.state] ?? 0) + 1;
  const parts = SESSION_STATES.filter((s) => n[s]).map((s) => `${n[s]} ${s}`);
  const total = `${infos.length} session${infos.length === 1 ? '' : 's'}`;
  return [total, ...parts].join(' · ');
}

function pad(text: string, width: number): string {
  return padCells(text, width);
}

/** The columns that fit in `width`, with their widths (DETAIL takes the rest). */
function layout(infos: readonly SessionInfo[], width: number) {
  const nameW = Math.min(24, Math.max(4, ...infos.map((i) => cells(i.name))));
  const agentW = Math.min(10, Math.max(5, ...infos.map((i) => cells(i.agent || '-'))));
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
 * The rows of `sorted` (the board's order: blocked first) that go in `room` lines: all when
 * they fit; else `room - 1` of them (a line is left for '… N more'): the selected row with
 * its neighbours, and above them, when the selection is not on a blocked row, as many
 * blocked rows as leave room for it (a session that waits for the person stays in sight on
 * a short terminal). `above`: hidden rows that sort above the last one shown;
 * `hiddenBlocked`: hidden blocked rows.
 */
export function shownRows(
  sorted: readonly SessionInfo[],
  room: number,
  selected: string | undefined,
): { rows: SessionInfo[]; above: number; hiddenBlocked: number } {
  if (sorted.length <= room) return { rows: [...sorted], above: 0, hiddenBlocked: 0 };
  const visible = Math.max(1, room - 1);
  const sel = Math.max(0, sorted.findIndex((i) => i.id === selected));
  let blocked = 0;
  while (blocked < sorted.length && sorted[blocked].state === 'blocked') blocked++;
  const pinned = sel < blocked ? 0 : Math.min(blocked, visible - 1);
  const w = visible - pinned;
  const first = Math.min(Math.max(pinned, sel - w + 1), sorted.length - w);
  const rows = [...sorted.slice(0, pinned), ...sorted.slice(first, first + w)];
  let hiddenBlocked = 0;
  for (let i = pinned; i < blocked; i++) if (i < first || i >= first + w) hiddenBlocked++;
  return { rows, above: first - pinned, hiddenBlocked };
}

/**
 * The board's frame: exactly `view.height` lines (at least 1), none wider than `view.width`.
 * The selected session's row is kept visible, and blocked ones above it (see {@link shownRows});
 * rows that do not fit are counted in a
 * `… N more` line. `printables`: the caller's {@link PrintableInfos}, to make each session's
 * texts printable once per change of them (default: all of them now).
 */
export function renderBoard(
  rawInfos: readonly SessionInfo[],
  rawView: BoardView,
  printables?: Pick<PrintableInfos, 'of'>,
): string[] {
  // Every text from sessions (and messages quoting them) made printable first.
  const infos = printables ? printables.of(rawInfos) : rawInfos.map(printableInfo);
  const view: BoardView = {
    ...rawView,
    title: rawView.title === undefined ? undefined : printable(rawView.title),
    status: rawView.status === undefined ? undefined : printable(rawView.status),
    notice: rawView.notice === undefined
      ? undefined
      : rawView.notice.split('\n').map((l) => printable(l)).join('\n'),
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
  let keys = view.input && !view.answer
    ? []
    : keyLines(view.answer ? ANSWER_KEYS : view.keys ?? WATCH_KEYS, width - 1);
  // The person's message wrapped on up to STATUS_LINES lines (a message's end often says what
  // matters: '... : y will be refused'; a refusal says what to do), cut only beyond that; the
  // board's own notices on one line under it.
  const statusWrapped = view.status ? wrap(view.status, width - 1) : [];
  let status = statusWrapped.length > STATUS_LINES
    ? [
      ...statusWrapped.slice(0, STATUS_LINES - 1),
      fit(statusWrapped.slice(STATUS_LINES - 1).join(' '), width - 1),
    ]
    : statusWrapped;
  let notice = view.notice ? view.notice.split('\n').map((l) => fit(l, width - 1)) : [];
  let tableHeader = sorted.length > 0;
  if (!view.answer) {
    // A terminal too short for it all: the sessions win. Until three lines fit for them (a
    // row each, or two rows and '… N more'; one line for the 'no sessions' line), the board's
    // notice goes, the key help shrinks to one line, the blank under the title goes, the
    // message to one line, then the table header, the key help and the message go.
    const need = Math.max(1, Math.min(3, sorted.length));
    const free = () =>
      height - head.length - (tableHeader ? 1 : 0) - status.length - notice.length -
      keys.length - (view.input ? 1 : 0);
    const shrink = [
      () => (notice = []),
      () => (keys = keys.slice(0, 1)),
      () => head.pop(),
      () => (status = status.length > 1 ? [fit(status.join(' '), width - 1)] : status),
      () => (tableHeader = false),
      () => (keys = []),
      () => (status = []),
    ];
    for (const step of shrink) if (free() < need) step();
  } else if (status.length) notice = []; // the panel's room: the message is about it
  if (view.answer) {
    const panel = view.answer;
    // The panel's room: the screen less title, blank, table header, one row, the blank
    // under the panel, the status and the key help.
    const fixedRows = 4 + 1 + status.length + notice.length + Math.max(1, keys.length);
    const lines = panelLines(
      panel,
      infos.find((i) => i.id === panel.id),
      width,
      height - fixedRows,
      sgr,
    );
    bottom.push(...lines.map((l) => ' ' + l), '');
  }
  bottom.push(...status.map((l) => ' ' + l), ...notice.map((l) => ' ' + sgr('2', l)));
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
    if (tableHeader) body.push('   ' + sgr('2', (h.line + h.detail).trimEnd()));
    // Rows that fit below the title and the header, above the bottom lines; one kept free
    // (a margin) when the terminal has room to spare.
    const under = height - head.length - body.length - bottom.length;
    const room = Math.max(1, under > 4 ? under - 1 : under);
    const shown = shownRows(sorted, room, view.selected);
    for (const info of shown.rows) {
      const selected = info.id === view.selected;
      const r = cols(
        info.name,
        info.agent || '-',
        info.state,
        STATE_SGR[info.state],
        duration(view.now - info.since),
        detailOf(info, view.now) +
          (view.lastLines?.has(info.id) ? ` · ${printable(view.lastLines.get(info.id)!)}` : ''),
      );
      const detail = info.state === 'blocked' ? sgr('1', r.detail) : sgr('2', r.detail);
      const marker = selected ? (color ? '\x1b[1m > \x1b[0m' : ' > ') : '   ';
      body.push(marker + r.line + detail);
    }
    const more = sorted.length - shown.rows.length;
    if (more > 0) {
      const blocked = shown.hiddenBlocked ? `, ${shown.hiddenBlocked} blocked` : '';
      body.push('   ' + sgr('2', `… ${more} more (${shown.above} above${blocked})`));
    }
  }

  const lines = [...head, ...body];
  const fillTo = height - bottom.length;
  while (lines.length < fillTo) lines.push('');
  lines.length = Math.max(0, fillTo);
  lines.push(...bottom);
  return lines.slice(-height).map((l) => l.trimEnd());
}

/**
 * The board's view of an ended session's last screen (Enter on an ended row): a title line
 * (name, id, how it ended), the screen's last rows that fit, and the key line; exactly
 * `height` lines (at least 1), none wider than `width`, every text made printable.
 */
export function endedLines(
  ended: { info: SessionInfo; screen: string; endedAt: number },
  width: number,
  height: number,
  now: number,
): string[] {
  const w = Math.max(10, width);
  const h = Math.max(1, height);
  const title = fit(
    printable(
      `${ended.info.name} (${ended.info.id}) ended ${duration(now - ended.endedAt)} ago: ${
        detailOf(ended.info, now)
      } · its last screen`,
    ),
    w,
  );
  const keys = fit('any key returns to the board', w);
  let rows = ended.screen.split('\n').map((r) => fit(printable(r), w).trimEnd());
  while (rows.length && rows[rows.length - 1] === '') rows.pop();
  if (!rows.length) rows = ['(it printed nothing)'];
  const room = Math.max(0, h - 2);
  const body = rows.slice(-room);
  while (body.length < room) body.push('');
  return [title, ...body, keys].slice(-h);
}
