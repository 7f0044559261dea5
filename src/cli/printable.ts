/**
 * Text from sessions made safe to print on the person's terminal: escape sequences and
 * control characters removed (a session's name, question or error can hold anything), and
 * ages written into reasons dropped. Every command that prints what a session said uses it.
 */

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
  const t = String(text);
  // Every sequence removed starts with a control character: without one, nothing changes.
  if (!CONTROL.test(t)) return t;
  return t.replace(ESCAPE_SEQUENCES, '').replace(/[\t\n\r]/g, ' ').replace(CONTROLS, '');
}

/** A C0, DEL or C1 control character (an escape sequence starts with one). */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
const CONTROLS = /[\x00-\x1f\x7f-\x9f]/g;

/** Whether {@link printable} would leave `text` as it is (it holds no control character). */
export function isPrintable(text: string): boolean {
  return !CONTROL.test(text);
}

/**
 * `text` with each line made {@link printable} and its line breaks kept: for multi-line text
 * that came from a session (an error quoting a prompt, `explain`'s screen and rules).
 */
export function printableLines(text: string): string {
  return String(text).split('\n').map(printable).join('\n');
}

/**
 * `reason` without an age written into it (`hook Stop (3.2 s ago)`, as hosts of earlier
 * versions published a report's reason): an age in a string is only true when it was
 * written, and the board shows a reason for as long as it holds. The board and `ls` compute
 * times when they draw them, from `since`.
 */
export function ageless(reason: string): string {
  return reason.replace(AGE, '');
}

const AGE = /\s*\(\d+(?:\.\d+)?\s*s ago\)/g;

/** Whether {@link ageless} would leave `reason` as it is. */
export function isAgeless(reason: string): boolean {
  return !/\(\d+(?:\.\d+)?\s*s ago\)/.test(reason);
}

/** Removes SGR sequences (for tests and width checks). */
export function stripSgr(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}
