/**
 * Reads a blocked prompt's question and numbered options off a screen, for the board and for
 * the typing guard's messages. Pure. Works on the dialogs of the captured agents:
 * Claude Code 2.1.332 (`Do you want to proceed?` / `❯ 1. Yes` / `2. No`), Codex 0.171
 * (`Would you like to run the following command?` / `› 1. Yes, proceed (y)`), Gemini CLI and
 * Qwen Code (`Allow execution of ...?` / `● 1. Allow once`), and opencode 1.18, whose
 * permission panel has a row of buttons instead (`┃   Allow once   Allow always   Reject   ...
 * ⇆ select  enter confirm`), the selected one drawn with a background colour only, and its
 * question dialog (`┃  Which database should I use?` / `┃  1. Postgres (Recommended)` / ... /
 * `┃  ↑↓ select  enter submit  esc dismiss`), a numbered list whose selected option is drawn on
 * another background, no marker.
 */

import { cutSidePanel } from './side-panel.ts';

/** A prompt as read from the screen. */
export interface Prompt {
  /**
   * The last line ending with '?' above the options and below the dialog's top rule, else the
   * last question inside a line there ('' when none, and always '' when no options were read:
   * prose above a dialog is not its question).
   */
  question: string;
  /**
   * The numbered options, in order, without the selection marker ('1. Yes'); when the screen
   * has none, an option list without numbers marked by the cursor `❯` ('No, exit'); for a
   * notice that ends in `Press Enter to continue`, the one option 'Continue' (Enter); for a
   * notice whose footer starts `Enter to <action> · ` (Claude Code's auto-mode notice), the one
   * option Enter gives ('Stay in auto mode').
   */
  options: string[];
  /**
   * Index into `options` of the one the selection marker (❯ › > ● ...) points at, or, for a
   * button row, the one button whose background differs from the others'; -1 when none.
   */
  selected: number;
  /**
   * How the selection moves: `vertical` (↑/↓, a numbered list) or `horizontal` (←/→, a row of
   * buttons: opencode 1.18 wraps around at both ends).
   */
  layout: 'vertical' | 'horizontal';
  /**
   * What the prompt is about: the dialog's other lines between its top and its options (the
   * command to run, the file to edit, the reason), separators and tips (`Tip: ...`) left out;
   * at most 8 lines.
   * Claude Code puts them above the question, Codex below it.
   */
  details: string[];
  /**
   * True when what the prompt is about is not all on the screen: the dialog's top (its rule or
   * header) is above the first row, or a line says rows are hidden (Claude Code 2.1.332 in a
   * 40x12 pane: `↑ 8 more lines`). Absent otherwise.
   */
  detailsCut?: boolean;
}

/**
 * The background tags of each row's code units (Terminal.rowBackgrounds): per row, or a
 * function of the row index that gives them when asked (only a button row is asked).
 */
export type Backgrounds = readonly (readonly number[])[] | ((row: number) => readonly number[]);

/** A line saying rows of a dialog are scrolled out of sight (`↑ 8 more lines`, `… +3 lines`). */
const HIDDEN_ROWS = /^(?:[↑↓]\s*\d+ more lines?|…\s*\+?\d+ (?:more )?lines?)\b/u;

/**
 * A tip inside a dialog, about the agent rather than what the prompt approves: Claude Code
 * 2.1.332's `Tip: auto mode handles these prompts for you — choose "switch to auto mode" below`
 * under its `Bash command` header. Left out of the details.
 */
const TIP = /^Tip: /;

/**
 * A row of a picture drawn with block and shade glyphs and no word (Claude Code 2.1.332's
 * welcome art above its onboarding theme picker: `░░░░░░░░`, `██▄█████▄██   *`). Left out of
 * the details.
 */
function art(line: string): boolean {
  return /[░▒▓█▄▀▌▐]/u.test(line) && !/\p{L}{3}/u.test(line);
}

/** A row that only separates: a rule of box-drawing dashes (─ ━ ╌ ┄ ═), corners and blanks. */
function separator(row: string): boolean {
  return /^[\s─━╌┄┈═╭╮╰╯┌┐└┘│┃|-]*$/u.test(row) && /[─━╌┄┈═-]{3}/u.test(row);
}

