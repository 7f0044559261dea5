/**
 * Reads a blocked prompt's question and numbered options off a screen, for the board and for
 * the typing guard's messages. Pure. Works on the dialogs of the captured agents:
 * Claude Code 2.1.332 (`Do you want to proceed?` / `❯ 1. Yes` / `2. No`), Codex 0.171
 * (`Would you like to run the following command?` / `› 1. Yes, proceed (y)`), Gemini CLI and
 * Qwen Code (`Allow execution of ...?` / `● 1. Allow once`), opencode.
 */

/** A prompt as read from the screen. */
export interface Prompt {
  /** The last line ending with '?' above the options ('' when none). */
  question: string;
  /** The numbered options, in order, without the selection marker ('1. Yes'). */
  options: string[];
  /** Index into `options` of the one the selection marker (❯ › > ● ...) points at; -1 when none. */
  selected: number;
}

const OPTION = /^[\s│┃|]*([❯›>●◉▶→*]\s*)?(\d{1,2})[.)]\s+(.+?)[\s│┃|]*$/u;

/** Finds the prompt on `rows` (visible rows, top first). */
export function readPrompt(rows: readonly string[]): Prompt {
  // The options: the last run of consecutively numbered lines 1., 2., ... on the screen.
  type Option = { row: number; text: string; marked: boolean };
  let options: Option[] = [];
  let current: Option[] = [];
  for (let i = 0; i < rows.length; i++) {
    const m = OPTION.exec(rows[i]);
    if (!m) continue;
    const n = Number(m[2]);
    const option = { row: i, text: `${n}. ${m[3]}`, marked: m[1] !== undefined };
    if (n === 1) current = [option];
    else if (current.length && n === current.length + 1) current.push(option);
    else continue;
    if (current.length >= 2 || n === 1) options = current;
  }
  const top = options.length ? options[0].row : rows.length;
  let question = '';
  for (let i = top - 1; i >= 0 && i >= top - 20; i--) {
    const line = rows[i].replace(/^[\s│┃|]+|[\s│┃|]+$/g, '');
    if (line.endsWith('?')) {
      question = line;
      break;
    }
  }
  return {
    question,
    options: options.map((o) => o.text),
    selected: options.findIndex((o) => o.marked),
  };
}
