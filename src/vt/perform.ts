/**
 * The one place where a parsed sequence becomes a screen method (`CSI A` -> `cuu`), a reply
 * or a piece of metadata (title, OSC payloads). Sequences that change neither the screen nor
 * a reply (SGR, mouse and keyboard modes, cursor style) are recognised and dropped; unknown
 * ones only increase {@link Perform.unknownSequences}.
 *
 * Sources: ECMA-48 5th ed. (control functions), DEC STD 070 (DEC private functions), xterm
 * ctlseqs (xterm extensions and replies), kitty's keyboard protocol (`CSI ? u`), and
 * xterm.js 6.0.0 `src/common/InputHandler.ts` for the exact behaviour the tests compare to.
 *
 * Why one file over 400 lines: it is one dispatch table, the map from every sequence the
 * parser reports to what it does. Kept whole, a sequence is looked up in one place and the
 * table reads beside the standards it cites; split, the same final byte would be decided in
 * two files.
 */
import { type Actions, MAX_PAYLOAD } from './parser.ts';
import { CHARSET_ASCII, charsetFor } from './charset.ts';
import type { Screen } from './screen.ts';
import { CELL_PIXELS, DYNAMIC_COLORS, paletteColor, Replies, rgbSpec } from './replies.ts';

/** Most distinct OSC numbers remembered; the oldest is forgotten first. */
export const MAX_OSC_NUMBERS = 64;
/** Most entries on the kitty keyboard flags stack. */
const MAX_KEYBOARD_STACK = 16;

const ESC = '\x1b';
const ST = '\x1b\\';

// `collect` values: private marker / intermediate bytes packed as the parser does.
const Q = 0x3f; // '?'
const GT = 0x3e; // '>'
const LT = 0x3c; // '<'
const EQ = 0x3d; // '='
const SP = 0x20; // ' '
const BANG = 0x21; // '!'
const DQUOTE = 0x22; // '"'
const DOLLAR = 0x24; // '$'
const QUOTE = 0x27; // "'"
const Q_DOLLAR = (Q << 8) | DOLLAR;
const PLUS_Q = (0x2b << 8) | 0x71; // DCS + q
const DOLLAR_Q = (DOLLAR << 8) | 0x71; // DCS $ q

/** G0..G3 slot designated by an SCS intermediate (xterm GLEVEL: ( ) * + - .). */
function scsSlot(collect: number): number {
  switch (collect) {
    case 0x28: // (
      return 0;
    case 0x29: // )
    case 0x2d: // -
      return 1;
    case 0x2a: // *
    case 0x2e: // .
      return 2;
    case 0x2b: // +
      return 3;
    default:
      return -1;
  }
}

/**
 * UTF-16 code units of one payload being decoded (shared scratch: decoding is synchronous
 * and never re-entered; a payload of MAX_PAYLOAD bytes gives at most as many units).
 */
const UNITS = new Uint16Array(MAX_PAYLOAD);

/** Decodes valid UTF-8 bytes (the parser stores only valid sequences; a cut one is dropped). */
function utf8String(data: Uint8Array, from: number, to: number): string {
  const units = UNITS;
  let n = 0;
  let i = from;
  while (i < to) {
    const b = data[i];
    if (b < 0x80) {
      units[n++] = b;
      i++;
      continue;
    }
    const need = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
    if (i + need >= to) break;
    let cp = b & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= need; k++) cp = (cp << 6) | (data[i + k] & 0x3f);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      units[n++] = 0xd800 + (cp >> 10);
      units[n++] = 0xdc00 + (cp & 0x3ff);
    } else {
      units[n++] = cp;
    }
    i += need + 1;
  }
  // At most MAX_PAYLOAD (4096) arguments: within every engine's limit.
  return String.fromCharCode.apply(null, units.subarray(0, n) as unknown as number[]);
}