/** A full horizontal rule: the top of a dialog (or of the input box) at least 8 ─/━ long. */
function fullRule(row: string): boolean {
  return /^[\s─━╭╮╰╯┌┐└┘]*$/u.test(row) && /[─━]{8}/u.test(row);
}

/**
 * A row without its box borders and without a scrollbar in its last column (Qwen Code 0.24
 * flashes `█`/`│` there for 1.5 s after the transcript scrolls; opencode 1.18.33 draws its edit
 * panel's first frame with the diff's scrollbar, `█` rows ending in a half block `▀`, and drops
 * it a frame later: fixtures/opencode/marked/ocdraft).
 */
const strip = (row: string) => row.replace(/^[\s│┃|]+|[\s│┃|█▀▄]+$/g, '');

const OPTION = /^[\s│┃|]*([❯›>●◉▶→*]\s*)?(\d{1,2})[.)]\s+(.+?)[\s│┃|█]*$/u;
/**
 * A check mark after an option's label: opencode 1.18.33 draws the option just picked as
 * `2. SQLite ✓` for a moment (0.2-0.4 s) before its question dialog closes
 * (fixtures/opencode/marked/ocq). The same option, not another prompt: left out.
 */
const PICKED = /\s+[✓✔]$/u;

/**
 * The old frame showing through a row still being drawn: a run of rule dashes at the end of an
 * option (Claude Code 2.1.332 drawing its Bash dialog over the input box, read between two
 * writes: `3. Yes, and switch to auto mode · auto mode handles these prompts for ─────`, the
 * rest of the row still the box's rule). Cut off, so the dialog read half drawn is the start of
 * the one read whole. No option ends in a rule of its own.
 */
const RULE_TAIL = /\s*[─━]{3,}$/u;
/** {@link OPTION} with match indices, to know the column where an option's text starts. */
const OPTION_AT = new RegExp(OPTION.source, 'ud');

/**
 * A row of buttons with key hints naming `enter`, as opencode 1.18 draws its permission
 * panel's last row: `┃   Allow once   Allow always   Reject      ctrl+f fullscreen  ⇆ select
 * enter confirm` (buttons 3 spaces apart, hints after a wide gap). Captures the buttons' part.
 */
const BUTTON_ROW =
  /^(\s*[┃│|]\s+)(\S+(?: \S+)*(?: {2,5}\S+(?: \S+)*){1,5})(?: {6,}.*\benter\b.*)$/u;

/**
 * The same row in a narrow pane: opencode 1.18.33 at 90 columns or fewer leaves only 3 spaces
 * between the last button and its hints (`┃   Allow once   Allow always   Reject   ctrl+f
 * fullscreen  ⇆ select  enter confirm`, fixtures/opencode-90), so the hints are told by what
 * they say: a key (`ctrl+f`, `⇆`, `enter`, an arrow, ...) then what it does.
 */
const NARROW_BUTTON_ROW = /^(\s*[┃│|]\s+)(\S.*\benter\b.*)$/u;
const KEY_HINT =
  /^(?:(?:ctrl|alt|shift|cmd|meta|opt)\+\S+|[⇆←→↑↓][^\s]*|enter|esc|tab|space|return)\s+\S/iu;

/**
 * A row of buttons alone, as opencode 1.18.33 draws its permission panel at 70 columns or
 * fewer: its key hints go on a row of their own below, after a bare border row, cut at the
 * pane's edge (`┃   Allow once   Allow always   Reject` / `┃` / `┃  ctrl+f fullscreen  ⇆
 * select  enter con`, fixtures/opencode/marked/ocnarrow). Captures the buttons' part.
 */
const BUTTONS_ALONE_ROW = /^(\s*[┃│|]\s+)(\S+(?: \S+)*(?: {2,5}\S+(?: \S+)*){1,5})\s*$/u;

/**
 * True when `row` is a row of key hints naming `enter` inside the border `border`: labels two
 * or more spaces apart, each a key then what it does ({@link KEY_HINT}), the last one possibly
 * cut short at the pane's edge (`enter con`, `enter`).
 */
function isHintRow(row: string, border: string): boolean {
  const t = row.trim();
  if (!t.startsWith(border)) return false;
  const labels = t.slice(border.length).trim().split(/ {2,}/);
  if (!labels.some((l) => /^enter\b/i.test(l))) return false;
  return labels.every((l, k) =>
    KEY_HINT.test(l) || (k === labels.length - 1 && /^enter\b/i.test(l))
  );
}

