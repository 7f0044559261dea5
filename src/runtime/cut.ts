/**
 * Cuts a fixture out of a recording: the bytes that show the screen of one moment, decodable
 * from byte 0. Either every byte up to that moment, or the bytes from the last full redraw
 * before it (`ESC[2J` or RIS, with the mode settings written just before it), when those alone
 * give the same screen, title and state as the whole session replayed to that moment with
 * its resizes. No I/O: `cli/cut.ts` reads and writes the files.
 */
import type { Manifest } from '../detect/manifest.ts';
import { evaluate } from '../detect/evaluate.ts';
import type { RuleState } from '../detect/types.ts';
import { Terminal } from '../vt/terminal.ts';
import type { Recording } from './recording.ts';

/** A cut fixture. */
export interface Cut {
  /** The fixture's bytes. */
  bytes: Uint8Array;
  /** 'redraw' when they start at a full redraw, 'start' when they are the whole session so far. */
  from: 'redraw' | 'start';
  /** Where they start in the session's byte stream, and how many bytes the session had by then. */
  offset: number;
  total: number;
  /** The moment, in seconds since the recording started, and the chunks it includes. */
  at: number;
  chunks: number;
  /** The size at that moment, in cells. */
  rows: number;
  cols: number;
  /** The fixture rendered at that size: screen text (rows joined with '\n') and title. */
  screen: string;
  title: string;
  /** The state the manifest gives the fixture, and the state of the live replay at that moment. */
  state: RuleState;
  liveState: RuleState;
  /** False when the fixture renders differently from the live replay (a resize in between). */
  faithful: boolean;
  /** Why the fixture starts where it does, in words. */
  why: string;
}

/** How many candidate redraws are tried, latest first. */
const MAX_CANDIDATES = 8;

/**
 * Offsets in `bytes` where a full redraw starts: each `ESC[2J` or `ESC c` (RIS), moved back over
 * the `ESC[?...h|l` mode settings and `ESC[H` written right before it. Latest first.
 */
export function redrawOffsets(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = bytes.length - 2; i >= 0 && out.length < MAX_CANDIDATES; i--) {
    if (bytes[i] !== 0x1b) continue;
    const ed2 = bytes[i + 1] === 0x5b && bytes[i + 2] === 0x32 && bytes[i + 3] === 0x4a;
    const ris = bytes[i + 1] === 0x63;
    if (!ed2 && !ris) continue;
    out.push(backOverModes(bytes, i));
  }
  return out;
}

/** Moves `at` back over `ESC[?Ps;...h|l` and `ESC[H` sequences that end right before it. */
function backOverModes(bytes: Uint8Array, at: number): number {
  const text = Buffer.from(bytes.subarray(Math.max(0, at - 256), at)).toString('latin1');
  const m = /(?:\x1b\[\?[0-9;]*[hl]|\x1b\[H)+$/.exec(text);
  return m ? at - (text.length - m.index) : at;
}

function replay(bytes: Uint8Array, rows: number, cols: number): Terminal {
  const t = new Terminal(rows, cols);
  t.write(bytes);
  t.takeReplies();
  t.takeExtensionReplies();
  return t;
}

/**
 * Cuts `rec` at `at` seconds (every chunk with `t <= at`), classifying with `manifest`.
 * @throws RangeError when no output was recorded by then.
 */
export function cutRecording(rec: Recording, at: number, manifest: Manifest): Cut {
  const chunks = rec.chunks.filter((c) => c.t <= at);
  if (!chunks.length) {
    throw new RangeError(
      `no output by ${at} s (the first came at ${rec.chunks[0]?.t ?? 'never'} s)`,
    );
  }
  // The live replay: the session's bytes with its resizes at their moments.
  const resizes = rec.meta.resizes.filter((r) => r.t <= at);
  const live = new Terminal(rec.meta.rows, rec.meta.cols);
  let r = 0;
  for (const c of chunks) {
    while (r < resizes.length && resizes[r].t <= c.t) {
      live.resize(resizes[r].rows, resizes[r].cols);
      r++;
    }
    live.write(c.bytes);
    live.takeReplies();
    live.takeExtensionReplies();
  }
  while (r < resizes.length) live.resize(resizes[r].rows, resizes[r++].cols);
  const rows = live.rows;
  const cols = live.cols;
  const all = Buffer.concat(chunks.map((c) => c.bytes));
  const liveScreen = live.screenText();
  const liveEval = evaluate(live.snapshot(), manifest);
  const same = (t: Terminal) => {
    const e = evaluate(t.snapshot(), manifest);
    return t.screenText() === liveScreen && t.title === live.title && e.state === liveEval.state &&
      e.rule === liveEval.rule;
  };
  const base = { at, chunks: chunks.length, rows, cols, total: all.length };
  const offsets = redrawOffsets(all);
  for (const offset of offsets) {
    if (offset === 0) break; // the whole session is the same cut
    const bytes = all.subarray(offset);
    const t = replay(bytes, rows, cols);
    if (same(t)) {
      return {
        ...base,
        bytes: Uint8Array.from(bytes),
        from: 'redraw',
        offset,
        screen: t.screenText(),
        title: t.title,
        state: liveEval.state,
        liveState: liveEval.state,
        faithful: true,
        why: `the last full redraw that alone gives this screen, at byte ${offset}`,
      };
    }
  }
  const t = replay(all, rows, cols);
  return {
    ...base,
    bytes: Uint8Array.from(all),
    from: 'start',
    offset: 0,
    screen: t.screenText(),
    title: t.title,
    state: evaluate(t.snapshot(), manifest).state,
    liveState: liveEval.state,
    faithful: same(t),
    why: !offsets.length
      ? 'no full redraw before this moment'
      : offsets.at(-1) === 0 && offsets.length === 1
      ? 'the only full redraw is at the start'
      : 'no later full redraw alone gives this screen',
  };
}