/** Implements the parser's {@link Actions} on a {@link Screen}. */
export class Perform implements Actions {
  /** Bumped whenever an entry of {@link osc} changes. */
  oscVersion = 0;
  /** Bumped whenever the title (OSC 0 or 2) changes. */
  titleVersion = 0;
  /** Bumped whenever the payload of an OSC other than 0, 1, 2 (title, icon name) changes. */
  otherOscVersion = 0;
  /** Window title (OSC 0 / OSC 2), '' until set. */
  title = '';
  /** Latest payload per OSC number (without the number and ';'). */
  readonly osc: Map<number, string> = new Map();
  /** Unhandled control sequences seen (a counter, never a log line). */
  unknownSequences = 0;
  /** Bytes to send back to the program. */
  readonly replies: Replies = new Replies();
  /** Replies to queries that no real terminal answers (agentwatch's own: OSC 7501). */
  readonly extensionReplies: Replies = new Replies();

  // Modes that change no cell but are reported by DECRQM (xterm's defaults).
  /** SGR background as last set (0 default; see {@link sgr}) and inverse video. */
  private sgrBg = 0;
  private sgrInverse = false;
  private appCursorKeys = false;
  private appKeypad = false;
  private cursorBlink = false;
  private cursorHidden = false;
  private cursorStyle = 0;
  private mouseProtocol = 0;
  private mouseEncoding = 0;
  private sendFocus = false;
  /** Bracketed paste (DECSET 2004): whoever types into the program may paste in brackets. */
  bracketedPaste = false;
  /** Synchronized output (DEC mode 2026): the program is drawing a frame, not done yet. */
  syncOutput = false;
  /** kitty keyboard protocol flags stack (`CSI > flags u` pushes, `CSI < n u` pops). */
  private keyboardStack: number[] = [];

  constructor(private readonly screen: Screen) {}

  /** Current kitty keyboard protocol flags (0: legacy key encoding). */
  get keyboardFlags(): number {
    const s = this.keyboardStack;
    return s.length ? s[s.length - 1] : 0;
  }

  print(codes: Uint32Array, n: number, cont: boolean): void {
    this.screen.print(codes, n, cont);
  }

  printText(data: Uint8Array, start: number, len: number, cont: boolean): number {
    return this.screen.printText(data, start, len, cont);
  }

  /** C0 and C1 controls (ECMA-48 section 8.3 / ECMA-35). */
  execute(code: number): void {
    const s = this.screen;
    switch (code) {
      case 0x08: // BS
        s.bs();
        break;
      case 0x09: // HT
        s.ht();
        break;
      case 0x0a: // LF
      case 0x0b: // VT
      case 0x0c: // FF
        s.lf();
        break;
      case 0x0d: // CR
        s.cr();
        break;
      case 0x0e: // SO: invoke G1 (LS1)
        s.setGLevel(1);
        break;
      case 0x0f: // SI: invoke G0 (LS0)
        s.setGLevel(0);
        break;
      case 0x84: // IND
        s.ind();
        break;
      case 0x85: // NEL
        s.nel();
        break;
      case 0x88: // HTS
        s.hts();
        break;
      default: // BEL and the rest: nothing on screen
    }
    s.joinWidth = 0;
  }

  csiDispatch(collect: number, final: number, params: Int32Array, n: number): void {
    // SGR, by far the most frequent sequence, only sets the background tag.
    if (final === 0x6d && collect === 0) this.sgr(params, n);
    else if (!this.csi(collect, final, params, n)) this.unknownSequences++;
    this.screen.joinWidth = 0;
  }