/**
 * The button labels of `rows[i]` when it is a {@link BUTTONS_ALONE_ROW} with a hint row
 * ({@link isHintRow}) within the next two rows (a bare border row between them), or with
 * nothing but bare border rows under it to the screen's last row (the hints below the edge of a
 * short pane: opencode 1.18.33 at 40x10, fixtures/opencode/marked/ocshort), else null.
 */
function buttonsAlone(
  rows: readonly string[],
  i: number,
): { m: RegExpExecArray; labels: Array<{ text: string; at: number }> } | null {
  const m = BUTTONS_ALONE_ROW.exec(rows[i]);
  if (!m) return null;
  const border = m[1].trim();
  if (m[2].split(/ {2,}/).some((l) => KEY_HINT.test(l))) return null; // the hints themselves
  let k = i + 1;
  if (k < rows.length && rows[k].trim() === border) k++;
  const below = rows.slice(i + 1);
  while (below.length && !below[below.length - 1].trim()) below.pop();
  const atEdge = below.length <= 2 && below.every((r) => r.trim() === border);
  if (!atEdge && (k >= rows.length || !isHintRow(rows[k], border))) return null;
  const labels: Array<{ text: string; at: number }> = [];
  const re = /\S+(?: \S+)*/g;
  for (let l = re.exec(m[2]); l; l = re.exec(m[2])) {
    labels.push({ text: l[0], at: m[1].length + l.index });
  }
  return labels.length >= 2 ? { m, labels } : null;
}

/** The labels of a button row (`m[2]` of either pattern above) with their columns, hints left out. */
function buttonLabels(prefix: string, rest: string): Array<{ text: string; at: number }> | null {
  const labels: Array<{ text: string; at: number }> = [];
  const re = /\S+(?: \S+)*/g;
  for (let l = re.exec(rest); l; l = re.exec(rest)) {
    labels.push({ text: l[0], at: prefix.length + l.index });
  }
  let hints = labels.length;
  while (hints > 0 && KEY_HINT.test(labels[hints - 1].text)) hints--;
  const buttons = labels.slice(0, hints);
  if (hints === labels.length || buttons.length < 2 || buttons.length > 6) return null;
  for (let k = 1; k < buttons.length; k++) {
    const gap = buttons[k].at - (buttons[k - 1].at + buttons[k - 1].text.length);
    if (gap > 5) return null;
  }
  return buttons;
}

/**
 * The button row among the last rows, read as options `1. Allow once`, ... with the question
 * (the panel's heading, its leading glyph dropped) and details (the panel's other rows), or
 * null. `backgrounds` (per code unit of each row, see Terminal.rowBackgrounds) tells the
 * selected button: the only one whose background differs from the gap between buttons.
 */
function readButtonRow(
  rows: readonly string[],
  backgrounds: Backgrounds | undefined,
): Prompt | null {
  for (let i = rows.length - 1; i >= 0 && i >= rows.length - 6; i--) {
    let m = BUTTON_ROW.exec(rows[i]);
    let labels: Array<{ text: string; at: number }> | null = null;
    if (m) {
      labels = [];
      const re = /\S+(?: \S+)*/g;
      for (let l = re.exec(m[2]); l; l = re.exec(m[2])) {
        labels.push({ text: l[0], at: m[1].length + l.index });
      }
    } else {
      m = NARROW_BUTTON_ROW.exec(rows[i]);
      if (m) labels = buttonLabels(m[1], m[2]);
      if (!m || !labels) {
        const alone = buttonsAlone(rows, i);
        if (alone) ({ m, labels } = alone);
      }
    }
    if (!m || !labels) continue;
    const tags = typeof backgrounds === 'function' ? backgrounds(i) : backgrounds?.[i];
    let selected = -1;
    if (tags) {
      // the gap between the first two buttons belongs to neither: the selected button is the
      // one whose background differs from it (opencode: all buttons but the selected one are
      // drawn on the panel's background)
      const gap = tags[Math.floor((labels[0].at + labels[0].text.length + labels[1].at) / 2)];
      const differ = labels.flatMap((l, k) => (tags[l.at] ?? gap) !== gap ? [k] : []);
      if (differ.length === 1) selected = differ[0];
    }
    // the panel: the rows above that share the button row's left border
    const border = m[1].trim();
    const panel: string[] = [];
    // a shell command wrapped over rows (`$ touch a.txt &&` / `echo done` in a narrow pane,
    // opencode 1.18.33 at 40 columns): its rows up to the next blank one are one command
    let wrapped: string[] = [];
    for (let k = i - 1; k >= 0 && rows[k].trimStart().startsWith(border); k--) {
      const line = strip(rows[k]);
      if (!line) {
        panel.unshift(...wrapped);
        wrapped = [];
      } else if (line.startsWith('$ ') && wrapped.length) {
        panel.unshift([line, ...wrapped].join(' '));
        wrapped = [];
      } else wrapped.unshift(line);
    }
    panel.unshift(...wrapped);
    const heading = panel.length ? panel[0].replace(/^[^\p{L}\p{N}]+\s+/u, '') : '';
    return {
      question: heading,
      options: labels.map((l, n) => `${n + 1}. ${l.text}`),
      selected,
      layout: 'horizontal',
      details: panel.slice(1, 9),
    };
  }
  return null;
}

