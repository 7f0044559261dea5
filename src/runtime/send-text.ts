/**
 * What `send` may type: text, literally, and never a key. A control character is a key to the
 * application behind the pane (ESC starts Shift+Tab, `ESC [ Z`, which cycles Claude Code's
 * permission mode; CR is Enter and submits; Ctrl-C interrupts), so every one is refused, and
 * text that holds a line break or a tab is typed only as one bracketed paste (xterm's
 * bracketed paste mode, DECSET 2004: `CSI 200 ~` text `CSI 201 ~`), which an application that
 * enabled the mode reads as pasted text, not as keys; long text goes as a paste too. The Enter that submits is not part of
 * the text: the typing guard writes it on its own (src/runtime/typing-guard.ts).
 *
 * Pure: no I/O. The host checks every `send` here (it is the boundary); the CLI checks first
 * for a clear message before it connects.
 */
import { UserError } from '../errors.ts';

/** Exit code of text `send` refuses to type (a usage error: nothing was typed). */
export const SEND_TEXT_EXIT = 2;

/** xterm's bracketed paste start and end (DECSET 2004; xterm ctlseqs, "Bracketed Paste Mode"). */
export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/** A character `send` does not type, and where. */
export interface ForbiddenChar {
  /** Offset in characters (code points) from the start of the text, from 0. */
  offset: number;
  /** The code point. */
  code: number;
  /** How a person names it: `ESC (U+001B)`, `CR (U+000D, Enter)`, `U+0003 (Ctrl-C)`. */
  name: string;
}

const NAMES: Record<number, string> = {
  0x08: 'BS (U+0008, Backspace)',
  0x0d: 'CR (U+000D, Enter)',
  0x1b: 'ESC (U+001B)',
  0x7f: 'DEL (U+007F, Backspace)',
};

function hex(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The name of control character `code` for an error message. */
function controlName(code: number): string {
  if (NAMES[code]) return NAMES[code];
  if (code < 0x20) return `${hex(code)} (Ctrl-${String.fromCharCode(code + 0x40)})`;
  return `${hex(code)} (a C1 control)`;
}

/**
 * The first character of `text` that `send` never types, or null: a C0 control other than TAB
 * and LF (U+0000-U+001F: ESC, CR, Ctrl-C, ...), DEL (U+007F) or a C1 control (U+0080-U+009F,
 * which an 8-bit terminal reads as ESC sequences: U+009B is CSI). ECMA-48 5.2.
 */
export function forbiddenChar(text: string): ForbiddenChar | null {
  let offset = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f)) {
      return { offset, code, name: controlName(code) };
    }
    offset++;
  }
  return null;
}

/**
 * Throws the refusal for text that holds a character `send` never types.
 * @throws UserError (exit {@link SEND_TEXT_EXIT}) naming the first such character and its
 *   offset (characters from 0).
 */
export function checkSendText(text: string): void {
  const bad = forbiddenChar(text);
  if (bad) {
    throw new UserError(
      `send types text, never a key: ${bad.name} at offset ${bad.offset} is refused; nothing ` +
        'was typed (answer a prompt with `answer`; type keys in the pane itself)',
      SEND_TEXT_EXIT,
    );
  }
}

/**
 * Text longer than this (in UTF-16 code units) goes as one bracketed paste when the pane's
 * application enabled it, as a terminal sends a person's paste: typed key by key, Gemini CLI
 * 0.61.0 drew 284 characters 0.3 s after they came, 1,229 after 5 s and 2,715 not within
 * 20 s (then `send` found its text unread and gave up), while it drew a paste of 2,715 or
 * 4,875 characters within 2 s as `[Pasted Text: N chars]`.
 */
export const PASTE_OVER_CHARS = 256;

/**
 * True when {@link sendBytes} sends `text` as a bracketed paste once the application turned
 * bracketed paste on: it holds a line break or a tab, or is longer than
 * {@link PASTE_OVER_CHARS}.
 */
export function goesAsPaste(text: string): boolean {
  return text.length > PASTE_OVER_CHARS || /[\n\t]/.test(text);
}

/**
 * The bytes `send` writes for `text` (without the Enter): the text as UTF-8, or, when it holds
 * a line break or a tab, the text as one bracketed paste, only if the pane's application
 * enabled bracketed paste (`bracketedPaste`: DECSET 2004 is set on the pane's screen); text
 * longer than {@link PASTE_OVER_CHARS} as a paste too when it did, else as UTF-8.
 * @throws UserError (exit {@link SEND_TEXT_EXIT}) for a character `send` never types
 *   ({@link checkSendText}), or for multi-line text when bracketed paste is off (each line
 *   break would be an Enter, each tab a key).
 */
export function sendBytes(text: string, bracketedPaste: boolean): Uint8Array {
  checkSendText(text);
  if (!/[\n\t]/.test(text)) {
    const paste = bracketedPaste && goesAsPaste(text); // a long line
    return Buffer.from(paste ? PASTE_START + text + PASTE_END : text);
  }
  if (!bracketedPaste) {
    const [what, key] = text.includes('\n')
      ? ['multi-line text', 'each line break would be an Enter']
      : ['text with a tab', 'each tab would be a key (completion)'];
    throw new UserError(
      `${what} needs an application that enabled bracketed paste (DECSET 2004); this ` +
        `pane's did not, so ${key}: nothing was typed`,
      SEND_TEXT_EXIT,
    );
  }
  return Buffer.from(PASTE_START + text + PASTE_END);
}