  /**
   * CSI Pm m SGR (ECMA-48 8.3.117; xterm ctlseqs "Character Attributes"): of all attributes
   * only the background is kept, as a tag printed cells carry (grid.ts `bg`): 0 default,
   * 255 inverse video (7 on, 27 off), else a hash (1..254) of the colour: 40-47, 100-107,
   * `48;5;N`, `48;2;R;G;B`, or `48` whose `:` sub-parameters the parser dropped. 0 (or no
   * parameter) and 49 reset it.
   */
  private sgr(params: Int32Array, n: number): void {
    let bg = this.sgrBg;
    let inverse = this.sgrInverse;
    if (n === 0) {
      bg = 0;
      inverse = false;
    }
    for (let i = 0; i < n; i++) {
      const p = params[i];
      if (p === 0) {
        bg = 0;
        inverse = false;
      } else if (p === 7) inverse = true;
      else if (p === 27) inverse = false;
      else if ((p >= 40 && p <= 47) || (p >= 100 && p <= 107)) bg = p;
      else if (p === 49) bg = 0;
      else if (p === 38 || p === 48 || p === 58) {
        // an extended colour: skip its parameters whichever it sets
        let v = 0x1000000; // `48` alone: its colour came as dropped sub-parameters
        if (params[i + 1] === 5 && i + 2 < n) {
          v = 0x100 | (params[i + 2] & 0xff);
          i += 2;
        } else if (params[i + 1] === 2 && i + 4 < n) {
          v = ((params[i + 2] & 0xff) << 16) | ((params[i + 3] & 0xff) << 8) |
            (params[i + 4] & 0xff);
          i += 4;
        }
        if (p === 48) bg = 0x2000000 | v;
      }
    }
    this.sgrBg = bg;
    this.sgrInverse = inverse;
    this.screen.bgTag = inverse
      ? 255
      : bg === 0
      ? 0
      : 1 + ((Math.imul(bg, 0x9e3779b1) >>> 8) % 254);
  }