/**
 * The last line of a notice whose only answer is Enter: Claude Code 2.1.332's first-start
 * `Security notes:` (two numbered notes, then `Press Enter to continue`).
 */
const PRESS_ENTER = /^Press Enter to continue\b/i;

/**
 * A notice that ends the screen with {@link PRESS_ENTER}, read as a prompt with the one option
 * `Continue` (selected: Enter answers it) and no numbered ones (its numbered notes are no
 * choices); the question is its heading (the nearest row above, at most 20 up, that ends with
 * `:`, which is dropped; else the Enter line), the details the rows between them. Else null.
 */
function readPressEnter(rows: readonly string[]): Prompt | null {
  let last = rows.length - 1;
  while (last >= 0 && !strip(rows[last])) last--;
  if (last < 0 || !PRESS_ENTER.test(strip(rows[last]))) return null;
  let head = -1;
  for (let i = last - 1; i >= 0 && i >= last - 20 && head < 0; i--) {
    if (/\p{L}:$/u.test(strip(rows[i]))) head = i;
  }
  const details: string[] = [];
  for (let i = head + 1; head >= 0 && i < last && details.length < 8; i++) {
    const line = strip(rows[i]);
    if (line && !separator(rows[i])) details.push(line);
  }
  return {
    question: head >= 0 ? strip(rows[head]).slice(0, -1) : strip(rows[last]),
    options: ['Continue'],
    selected: 0,
    layout: 'vertical',
    details,
  };
}

/**
 * A bordered panel with no options whose last row is key hints alone, one of them `enter`
 * and what it does (`┃  ⇆ tab  enter submit  esc dismiss`): opencode 1.18.33's review step
 * after a call of several questions (fixtures/opencode/opencode.blocked.v118-questions-confirm).
 * Read as a prompt with the one option that Enter gives (`Submit`, selected); the question is
 * the panel's first row that is not a row of tabs (labels 3 or more spaces apart), the details
 * the rows between it and the hints. Else null.
 */
function readHintPanel(rows: readonly string[]): Prompt | null {
  let last = rows.length - 1;
  while (last >= 0 && !strip(rows[last])) last--;
  // the panel may end with an empty bordered row under its hints
  if (last > 0 && /^\s*[┃│|]\s*$/u.test(rows[last])) last--;
  const m = /^(\s*)([┃│|])\s+(\S.*)$/u.exec(rows[last] ?? '');
  if (!m) return null;
  const hints = m[3].trim().split(/ {2,}/);
  if (hints.length < 2 || !hints.every((h) => KEY_HINT.test(h))) return null;
  const enter = hints.map((h) => /^enter\s+(\S+)$/iu.exec(h)).find((x) => x);
  if (!enter) return null;
  const top = borderTop(rows, last);
  const lines: string[] = [];
  for (let i = top; i < last; i++) {
    const line = strip(rows[i]);
    if (line && !separator(rows[i])) lines.push(line);
  }
  const tabs = (line: string) => /\S {3,}\S/.test(line) && !/[.:?!]/.test(line);
  const q = lines.findIndex((l) => !tabs(l));
  if (q < 0) return null;
  const verb = enter[1];
  return {
    question: lines[q],
    options: [verb[0].toUpperCase() + verb.slice(1)],
    selected: 0,
    layout: 'vertical',
    details: lines.slice(q + 1, q + 9),
  };
}

