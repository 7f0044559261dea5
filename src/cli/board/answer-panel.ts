/**
 * The answer panel as drawn, pure: the confirmation panel the board's `a` key opens on a
 * blocked session (what the prompt approves, the question, the options with the chosen one
 * marked, "Answer '<option>'? y/N"), fitted to the room the board leaves it, and why `y` would
 * be refused when the session's latest info tells another prompt. `answering.ts` drives it.
 *
 * ```
 *  ── answer backend (backend-1a2b) ─────────────────
 *  Do you want to proceed?
 *    > 1. Yes
 *      2. No
 *  Answer '1. Yes'? y/N
 * ```
 * Widths count code points as cells (names and questions of the agents seen are narrow text).
 */
import type { SessionInfo } from '../../runtime/protocol.ts';
import { fit } from '../format.ts';
import { printable } from '../printable.ts';

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
  /** Said above the confirmation (the prompt was read again and shows other details). */
  note?: string;
}

/** The key help while an answer panel is open. */
export const ANSWER_KEYS = '↑/↓ or 1-9 choose · y answer · n/Esc cancel';

/**
 * Why the prompt an answer panel shows is no longer the one on the session's screen, going by
 * the session's latest info; undefined while it still is (or nothing says otherwise). Then `y`
 * will be refused by the session, which compares the prompt afresh before writing; or, for
 * other details with the same question and options (see {@link detailsChanged}), `y` reads
 * the prompt again and shows it before anything is typed.
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
  if (!sameAsked(panel, info)) return `the prompt of ${panel.name} has changed`;
  if (detailsChanged(panel, info)) {
    return `the prompt of ${panel.name} now shows other details`;
  }
  return undefined;
}

/** Whether `info` tells the question and options the panel shows (or does not tell them). */
function sameAsked(panel: AnswerPanel, info: SessionInfo): boolean {
  return (info.question === undefined || info.question === panel.question) &&
    (info.options === undefined || info.options.join('\n') === (panel.options ?? []).join('\n'));
}

/**
 * Whether the session's latest info tells other details (the command, the file) than the
 * panel shows, with the same question and options ("Do you want to proceed?" about another
 * command, or more of the same one once its pane was made taller).
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
export function panelLines(
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
  // Other details, same question and options: y reads the prompt again and shows them.
  const then = info?.state === 'blocked' && sameAsked(panel, info) && detailsChanged(panel, info)
    ? 'y shows it first'
    : 'y will be refused';
  const tail = [
    ...cut,
    ...(panel.note ? wrap(panel.note, w).map((l) => sgr('1;33', l)) : []),
    ...(warning ? wrap(`${warning}: ${then}`, w).map((l) => sgr('1;31', l)) : []),
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
