/**
 * Bytes -> actions: the DEC/ANSI parser state machine of vt100.net (Paul Williams, "A parser
 * for DEC's ANSI-compatible video terminals"), with UTF-8 decoding, one function per state,
 * and the transitions of xterm.js 6.0.0 (`src/common/parser/EscapeSequenceParser.ts`, MIT) so
 * that the screen matches the reference emulator byte for byte. The parser never imports the
 * screen: it reports to an {@link Actions} implementation (perform.ts).
 *
 * Incremental: `write` accepts chunks split anywhere (inside an escape sequence or a UTF-8
 * character) and gives the same actions as the unsplit stream. Bounded: 32 parameters
 * (further ones ignored, values clamped to 2^31-1), at most 3 bytes of a partial UTF-8
 * character and {@link MAX_PAYLOAD} bytes of an OSC/DCS string carried between chunks.
 * Never throws on input.
 *
 * Code points, not bytes, drive the states (as in xterm): a UTF-8 encoded C1 control
 * (U+0080..U+009F) acts as that control, and invalid UTF-8 bytes are dropped, as xterm's
 * decoder does (`src/common/input/TextDecoder.ts`).
 *
 * Why one file over 400 lines: it is one state machine, Williams's diagram, one function per
 * state sharing the parameter, intermediate and string buffers; split, a transition would
 * leave the file of its state, and the diagram could no longer be checked against one file.
 */

/** What the parser reports. Parameters are only valid during the call. */
export interface Actions {
  /**
   * Printable code points `codes[0..n)` (>= 0x20, never 0x7F..0x9F), in order. `cont` is
   * true when they continue the previous `print` with nothing in between (the run was only
   * cut by a chunk boundary or the code buffer's size).
   */
  print(codes: Uint32Array, n: number, cont: boolean): void;
  /**
   * The same for text read in place: prints what it can of the UTF-8 text at `data[start..)`
   * (at least printable ASCII and width-1 characters, valid and complete) and returns the
   * index of the first byte it left; returning `start` declines, and the parser hands the
   * characters to `print` instead.
   */
  printText(data: Uint8Array, start: number, len: number, cont: boolean): number;
  /** A C0 control (< 0x20) or a C1 control (0x80..0x9F) to execute. */
  execute(code: number): void;
  /**
   * A complete control sequence: `collect` packs the private marker and intermediates
   * (`(collect << 8) | byte` per byte, as xterm), `final` is the final byte; `params[0..n)`
   * holds the parameters (n >= 1; an empty parameter is 0; sub-parameters dropped).
   */
  csiDispatch(collect: number, final: number, params: Int32Array, n: number): void;
  /** An escape sequence: intermediates packed in `collect`, final byte `final`. */
  escDispatch(collect: number, final: number): void;
  /**
   * An ended OSC string: `data[0..len)` is its UTF-8 payload including the leading number
   * (at most {@link MAX_PAYLOAD} bytes kept). `success` is false when CAN/SUB aborted it;
   * `bel` when BEL (not ST) ended it.
   */
  oscDispatch(data: Uint8Array, len: number, success: boolean, bel: boolean): void;
  /** An ended DCS string: `ident` packs intermediates and final like `collect`; data as OSC. */
  dcsDispatch(ident: number, data: Uint8Array, len: number, success: boolean): void;
}

/** Longest OSC/DCS payload kept, in bytes; the rest is dropped. */
export const MAX_PAYLOAD = 4096;
/** Parameters kept per sequence (vte and xterm.js: 32). */
export const MAX_PARAMS = 32;
const MAX_VALUE = 0x7fffffff;
/** Code points handed to `print` at once (runs are split; the screen does not care). */
const CODES = 512;

// Parser states (vt100.net names).
const GROUND = 0;
const ESCAPE = 1;
const ESCAPE_INTERMEDIATE = 2;
const CSI_ENTRY = 3;
const CSI_PARAM = 4;
const CSI_INTERMEDIATE = 5;
const CSI_IGNORE = 6;
const SOS_PM_APC_STRING = 7;
const OSC_STRING = 8;
const DCS_ENTRY = 9;
const DCS_PARAM = 10;
const DCS_INTERMEDIATE = 11;
const DCS_IGNORE = 12;
const DCS_PASSTHROUGH = 13;