/**
 * The footer of a notice that offers Enter and other keys, no options: Claude Code 2.1.332's
 * auto-mode notice ends `Enter to stay in auto mode · shift+Tab to leave for accept edits mode
 * and stop · Esc to cancel` (fixtures/claude-code/claude.blocked.autocheck). Group 1: what
 * Enter does.
 */
const ENTER_FOOTER = /^Enter to ([^·]+?) · [^\n]*\bEsc to cancel$/u;

/**
 * A notice under a full rule whose last row is {@link ENTER_FOOTER}, read as a prompt with the
 * one option Enter gives (`Stay in auto mode`, selected); the question is the notice's heading
 * (its first row under the rule), the details the rows between it and the footer (at most 8).
 * No rule within 24 rows above the footer, or no heading: null.
 */
function readEnterNotice(rows: readonly string[]): Prompt | null {
  let last = rows.length - 1;
  while (last >= 0 && !strip(rows[last])) last--;
  const m = last >= 0 ? ENTER_FOOTER.exec(strip(rows[last])) : null;
  if (!m) return null;
  let rule = -1;
  for (let i = last - 1; i >= 0 && i >= last - 24 && rule < 0; i--) {
    if (fullRule(rows[i])) rule = i;
  }
  if (rule < 0) return null;
  const lines: string[] = [];
  for (let i = rule + 1; i < last; i++) {
    const line = strip(rows[i]);
    if (line && !separator(rows[i])) lines.push(line);
  }
  if (!lines.length) return null;
  const verb = m[1].trim();
  return {
    question: lines[0],
    options: [verb[0].toUpperCase() + verb.slice(1)],
    selected: 0,
    layout: 'vertical',
    details: lines.slice(1, 9),
  };
}

/** A boxed row with the selection marker `›` and no number: `│ › Alibaba ModelStudio │`. */
const BOXED_MARK = /^(\s*│\s)› (\S.*?)[\s│]*$/u;

/**
 * A boxed list without numbers whose entries are groups of rows separated by blank rows, the
 * first row of each the entry and the others its description, one marked `›` (Qwen Code
 * 0.24.4's first-run `Connect a Provider`: `│ › Alibaba ModelStudio` / `│   Official
 * recommended setup: ...` / `│` / `│   Third-party Providers` / ...). The question is the
 * box's heading: the nearest non-blank row above the list inside the box. Fewer than two
 * entries, or no such row: null.
 */
function readMarkedGroups(rows: readonly string[]): Prompt | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const m = BOXED_MARK.exec(rows[i]);
    if (!m) continue;
    const col = m[1].length + 2; // where an entry's text starts
    // a row of the same box, not its separator
    const inList = (row: string | undefined) =>
      row !== undefined && /^\s*│/.test(row) && !separator(row);
    const textAt = (row: string) => {
      const t = strip(row);
      return t && row.indexOf(t) === col ? t : null;
    };
    // the first entry: up from the marked one over groups at the entry column
    let first = i;
    for (let k = i - 1; k >= 0 && inList(rows[k]); k--) {
      if (!strip(rows[k])) continue;
      if (textAt(rows[k]) === null) break;
      first = k;
    }
    // entries: rows at the entry column that follow a blank row (or open the list)
    const entries: Array<{ row: number; text: string }> = [];
    let selected = -1;
    let prevBlank = true;
    for (let k = first; k < rows.length && inList(rows[k]); k++) {
      if (!strip(rows[k])) {
        prevBlank = true;
        continue;
      }
      const text = k === i ? m[2] : textAt(rows[k]);
      if (text === null) break;
      if (prevBlank) {
        if (k === i) selected = entries.length;
        entries.push({ row: k, text });
      }
      prevBlank = false;
    }
    if (entries.length < 2 || selected < 0) return null;
    // the heading: the row above the list, inside the box
    let question = '';
    for (let k = first - 1; k >= 0 && /^\s*│/.test(rows[k]); k--) {
      if (strip(rows[k])) {
        question = strip(rows[k]);
        break;
      }
    }
    if (!question) return null;
    return {
      question,
      options: entries.map((e) => e.text),
      selected,
      layout: 'vertical',
      details: [],
    };
  }
  return null;
}