  /** Runs one control sequence; false when it is not known. */
  private csi(collect: number, final: number, params: Int32Array, n: number): boolean {
    const s = this.screen;
    const p0 = params[0];
    const n1 = p0 || 1;
    if (collect === 0) {
      switch (final) {
        case 0x40: // @ ICH
          s.ich(n1);
          return true;
        case 0x41: // A CUU
          s.cuu(n1);
          return true;
        case 0x42: // B CUD
          s.cud(n1);
          return true;
        case 0x43: // C CUF
          s.cuf(n1);
          return true;
        case 0x44: // D CUB
          s.cub(n1);
          return true;
        case 0x45: // E CNL
          s.cnl(n1);
          return true;
        case 0x46: // F CPL
          s.cpl(n1);
          return true;
        case 0x47: // G CHA
        case 0x60: // ` HPA
          s.cha(n1);
          return true;
        case 0x48: // H CUP
        case 0x66: // f HVP
          s.cup(n1, n >= 2 ? params[1] || 1 : 1);
          return true;
        case 0x49: // I CHT
          s.cht(n1);
          return true;
        case 0x4a: // J ED
          s.ed(p0);
          return true;
        case 0x4b: // K EL
          s.el(p0);
          return true;
        case 0x4c: // L IL
          s.il(n1);
          return true;
        case 0x4d: // M DL
          s.dl(n1);
          return true;
        case 0x50: // P DCH
          s.dch(n1);
          return true;
        case 0x53: // S SU
          s.su(n1);
          return true;
        case 0x54: // T SD
          s.sd(n1);
          return true;
        case 0x58: // X ECH
          s.ech(n1);
          return true;
        case 0x5a: // Z CBT
          s.cbt(n1);
          return true;
        case 0x61: // a HPR
          s.hpr(n1);
          return true;
        case 0x62: // b REP
          s.rep(n1);
          return true;
        case 0x63: // c DA1
          if (p0 === 0) this.replies.push(`${ESC}[?1;2c`);
          return true;
        case 0x64: // d VPA
          s.vpa(n1);
          return true;
        case 0x65: // e VPR
          s.vpr(n1);
          return true;
        case 0x67: // g TBC
          s.tbc(p0);
          return true;
        case 0x68: // h SM
          for (let i = 0; i < n; i++) this.setAnsiMode(params[i], true);
          return true;
        case 0x6c: // l RM
          for (let i = 0; i < n; i++) this.setAnsiMode(params[i], false);
          return true;
        case 0x6e: // n DSR
          this.dsr(p0, false);
          return true;
        case 0x72: // r DECSTBM
          s.decstbm(n1, n >= 2 ? params[1] : 0);
          return true;
        case 0x73: // s SCOSC
          s.decsc();
          return true;
        case 0x74: // t XTWINOPS: the size reports are answered, the rest ignored
          this.windowReport(p0);
          return true;
        case 0x75: // u SCORC
          s.decrc();
          return true;
      }
      return false;
    }
    if (collect === Q) {
      switch (final) {
        case 0x4a: // ? J DECSED (no protected cells: same as ED)
          s.ed(p0);
          return true;
        case 0x4b: // ? K DECSEL
          s.el(p0);
          return true;
        case 0x68: // ? h DECSET
          for (let i = 0; i < n; i++) this.setDecMode(params[i], true);
          return true;
        case 0x6c: // ? l DECRST
          for (let i = 0; i < n; i++) this.setDecMode(params[i], false);
          return true;
        case 0x6e: // ? n DECDSR
          this.dsr(p0, true);
          return true;
        case 0x75: // ? u kitty keyboard: query flags
          this.replies.push(`${ESC}[?${this.keyboardFlags}u`);
          return true;
      }
      return false;
    }
    switch (collect) {
      case GT:
        if (final === 0x63) { // > c DA2
          if (p0 === 0) this.replies.push(`${ESC}[>0;276;0c`);
          return true;
        }
        if (final === 0x71) { // > q XTVERSION
          if (p0 === 0) this.replies.push(`${ESC}P>|agentwatch${ST}`);
          return true;
        }
        if (final === 0x75) { // > u kitty keyboard: push flags
          if (this.keyboardStack.length >= MAX_KEYBOARD_STACK) this.keyboardStack.shift();
          this.keyboardStack.push(p0);
          return true;
        }
        return final === 0x6d || final === 0x6e; // XTMODKEYS set / reset: ignored
      case LT:
        if (final === 0x75) { // < u kitty keyboard: pop
          this.keyboardStack.length = Math.max(0, this.keyboardStack.length - n1);
          return true;
        }
        return false;
      case EQ:
        if (final === 0x75) { // = u kitty keyboard: set (1), or (2), clear (3) flags
          const st = this.keyboardStack;
          if (st.length === 0) st.push(0);
          const mode = n >= 2 ? params[1] || 1 : 1;
          const cur = st[st.length - 1];
          st[st.length - 1] = mode === 1
            ? p0
            : mode === 2
            ? cur | p0
            : mode === 3
            ? cur & ~p0
            : cur;
          return true;
        }
        return false;
      case SP:
        if (final === 0x40) s.sl(n1); // SP @ SL
        else if (final === 0x41) s.sr(n1); // SP A SR
        else if (final === 0x71) this.cursorStyle = p0; // SP q DECSCUSR
        else return false;
        return true;
      case BANG:
        if (final !== 0x70) return false;
        s.decstr(); // ! p DECSTR
        this.resetModes(false);
        return true;
      case DQUOTE:
        return final === 0x71; // " q DECSCA: protection is not modelled
      case QUOTE:
        if (final === 0x7d) s.decic(n1); // ' } DECIC
        else if (final === 0x7e) s.decdc(n1); // ' ~ DECDC
        else return false;
        return true;
      case DOLLAR:
        if (final !== 0x70) return false;
        this.replies.push(`${ESC}[${p0};${this.ansiModeValue(p0)}$y`); // $ p DECRQM (ANSI)
        return true;
      case Q_DOLLAR:
        if (final !== 0x70) return false;
        this.replies.push(`${ESC}[?${p0};${this.decModeValue(p0)}$y`); // ? $ p DECRQM (DEC)
        return true;
    }
    return false;
  }