// Results of decoding one UTF-8 sequence besides a code point.
const DROPPED = -1;
const INCOMPLETE = -2;

const EMPTY = new Uint8Array(0);

/** The byte-stream state machine. */
export class Parser {
  private state = GROUND;
  private readonly params = new Int32Array(MAX_PARAMS);
  private nParams = 1;
  private inSub = false;
  private rejectDigits = false;
  private collect = 0;
  /** OSC/DCS payload, allocated on first use and grown up to MAX_PAYLOAD. */
  private payload: Uint8Array | null = null;
  private payloadLen = 0;
  private dcsIdent = 0;
  /** Bytes of a UTF-8 character split by the end of the previous chunk (<= 3). */
  private readonly partial = new Uint8Array(4);
  private partialLen = 0;
  /** Scratch for completing a split character: `partial` plus the next chunk's first bytes. */
  private readonly joined = new Uint8Array(4);
  private readonly codes = new Uint32Array(CODES);
  /** Result of the last `decode` call. */
  private cp = 0;
  /** The last action was a `print` cut only by the end of a chunk or of the code buffer. */
  private runOpen = false;

  constructor(private readonly actions: Actions) {}

  /** Bytes held in typed arrays (parameters, UTF-8 carry, print run, payload). */
  byteSize(): number {
    return this.params.byteLength + this.partial.byteLength + this.joined.byteLength +
      this.codes.byteLength + (this.payload ? this.payload.byteLength : 0);
  }

  /** Back to the ground state, as after power-up (RIS resets the parser too in xterm). */
  reset(): void {
    this.state = GROUND;
    this.clear();
    this.payloadLen = 0;
    this.partialLen = 0;
  }