/**
 * The row of Claude Code's input box (`❯` at the start of a row right under a full rule), the
 * last on the screen; -1 when none. A dialog replaces the box: while the box is still on the
 * screen, what is above it is the transcript, or a dialog still being drawn over the frame
 * before it (Ink draws a frame top down; a PTY read can end anywhere in it:
 * fixtures/claude-code/claude.blocked.multiline, one read ending at `3. Yes, and switch to
 * auto mode · auto mode handle────...`, the box still under it).
 */
function inputBoxRow(rows: readonly string[]): number {
  for (let i = rows.length - 1; i > 0; i--) {
    if (/^❯/u.test(rows[i]) && fullRule(rows[i - 1])) return i;
  }
  return -1;
}

/** The selection cursor of an option list without numbers (` ❯ No, exit`), text from group 2. */
const CURSOR = /^(\s*)❯\s+(\S.*?)\s*$/u;

/**
 * An option list without numbers, the last on the screen: the row with the selection cursor
 * `❯` and the rows right above and below it whose text starts in the cursor's text column (up
 * to 2 cells further in, where the cursor row shows a mark such as `✔`). Claude Code 2.1.332's
 * trust dialog (` ❯ No, exit` / `   Yes, I trust this folder`) and theme picker. Never its
 * input box (`❯` at the start of a row under a full rule), nor anything above it: a dialog
 * replaces the input box, and above it is the transcript, where Claude Code 2.1.332 echoes a
 * prompt of several lines as `❯ alpha` / `  beta` / `  gamma`, a cursor with rows beside it
 * (fixtures/claude-code/claude.working.multiline: its PermissionRequest hook says blocked
 * about 0.2 s before the dialog replaces the box). Fewer than two options: none.
 */
function unnumberedOptions(
  rows: readonly string[],
): Array<{ row: number; end: number; text: string; marked: boolean; indent: number }> {
  const box = inputBoxRow(rows);
  for (let i = rows.length - 1; i > box; i--) {
    const m = CURSOR.exec(rows[i]);
    if (!m) continue;
    const col = rows[i].indexOf(m[2]);
    const sibling = (row: string | undefined) => {
      if (row === undefined || !row.trim() || separator(row) || CURSOR.test(row)) return false;
      const lead = row.length - row.trimStart().length;
      return lead >= col && lead <= col + 2;
    };
    let first = i;
    while (sibling(rows[first - 1])) first--;
    let last = i;
    while (sibling(rows[last + 1])) last++;
    if (last === first) return [];
    const out = [];
    for (let r = first; r <= last; r++) {
      out.push({
        row: r,
        end: r,
        text: r === i ? m[2] : strip(rows[r]),
        marked: r === i,
        indent: col,
      });
    }
    return out;
  }
  return [];
}

/**
 * The first row of the bordered block that row `at` belongs to: when `at` starts with a left
 * border (`┃`, `│` or `|` after blanks), the rows above it with the same border in the same
 * column; else 0 (no border: the whole screen above).
 */
function borderTop(rows: readonly string[], at: number): number {
  const m = /^(\s*)([┃│|])/u.exec(rows[at]);
  if (!m) return 0;
  let first = at;
  while (
    first > 0 && rows[first - 1].startsWith(m[2], m[1].length) &&
    !rows[first - 1].slice(0, m[1].length).trim()
  ) {
    first--;
  }
  return first;
}

/**
 * The option drawn highlighted in a numbered list without a selection marker, by the
 * background tags of the cells of its number (Terminal.rowBackgrounds): the one option whose
 * number stands on another background than the cell left of it (opencode 1.18.33's question
 * dialog: `┃  2. SQLite`, the selected option's `2. SQLite` on a lighter grey than the panel),
 * else the one whose number's background differs from the others', which all agree (a whole
 * row drawn in inverse video); -1 when no single option stands out.
 */