  /**
   * XTWINOPS size reports (xterm ctlseqs, "Window manipulation", `CSI Ps t`): 14 text area in
   * pixels (`CSI 4 ; height ; width t`), 16 cell size in pixels (`CSI 6 ; height ; width t`),
   * 18 text area in cells (`CSI 8 ; rows ; cols t`), 19 screen in cells (`CSI 9 ; rows ; cols
   * t`: the pane is the whole screen). Pixels assume {@link CELL_PIXELS}. Other operations
   * (move, resize, iconify, title stack) change nothing here.
   */
  private windowReport(p: number): void {
    const { rows, cols } = this.screen;
    const { height, width } = CELL_PIXELS;
    if (p === 14) this.replies.push(`${ESC}[4;${rows * height};${cols * width}t`);
    else if (p === 16) this.replies.push(`${ESC}[6;${height};${width}t`);
    else if (p === 18) this.replies.push(`${ESC}[8;${rows};${cols}t`);
    else if (p === 19) this.replies.push(`${ESC}[9;${rows};${cols}t`);
  }

  /** CSI 5 n / CSI 6 n (DSR, ECMA-48 8.3.35) and CSI ? 6 n (DECXCPR): 1-based cursor. */
  private dsr(p: number, dec: boolean): void {
    if (p === 5 && !dec) {
      this.replies.push(`${ESC}[0n`);
    } else if (p === 6) {
      const g = this.screen.g;
      const col = Math.min(g.x, this.screen.cols - 1) + 1;
      this.replies.push(`${ESC}[${dec ? '?' : ''}${g.y + 1};${col}R`);
    }
  }

  /** SM / RM (ECMA-48 8.3.125 / 8.3.106): IRM (4) and LNM (20) change the screen. */
  private setAnsiMode(mode: number, on: boolean): void {
    if (mode === 4) this.screen.insertMode = on;
    else if (mode === 20) this.screen.newline = on;
  }

  /** DECSET / DECRST (xterm ctlseqs "DEC Private Mode Set"). */
  private setDecMode(mode: number, on: boolean): void {
    const s = this.screen;
    switch (mode) {
      case 1:
        this.appCursorKeys = on;
        break;
      case 2: // DECANM set: xterm resets G0..G3 to ASCII
        if (on) { for (let g = 0; g < 4; g++) s.designate(g, CHARSET_ASCII); }
        break;
      case 6:
        s.setOrigin(on);
        break;
      case 7:
        s.wraparound = on;
        break;
      case 12:
        this.cursorBlink = on;
        break;
      case 25:
        this.cursorHidden = !on;
        break;
      case 45:
        s.reverseWraparound = on;
        break;
      case 66:
        this.appKeypad = on;
        break;
      case 9:
      case 1000:
      case 1002:
      case 1003:
        this.mouseProtocol = on ? mode : 0;
        break;
      case 1004:
        this.sendFocus = on;
        break;
      case 1006:
      case 1016:
        this.mouseEncoding = on ? mode : 0;
        break;
      case 1048:
        if (on) s.decsc();
        else s.decrc();
        break;
      case 1049:
      case 47:
      case 1047:
        if (on) {
          if (mode === 1049) s.decsc();
          s.enterAlt();
        } else {
          s.leaveAlt();
          if (mode === 1049) s.decrc();
        }
        break;
      case 2004:
        this.bracketedPaste = on;
        break;
      case 2026:
        this.syncOutput = on;
        break;
    }
  }

  /** DECRPM value for an ANSI mode: 0 unknown, 1 set, 2 reset, 3 always set, 4 always reset. */
  private ansiModeValue(mode: number): number {
    switch (mode) {
      case 2:
        return 4;
      case 4:
        return this.screen.insertMode ? 1 : 2;
      case 12:
        return 3;
      case 20:
        return this.screen.newline ? 1 : 2;
    }
    return 0;
  }