  /** Feeds a chunk of bytes. */
  write(data: Uint8Array): void {
    const len = data.length;
    let i = 0;
    if (this.partialLen > 0) i = this.resumeUtf8(data);
    while (i < len) {
      switch (this.state) {
        case GROUND:
          i = this.ground(data, i, len);
          break;
        case ESCAPE:
          i = this.escape(data, i, len);
          break;
        case ESCAPE_INTERMEDIATE:
          i = this.escapeIntermediate(data, i, len);
          break;
        case CSI_ENTRY:
        case CSI_PARAM:
        case CSI_INTERMEDIATE:
        case CSI_IGNORE:
          i = this.csi(data, i, len);
          break;
        case OSC_STRING:
          i = this.oscString(data, i, len);
          break;
        case DCS_ENTRY:
        case DCS_PARAM:
        case DCS_INTERMEDIATE:
        case DCS_IGNORE:
          i = this.dcsHeader(data, i, len);
          break;
        case DCS_PASSTHROUGH:
          i = this.dcsPassthrough(data, i, len);
          break;
        default:
          i = this.sosPmApcString(data, i, len);
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // UTF-8

  /**
   * Decodes the sequence at data[i] (>= 0x80) into `this.cp` and returns the index after it.
   * Invalid sequences give DROPPED and consume what xterm's decoder consumes; a sequence cut
   * by the end of `data` gives INCOMPLETE, its bytes saved for the next chunk.
   */
  private decode(data: Uint8Array, i: number, len: number): number {
    const b1 = data[i];
    let need: number;
    let cp: number;
    if ((b1 & 0xe0) === 0xc0) {
      need = 1;
      cp = b1 & 0x1f;
    } else if ((b1 & 0xf0) === 0xe0) {
      need = 2;
      cp = b1 & 0x0f;
    } else if ((b1 & 0xf8) === 0xf0) {
      need = 3;
      cp = b1 & 0x07;
    } else {
      this.cp = DROPPED;
      return i + 1;
    }
    for (let k = 1; k <= need; k++) {
      if (i + k >= len) {
        for (let m = 0; m < k; m++) this.partial[m] = data[i + m];
        this.partialLen = k;
        this.cp = INCOMPLETE;
        return len;
      }
      const b = data[i + k];
      if ((b & 0xc0) !== 0x80) {
        this.cp = DROPPED;
        return i + k; // the offending byte is read again
      }
      cp = (cp << 6) | (b & 0x3f);
    }
    if (
      need === 1
        ? cp < 0x80
        : need === 2
        ? cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff) || cp === 0xfeff
        : cp < 0x10000 || cp > 0x10ffff
    ) {
      this.cp = DROPPED;
      return need === 1 ? i + 1 : i + need + 1; // xterm re-reads the second byte of a bad pair
    }
    this.cp = cp;
    return i + need + 1;
  }

  /** Completes the character split at the end of the last chunk; returns where `data` resumes. */
  private resumeUtf8(data: Uint8Array): number {
    const had = this.partialLen;
    const tmp = this.joined;
    tmp.set(this.partial.subarray(0, had));
    const take = Math.min(4 - had, data.length);
    for (let k = 0; k < take; k++) tmp[had + k] = data[k];
    this.partialLen = 0;
    const end = this.decode(tmp, 0, had + take);
    if (this.cp === INCOMPLETE) return data.length; // still short: all of data is now in `partial`
    if (this.cp >= 0) this.nonAscii(this.cp);
    return Math.max(0, end - had);
  }

  /** A decoded code point >= 0x80 in the current state (C1 controls, then per-state rules). */
  private nonAscii(cp: number): void {
    if (this.state !== GROUND) this.runOpen = false;
    if (cp < 0xa0) {
      this.runOpen = false;
      this.c1(cp);
      return;
    }
    switch (this.state) {
      case GROUND:
        this.codes[0] = cp;
        this.actions.print(this.codes, 1, this.runOpen);
        this.runOpen = true;
        return;
      case OSC_STRING:
      case DCS_PASSTHROUGH:
        this.putCodePoint(cp);
        break;
      case CSI_IGNORE:
      case DCS_IGNORE:
        break;
      default:
        // Not allowed here: xterm's table ends the sequence and drops the character.
        this.state = GROUND;
    }
  }

  /** C1 controls, the same in every state ("anywhere" transitions of the diagram). */
  private c1(cp: number): void {
    switch (cp) {
      case 0x9c: // ST
        if (this.state === OSC_STRING) this.oscEnd(true, false);
        else if (this.state === DCS_PASSTHROUGH) this.dcsEnd(true);
        this.state = GROUND;
        break;
      case 0x9b: // CSI
        this.clear();
        this.state = CSI_ENTRY;
        break;
      case 0x90: // DCS
        this.clear();
        this.state = DCS_ENTRY;
        break;
      case 0x9d: // OSC
        this.payloadLen = 0;
        this.state = OSC_STRING;
        break;
      case 0x98: // SOS
      case 0x9e: // PM
      case 0x9f: // APC
        this.state = SOS_PM_APC_STRING;
        break;
      default:
        this.state = GROUND;
        this.actions.execute(cp);
    }
  }

  // ---------------------------------------------------------------------------------------
  // States

  private clear(): void {
    this.params[0] = 0;
    this.nParams = 1;
    this.inSub = false;
    this.rejectDigits = false;
    this.collect = 0;
  }

  /** ESC, CAN and SUB from any state but the string states (which end their string first). */
  private anywhere(b: number): void {
    if (b === 0x1b) {
      this.clear();
      this.state = ESCAPE;
    } else {
      this.state = GROUND;
      this.actions.execute(b);
    }
  }

  /**
   * GROUND: runs of printable characters go to `print` at once; C0 controls execute;
   * DEL is ignored; ESC starts a sequence.
   */
  private ground(data: Uint8Array, i: number, len: number): number {
    const codes = this.codes;
    const actions = this.actions;
    let cont = this.runOpen;
    let n = 0;
    while (i < len) {
      const b = data[i];
      if (n === 0 && b >= 0x20 && b !== 0x7f) {
        // A run starting here is printed straight from the bytes as far as the screen can.
        const end = actions.printText(data, i, len, cont);
        if (end > i) {
          i = end;
          cont = true;
          continue;
        }
      }
      if (b >= 0x20 && b < 0x7f) {
        codes[n++] = b;
        i++;
        if (n === CODES) {
          actions.print(codes, n, cont);
          cont = true;
          n = 0;
        }
        continue;
      }
      if (b < 0x80) {
        if (n > 0) {
          actions.print(codes, n, cont);
          n = 0;
        }
        cont = false;
        i++;
        if (b === 0x1b) {
          this.runOpen = false;
          this.clear();
          if (i < len && data[i] === 0x5b) {
            // ESC [ : read the control sequence here and carry on with the text after it.
            this.state = CSI_ENTRY;
            i = this.csi(data, i + 1, len);
            if (this.state !== GROUND) return i;
            continue;
          }
          this.state = ESCAPE;
          return i;
        }
        if (b !== 0x7f) actions.execute(b);
        continue;
      }
      // Fast path: a complete, valid 2- or 3-byte character (box drawing, braille, CJK...).
      if (b >= 0xe0 && b < 0xf0 && i + 2 < len) {
        const b2 = data[i + 1];
        const b3 = data[i + 2];
        if ((b2 & 0xc0) === 0x80 && (b3 & 0xc0) === 0x80) {
          const cp = ((b & 0x0f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
          if (cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff) && cp !== 0xfeff) {
            codes[n++] = cp;
            i += 3;
            if (n === CODES) {
              actions.print(codes, n, cont);
              cont = true;
              n = 0;
            }
            continue;
          }
        }
      } else if (b >= 0xc2 && b < 0xe0 && i + 1 < len) {
        const b2 = data[i + 1];
        const cp = ((b & 0x1f) << 6) | (b2 & 0x3f);
        if ((b2 & 0xc0) === 0x80 && cp >= 0xa0) {
          codes[n++] = cp;
          i += 2;
          if (n === CODES) {
            actions.print(codes, n, cont);
            cont = true;
            n = 0;
          }
          continue;
        }
      }
      i = this.decode(data, i, len);
      const cp = this.cp;
      if (cp >= 0xa0) {
        codes[n++] = cp;
        if (n === CODES) {
          actions.print(codes, n, cont);
          cont = true;
          n = 0;
        }
      } else if (cp >= 0) {
        if (n > 0) {
          actions.print(codes, n, cont);
          n = 0;
        }
        cont = false;
        this.runOpen = false;
        this.c1(cp);
        if (this.state !== GROUND) return i;
      }
    }
    if (n > 0) {
      actions.print(codes, n, cont);
      cont = true;
    }
    this.runOpen = cont;
    return i;
  }

  /** ESCAPE: after ESC. `[` CSI, `]` OSC, `P` DCS, `X ^ _` strings, else an escape sequence. */
  private escape(data: Uint8Array, i: number, len: number): number {
    const b = data[i];
    if (b >= 0x80) return this.decodeNonAscii(data, i, len);
    if (b === 0x5b) {
      // Parameters and intermediates were cleared when ESC arrived.
      this.state = CSI_ENTRY;
      return this.csi(data, i + 1, len);
    }
    if (b === 0x5d) {
      this.payloadLen = 0;
      this.state = OSC_STRING;
      return i + 1;
    }
    if (b === 0x50) {
      this.clear();
      this.state = DCS_ENTRY;
      return i + 1;
    }
    if (b === 0x58 || b === 0x5e || b === 0x5f) {
      this.state = SOS_PM_APC_STRING;
      return i + 1;
    }
    if (b >= 0x30 && b < 0x7f) {
      this.state = GROUND;
      this.actions.escDispatch(this.collect, b);
    } else if (b >= 0x20 && b < 0x30) {
      this.collect = (this.collect << 8) | b;
      this.state = ESCAPE_INTERMEDIATE;
    } else if (b === 0x1b || b === 0x18 || b === 0x1a) {
      this.anywhere(b);
    } else if (b !== 0x7f) {
      this.actions.execute(b);
    }
    return i + 1;
  }

  /** ESCAPE_INTERMEDIATE: intermediates collected until a final byte. */
  private escapeIntermediate(data: Uint8Array, i: number, len: number): number {
    const b = data[i];
    if (b >= 0x80) return this.decodeNonAscii(data, i, len);
    if (b >= 0x30 && b < 0x7f) {
      this.state = GROUND;
      this.actions.escDispatch(this.collect, b);
    } else if (b >= 0x20 && b < 0x30) {
      this.collect = (this.collect << 8) | b;
    } else if (b === 0x1b || b === 0x18 || b === 0x1a) {
      this.anywhere(b);
    } else if (b !== 0x7f) {
      this.actions.execute(b);
    }
    return i + 1;
  }

  /** Decodes one non-ASCII sequence in a non-ground state and applies it. */
  private decodeNonAscii(data: Uint8Array, i: number, len: number): number {
    i = this.decode(data, i, len);
    if (this.cp >= 0) this.nonAscii(this.cp);
    return i;
  }

  /**
   * CSI_ENTRY, CSI_PARAM, CSI_INTERMEDIATE, CSI_IGNORE in one loop: parameters and
   * intermediates until a final byte dispatches. A private marker (`< = > ?`) counts only
   * as the first byte; C0 controls inside execute.
   */
  private csi(data: Uint8Array, i: number, len: number): number {
    let s = this.state;
    const params = this.params;
    // The parameter being read lives in `acc` and the count in `n` until the loop leaves.
    let n = this.nParams;
    let acc = params[n - 1];
    let skipDigits = this.inSub || this.rejectDigits;
    while (i < len) {
      const b = data[i++];
      if (b <= 0x39 && b >= 0x30) {
        if (s <= CSI_PARAM) {
          s = CSI_PARAM;
          if (!skipDigits) {
            acc = acc * 10 + b - 0x30;
            // The rest of the number in a tight loop (Infinity at worst, clamped below).
            while (i < len) {
              const d = data[i] - 0x30;
              if (d < 0 || d > 9) break;
              acc = acc * 10 + d;
              i++;
            }
            if (acc > MAX_VALUE) acc = MAX_VALUE;
          }
        } else if (s === CSI_INTERMEDIATE) {
          s = CSI_IGNORE;
        }
        continue;
      }
      if (b === 0x3b || b === 0x3a) {
        if (s <= CSI_PARAM) {
          s = CSI_PARAM;
          if (b === 0x3a) {
            this.inSub = skipDigits = true; // ':' sub-parameters are read and dropped
          } else {
            this.inSub = false;
            params[n - 1] = acc;
            if (n < MAX_PARAMS) {
              n++;
              acc = 0;
            } else {
              this.rejectDigits = true;
            }
            skipDigits = this.rejectDigits;
          }
        } else if (s === CSI_INTERMEDIATE) {
          s = CSI_IGNORE;
        }
        continue;
      }
      params[n - 1] = acc;
      this.nParams = n;
      if (b >= 0x40 && b < 0x7f) {
        this.state = GROUND;
        if (s !== CSI_IGNORE) this.actions.csiDispatch(this.collect, b, params, n);
        return i;
      }
      if (b >= 0x3c && b <= 0x3f) {
        if (s === CSI_ENTRY) {
          this.collect = (this.collect << 8) | b;
          s = CSI_PARAM;
        } else {
          s = CSI_IGNORE;
        }
      } else if (b >= 0x20 && b < 0x30) {
        if (s !== CSI_IGNORE) {
          this.collect = (this.collect << 8) | b;
          s = CSI_INTERMEDIATE;
        }
      } else if (b >= 0x80) {
        this.state = s;
        return this.decodeNonAscii(data, i - 1, len);
      } else if (b === 0x1b || b === 0x18 || b === 0x1a) {
        this.anywhere(b);
        return i;
      } else if (b !== 0x7f) {
        this.state = s;
        this.actions.execute(b);
      }
    }
    params[n - 1] = acc;
    this.nParams = n;
    this.state = s;
    return i;
  }

  /** Appends a payload byte, dropping it past MAX_PAYLOAD. */
  private put(b: number): void {
    let p = this.payload;
    if (p === null || this.payloadLen === p.length) {
      if (this.payloadLen >= MAX_PAYLOAD) return;
      const grown = new Uint8Array(p === null ? 256 : Math.min(MAX_PAYLOAD, p.length * 2));
      if (p !== null) grown.set(p);
      this.payload = p = grown;
    }
    p[this.payloadLen++] = b;
  }

  /** Appends the UTF-8 encoding of `cp` (>= 0xA0) to the payload. */
  private putCodePoint(cp: number): void {
    if (cp < 0x800) {
      this.put(0xc0 | (cp >> 6));
    } else if (cp < 0x10000) {
      this.put(0xe0 | (cp >> 12));
      this.put(0x80 | ((cp >> 6) & 0x3f));
    } else {
      this.put(0xf0 | (cp >> 18));
      this.put(0x80 | ((cp >> 12) & 0x3f));
      this.put(0x80 | ((cp >> 6) & 0x3f));
    }
    this.put(0x80 | (cp & 0x3f));
  }

  private oscEnd(success: boolean, bel: boolean): void {
    this.actions.oscDispatch(this.payload ?? EMPTY, this.payloadLen, success, bel);
    this.payloadLen = 0;
  }

  private dcsEnd(success: boolean): void {
    this.actions.dcsDispatch(this.dcsIdent, this.payload ?? EMPTY, this.payloadLen, success);
    this.payloadLen = 0;
  }

  /**
   * OSC_STRING: payload until BEL, ST (ESC \ or 0x9C), or CAN/SUB (abort). Other C0
   * controls are ignored; DEL is kept (xterm).
   */
  private oscString(data: Uint8Array, i: number, len: number): number {
    while (i < len) {
      const b = data[i];
      if (b >= 0x20 && b < 0x80) {
        this.put(b);
        i++;
        continue;
      }
      if (b >= 0x80) return this.decodeNonAscii(data, i, len);
      i++;
      if (b === 0x07) {
        this.state = GROUND;
        this.oscEnd(true, true);
        return i;
      }
      if (b === 0x1b) {
        this.oscEnd(true, false);
        this.clear();
        this.state = ESCAPE;
        return i;
      }
      if (b === 0x18 || b === 0x1a) {
        this.state = GROUND;
        this.oscEnd(false, false);
        return i;
      }
    }
    return i;
  }

  /** DCS_ENTRY, DCS_PARAM, DCS_INTERMEDIATE, DCS_IGNORE: the header up to the final byte. */
  private dcsHeader(data: Uint8Array, i: number, len: number): number {
    let s = this.state;
    while (i < len) {
      const b = data[i++];
      if (b >= 0x80) {
        this.state = s;
        return this.decodeNonAscii(data, i - 1, len);
      }
      if (b === 0x1b || b === 0x18 || b === 0x1a) {
        this.anywhere(b);
        return i;
      }
      if (s === DCS_IGNORE || b < 0x20 || b === 0x7f) continue;
      if (b >= 0x40) {
        this.dcsIdent = (this.collect << 8) | b;
        this.payloadLen = 0;
        this.state = DCS_PASSTHROUGH;
        return i;
      }
      if (b < 0x30) {
        this.collect = (this.collect << 8) | b;
        s = DCS_INTERMEDIATE;
      } else if (b <= 0x3b && s !== DCS_INTERMEDIATE) {
        s = DCS_PARAM; // parameters are not used by the DCS strings answered here
      } else if (b >= 0x3c && s === DCS_ENTRY) {
        this.collect = (this.collect << 8) | b;
        s = DCS_PARAM;
      } else {
        s = DCS_IGNORE;
      }
    }
    this.state = s;
    return i;
  }

  /** DCS_PASSTHROUGH: the data string until ST (ESC \ or 0x9C) or CAN/SUB (abort). */
  private dcsPassthrough(data: Uint8Array, i: number, len: number): number {
    while (i < len) {
      const b = data[i];
      if (b >= 0x80) return this.decodeNonAscii(data, i, len);
      i++;
      if (b === 0x1b) {
        this.dcsEnd(true);
        this.clear();
        this.state = ESCAPE;
        return i;
      }
      if (b === 0x18 || b === 0x1a) {
        this.state = GROUND;
        this.dcsEnd(false);
        return i;
      }
      if (b !== 0x7f) this.put(b);
    }
    return i;
  }

  /** SOS_PM_APC_STRING: ignored until ST (ESC \ or 0x9C); CAN/SUB abort. */
  private sosPmApcString(data: Uint8Array, i: number, len: number): number {
    while (i < len) {
      const b = data[i];
      if (b >= 0x80) return this.decodeNonAscii(data, i, len);
      i++;
      if (b === 0x1b || b === 0x18 || b === 0x1a) {
        this.anywhere(b);
        return i;
      }
    }
    return i;
  }
}