function highlighted(
  options: ReadonlyArray<{ row: number; digit?: number }>,
  backgrounds: Backgrounds,
): number {
  const tagsOf = (row: number) =>
    typeof backgrounds === 'function' ? backgrounds(row) : backgrounds[row];
  const marks = options.map((o) => {
    const tags = tagsOf(o.row);
    const at = o.digit ?? -1;
    return { at: tags?.[at], before: at > 0 ? tags?.[at - 1] : undefined };
  });
  const raised = marks.flatMap((m, k) =>
    m.at !== undefined && m.before !== undefined && m.at !== m.before ? [k] : []
  );
  if (raised.length === 1) return raised[0];
  if (raised.length > 1 || options.length < 3) return -1;
  const odd = marks.flatMap((m, k) => marks.every((n, j) => j === k || n.at !== m.at) ? [k] : []);
  const rest = marks.filter((_, k) => k !== odd[0]);
  return odd.length === 1 && rest.every((m) => m.at === rest[0].at) ? odd[0] : -1;
}

/**
 * Finds the prompt on `rows` (visible rows, top first). `backgrounds` (optional, per row the
 * background tag of each code unit: Terminal.rowBackgrounds, or a function giving a row's)
 * lets it see a selection drawn with a colour alone. A side panel beside the dialog (Claude
 * Code 2.1.332's diff panel right of a `│` in a wide pane) is cut off first
 * ({@link cutSidePanel}): nothing right of its divider is read.
 */