  /** DECRPM value for a DEC private mode (as xterm.js reports them). */
  private decModeValue(mode: number): number {
    const s = this.screen;
    const v = (on: boolean) => (on ? 1 : 2);
    switch (mode) {
      case 1:
        return v(this.appCursorKeys);
      case 6:
        return v(s.origin);
      case 7:
        return v(s.wraparound);
      case 8:
        return 3;
      case 9:
      case 1000:
      case 1002:
      case 1003:
        return v(this.mouseProtocol === mode);
      case 12:
        return v(this.cursorBlink);
      case 25:
        return v(!this.cursorHidden);
      case 45:
        return v(s.reverseWraparound);
      case 66:
        return v(this.appKeypad);
      case 67:
      case 1005:
      case 1015:
        return 4;
      case 1004:
        return v(this.sendFocus);
      case 1006:
      case 1016:
        return v(this.mouseEncoding === mode);
      case 1048:
        return 1;
      case 47:
      case 1047:
      case 1049:
        return v(s.altScreen);
      case 2004:
        return v(this.bracketedPaste);
      case 2026:
        return v(this.syncOutput);
    }
    return 0;
  }

  /** Resets the non-screen modes: DECSTR (`all` false) or RIS (`all` true, also mouse and keyboard). */
  private resetModes(all: boolean): void {
    this.appCursorKeys = false;
    this.appKeypad = false;
    this.cursorBlink = false;
    this.cursorHidden = false;
    this.sendFocus = false;
    this.bracketedPaste = false;
    this.syncOutput = false;
    this.cursorStyle = 0;
    this.sgrBg = 0;
    this.sgrInverse = false;
    this.screen.bgTag = 0;
    if (all) {
      this.mouseProtocol = 0;
      this.mouseEncoding = 0;
      this.keyboardStack = [];
    }
  }

  escDispatch(collect: number, final: number): void {
    if (!this.esc(collect, final)) this.unknownSequences++;
    this.screen.joinWidth = 0;
  }

  /** Runs one escape sequence (ECMA-48 5.3, DEC STD 070); false when it is not known. */
  private esc(collect: number, final: number): boolean {
    const s = this.screen;
    if (collect === 0) {
      switch (final) {
        case 0x37: // 7 DECSC
          s.decsc();
          return true;
        case 0x38: // 8 DECRC
          s.decrc();
          return true;
        case 0x44: // D IND
          s.ind();
          return true;
        case 0x45: // E NEL
          s.nel();
          return true;
        case 0x48: // H HTS
          s.hts();
          return true;
        case 0x4d: // M RI
          s.ri();
          return true;
        case 0x3d: // = DECKPAM
        case 0x3e: // > DECKPNM
          this.appKeypad = final === 0x3d;
          return true;
        case 0x63: // c RIS
          s.ris();
          this.resetModes(true);
          return true;
        case 0x6e: // n LS2
        case 0x7d: // } LS2R
          s.setGLevel(2);
          return true;
        case 0x6f: // o LS3
        case 0x7c: // | LS3R
          s.setGLevel(3);
          return true;
        case 0x7e: // ~ LS1R
          s.setGLevel(1);
          return true;
        case 0x5c: // \ ST: the end of a string already handled
          return true;
      }
      return false;
    }
    if (collect === 0x25) { // % @ / % G: select the default (UTF-8) charset
      if (final !== 0x40 && final !== 0x47) return false;
      s.setGLevel(0);
      s.designate(0, CHARSET_ASCII);
      return true;
    }
    if (collect === 0x23) { // # 8 DECALN
      if (final !== 0x38) return false;
      s.decaln();
      return true;
    }
    const id = charsetFor(final);
    if (id < 0) return false;
    if (collect === 0x2f) return true; // '/' 96-character sets: accepted, not applied (xterm)
    const slot = scsSlot(collect);
    if (slot < 0) return false;
    s.designate(slot, id);
    return true;
  }