export function readPrompt(
  screenRows: readonly string[],
  backgrounds?: Backgrounds,
): Prompt {
  const rows = cutSidePanel(screenRows);
  const enter = readPressEnter(rows);
  if (enter) return enter;
  // The options: the last run of consecutively numbered lines 1., 2., ... on the screen.
  // An option's text wraps onto the next rows, indented at least as deep as its text starts
  // (Ink in a narrow pane: "  2. Yes, and always allow access to /" + "     tmp/proj ...").
  type Option = {
    row: number;
    end: number;
    text: string;
    marked: boolean;
    indent: number;
    digit?: number;
  };
  let options: Option[] = [];
  let current: Option[] = [];
  // The dialog's right edge: its widest row (its rules span it). A word longer than a row is
  // broken at that edge (Ink's wrap-ansi with `hard`: Claude Code 2.1.332 in a 40-column pane
  // breaks '/tmp/...' as 'access to /' + 'tmp/...'), so a row that reaches the edge with a
  // path at its end goes on without a blank.
  const edge = rows.reduce((w, r) => Math.max(w, r.length), 0);
  for (let i = 0; i < rows.length; i++) {
    const m = OPTION_AT.exec(rows[i]);
    if (!m) {
      const last = current[current.length - 1];
      const lead = rows[i].length - rows[i].trimStart().length;
      if (
        last && i === last.end + 1 && strip(rows[i]) && lead >= last.indent && !separator(rows[i])
      ) {
        const prev = rows[last.end].replace(/[\s│┃|█]+$/, '');
        const inPath = prev.length >= edge - 2 && /\S*[/\\]\S*$/.test(prev);
        last.text += (inPath ? '' : ' ') + strip(rows[i]);
        last.end = i;
      }
      continue;
    }
    const n = Number(m[2]);
    const indent = m.indices?.[3]?.[0] ?? 0;
    const digit = m.indices?.[2]?.[0];
    const option = {
      row: i,
      end: i,
      text: `${n}. ${m[3].replace(PICKED, '').replace(RULE_TAIL, '')}`,
      marked: m[1] !== undefined,
      indent,
      digit,
    };
    if (n === 1) current = [option];
    else if (current.length && n === current.length + 1) current.push(option);
    else continue;
    if (current.length >= 2 || n === 1) options = current;
  }
  // Numbered rows above Claude Code's input box, or typed into it (`❯ 1. Yes`), are no
  // dialog's options: the transcript, or a dialog not yet drawn whole ({@link inputBoxRow}).
  const box = inputBoxRow(rows);
  if (options.length && options[options.length - 1].row <= box) {
    return { question: '', options: [], selected: -1, layout: 'vertical', details: [] };
  }
  if (!options.length) options = unnumberedOptions(rows);
  if (!options.length) {
    const groups = readMarkedGroups(rows);
    if (groups) return groups;
  }
  if (!options.length) {
    const buttons = readButtonRow(rows, backgrounds);
    if (buttons) return buttons;
    const panel = readHintPanel(rows);
    if (panel) return panel;
    const notice = readEnterNotice(rows);
    if (notice) return notice;
  }
  // A list with no selection marker may show its selection with a colour alone (opencode
  // 1.18.33's question dialog draws the selected option's number on another background).
  let selected = options.findIndex((o) => o.marked);
  if (selected < 0 && options.length >= 2 && backgrounds) {
    selected = highlighted(options, backgrounds);
  }
  // The question is the dialog's: above its options, below the dialog's top rule. With no
  // options there is no dialog to read (a hook or OSC said blocked before it was drawn), and
  // a '?' line then is the agent's prose ("Would you like me to add a regression test?"),
  // not the prompt.
  const top = options.length ? options[0].row : -1;
  // A dialog drawn inside a left border (opencode's panels: `┃` down their left side) ends
  // where the border does: the transcript above it is not the dialog's.
  const floor = top >= 0 ? borderTop(rows, top) : 0;
  let question = '';
  let qRow = -1;
  for (let i = top - 1; i >= floor && i >= top - 20; i--) {
    if (fullRule(rows[i])) break;
    const line = strip(rows[i]);
    if (line.endsWith('?')) {
      question = line;
      qRow = i;
      break;
    }
  }
  // No row ends with '?': the last question inside a row of the dialog (Claude Code's trust
  // dialog: "Quick safety check: Is this a project you created or one you trust? (Like ...").
  for (let i = top - 1; !question && options.length && i >= floor && i >= top - 20; i--) {
    if (fullRule(rows[i])) break;
    const m = /(?:^|[.:!]\s+)([^.?!:]*\?)(?=\s|$)/u.exec(strip(rows[i]));
    if (m) {
      question = m[1].trim();
      qRow = i;
    }
  }
  // Still none, in a bordered panel: the panel's first line (a person's own rule's dialog
  // may ask without a '?': `┃  Pick a colour for the theme`), not a row of tabs.
  if (!question && options.length && /^\s*[┃│|]/u.test(rows[top])) {
    for (let i = floor; i < top; i++) {
      const line = strip(rows[i]);
      if (!line || separator(rows[i])) continue;
      if (!/\S {3,}\S/.test(line)) {
        question = line;
        qRow = i;
      }
      break;
    }
  }
  // A question wrapped in a narrow pane ("Do you want to" / "proceed?"): join the rows above
  // at the same indentation that continue its sentence (not a separator, not ending a
  // sentence of their own), while what we have starts in lower case.
  let qStart = qRow;
  const lead = (row: string) => row.length - row.trimStart().length;
  for (let i = qRow - 1; qRow > 0 && i >= 0 && qRow - i <= 2; i--) {
    const line = strip(rows[i]);
    if (!/^\p{Ll}/u.test(question)) break;
    if (!line || separator(rows[i]) || /[.?!:]$/.test(line) || lead(rows[i]) !== lead(rows[qRow])) {
      break;
    }
    question = `${line} ${question}`;
    qStart = i;
  }
  const details: string[] = [];
  let detailsCut = false;
  if (options.length) {
    let start = top - 1;
    // Up to the dialog's top: a full rule above it, or its own header row: Qwen Code 0.24's
    // and Gemini CLI's tool line `? Shell touch hello.txt ...` (Qwen 0.24 draws no box, and the
    // transcript above is not the dialog's).
    const header = (row: string) => /^\? \S/.test(strip(row));
    // Codex 0.171 draws no box: a transcript item (`• Running touch ...`, still waiting for
    // this very approval) or a past prompt (`› ...`) at column 0 is above its dialog, not in it.
    const transcript = (row: string) => /^[•›] \S/u.test(row);
    while (
      start > floor && top - start < 12 && !fullRule(rows[start - 1]) && !header(rows[start]) &&
      !transcript(rows[start - 1])
    ) {
      start--;
    }
    if (start === 0 && floor === 0 && !fullRule(rows[0]) && !header(rows[0])) detailsCut = true;
    for (let i = start; i < top && details.length < 8; i++) {
      const line = strip(rows[i]);
      if (
        !line || separator(rows[i]) || (i >= qStart && i <= qRow) || TIP.test(line) || art(line)
      ) continue;
      if (HIDDEN_ROWS.test(line)) detailsCut = true;
      details.push(line);
    }
  }
  return {
    question,
    options: options.map((o) => o.text),
    selected,
    layout: 'vertical',
    details,
    ...(detailsCut ? { detailsCut } : {}),
  };
}