  oscDispatch(data: Uint8Array, len: number, success: boolean, bel: boolean): void {
    this.screen.joinWidth = 0;
    if (!success) return;
    // The number: digits up to ';' (xterm OscParser: anything else aborts the string).
    let id = -1;
    let i = 0;
    for (; i < len; i++) {
      const b = data[i];
      if (b === 0x3b) break;
      if (b < 0x30 || b > 0x39) {
        this.unknownSequences++;
        return;
      }
      id = id < 0 ? b - 0x30 : Math.min(id * 10 + b - 0x30, 0x7fffffff);
    }
    if (id < 0) {
      this.unknownSequences++;
      return;
    }
    const payload = i < len ? utf8String(data, i + 1, len) : '';
    this.setOsc(id, payload);
    const end = bel ? '\x07' : ST;
    switch (id) {
      case 0:
      case 2:
        if (this.title !== payload) {
          this.title = payload;
          this.titleVersion++;
          this.screen.version++;
        }
        break;
      case 4: // OSC 4 ; index ; spec ...: report palette entries asked with '?'
        {
          const slots = payload.split(';');
          for (let k = 0; k + 1 < slots.length; k += 2) {
            if (!/^\d+$/.test(slots[k]) || slots[k + 1] !== '?') continue;
            const index = Number(slots[k]);
            if (index > 255) continue;
            this.replies.push(`${ESC}]4;${index};${rgbSpec(paletteColor(index))}${end}`);
          }
        }
        break;
      case 7501: // OSC 7501 ; ? : a program asks whether the terminal takes its state reports
        // Claude Code 2.1.332 probes it at start-up and, once answered with the probe itself,
        // reports `OSC 7501 ; state=idle|working|blocked|done : app=claude-code ...` (seen on the
        // real binary, test/claude-real.test.ts). No terminal answers it, so it goes to the
        // extension queue, which the runtime answers even when a real terminal is attached.
        if (payload === '?') this.extensionReplies.push(`${ESC}]7501;?${end}`);
        break;
      // OSC 10..19 dynamic colours (xterm ctlseqs): each '?' slot asks for the colour of its
      // number, the following slots for the next numbers (`OSC 10 ; ? ; ?` asks 10 and 11)
      case 10:
      case 11:
      case 12:
      case 13:
      case 14:
      case 15:
      case 16:
      case 17:
      case 18:
      case 19: {
        const slots = payload.split(';');
        for (let k = 0, c = id - 10; k < slots.length && c < DYNAMIC_COLORS.length; k++, c++) {
          if (slots[k] === '?') {
            this.replies.push(`${ESC}]${10 + c};${rgbSpec(DYNAMIC_COLORS[c])}${end}`);
          }
        }
        break;
      }
    }
  }

  /** Remembers the latest payload of OSC `id`, forgetting the oldest number beyond the bound. */
  private setOsc(id: number, payload: string): void {
    const map = this.osc;
    if (map.get(id) === payload) return;
    map.delete(id);
    if (map.size >= MAX_OSC_NUMBERS) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
    map.set(id, payload);
    this.oscVersion++;
    if (id !== 0 && id !== 1 && id !== 2) this.otherOscVersion++;
    this.screen.version++;
  }

  dcsDispatch(ident: number, data: Uint8Array, len: number, success: boolean): void {
    this.screen.joinWidth = 0;
    if (!success) return;
    const text = utf8String(data, 0, len);
    if (ident === DOLLAR_Q) {
      // DECRQSS (DEC STD 070; xterm `requestStatusString`): a few settings, else "invalid".
      const g = this.screen.g;
      let reply: string | null = null;
      if (text === 'm') reply = '0m';
      else if (text === 'r') reply = `${g.scrollTop + 1};${g.scrollBottom + 1}r`;
      else if (text === ' q') reply = `${this.cursorStyle || 2} q`;
      else if (text === '"q') reply = '0"q';
      else if (text === '"p') reply = '61;1"p';
      this.replies.push(reply === null ? `${ESC}P0$r${ST}` : `${ESC}P1$r${reply}${ST}`);
    } else if (ident === PLUS_Q) {
      // XTGETTCAP: no terminfo here, every capability is reported as unknown.
      this.replies.push(`${ESC}P0+r${text.replace(/[^0-9A-Fa-f;]/g, '')}${ST}`);
    } else {
      this.unknownSequences++;
    }
  }
}
