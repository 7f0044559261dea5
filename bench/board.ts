/**
 * `node --import tsx bench/board.ts [--sessions N,...] [--frames F]`: what one board frame
 * costs with N sessions (default 100 and 1000) in a 50x160 terminal, the way the board draws
 * it at up to 10 frames a second: infos taken from the directory (new objects every frame, as
 * a host builds them), sorted, made printable, laid out, the visible rows rendered.
 *
 * Sessions: 10% blocked (question, options, details), 30% working with an activity text that
 * changes every frame (a spinner's words and timer), the rest idle. Printed per case, beside
 * each other in the same run:
 * - `every frame`: every session's texts made printable on every frame, and the infos taken
 *   twice (the frame and the status line), as the board did before `PrintableInfos`;
 * - `on change`: texts made printable once per change of them, infos taken once.
 * Figures: µs per frame (median of 5 runs of F frames) and % of one core at 10 frames/s.
 */
import { parseArgs } from 'node:util';
import { notifyStatus, PrintableInfos, renderBoard } from '../src/cli/board/render.ts';
import { sortSessions } from '../src/cli/board/rows.ts';
import { ageless } from '../src/cli/printable.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '100,1000' },
    frames: { type: 'string', default: '300' },
  },
});
const counts = values.sessions!.split(',').map(Number);
const frames = Number(values.frames);
const T0 = 1_800_000_000_000;

/** The sessions' base infos (what does not change between frames). */
function sessions(n: number): SessionInfo[] {
  return Array.from({ length: n }, (_, i) => {
    const state = i % 10 === 0 ? 'blocked' : i % 10 <= 3 ? 'working' : 'idle';
    return {
      id: `agent${i}-${(i * 2654435761 >>> 0).toString(16).slice(0, 4)}`,
      name: `agent${i}`,
      agent: 'claude',
      state,
      since: T0 - i * 1000,
      reason: `rule 8 'idle footer' matched below_last_rule (${state})`,
      by: 'screen',
      pid: 1000 + i,
      command: ['claude'],
      foreground: 'claude',
      rows: 32,
      cols: 120,
      startedAt: T0 - 600_000 + i,
      lastOutput: T0,
      exit: null,
      host: 1,
      socket: `/run/user/1000/agentwatch/agent${i}.sock`,
      ...(state === 'blocked'
        ? {
          question: 'Do you want to proceed?',
          options: ['1. Yes', "2. Yes, and don't ask again for npm test", '3. No'],
          details: ['Bash command', `npm test -- --shard ${i}`, 'Run the tests'],
        }
        : {}),
    } as SessionInfo;
  });
}

/** The infos of frame `f`: new objects, working sessions' activity changed. */
function infosAt(base: readonly SessionInfo[], f: number): SessionInfo[] {
  return base.map((b) =>
    b.state === 'working'
      ? { ...b, lastOutput: T0 + f * 100, activity: `Running tests… (${f}s · ↓ ${f * 7} tokens)` }
      : { ...b }
  );
}

/**
 * Making every text printable on every frame, as the board did before `PrintableInfos`: a
 * copy of each info, three replaces per text.
 */
const EVERY_FRAME = {
  of: (infos: readonly SessionInfo[]) =>
    infos.map((info) => ({
      ...info,
      name: oldPrintable(info.name),
      agent: oldPrintable(info.agent),
      reason: ageless(oldPrintable(info.reason)),
      foreground: oldPrintable(info.foreground),
      question: info.question === undefined ? undefined : oldPrintable(info.question),
      activity: info.activity === undefined ? undefined : oldPrintable(info.activity),
      stopReason: info.stopReason === undefined ? undefined : oldPrintable(info.stopReason),
      options: info.options?.map(oldPrintable),
      details: info.details?.map(oldPrintable),
    })),
};

/** `printable` before its fast path (src/cli/printable.ts's regular expressions). */
function oldPrintable(text: string): string {
  return String(text).replace(
    /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g,
    '',
  ).replace(/[\t\n\r]/g, ' ').replace(/[\x00-\x1f\x7f-\x9f]/g, '');
}

function run(base: SessionInfo[], cached: boolean): number {
  const printables = cached ? new PrintableInfos() : EVERY_FRAME;
  const view = { width: 160, height: 50, selected: base[5].id, color: true };
  const t = performance.now();
  for (let f = 0; f < frames; f++) {
    const infos = infosAt(base, f);
    const status = notifyStatus({}, cached ? infos : infosAt(base, f));
    renderBoard(
      sortSessions(infos),
      { ...view, now: T0 + f * 100, status },
      cached ? printables : undefined,
    );
  }
  return ((performance.now() - t) * 1000) / frames;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`board frame, 50x160 terminal, ${frames} frames x 5 runs (Node ${process.version})`);
console.log('sessions  every frame (µs, % core @10/s)  on change (µs, % core @10/s)  ratio');
for (const n of counts) {
  const base = sessions(n);
  run(base, false); // warm-up
  run(base, true);
  const before: number[] = [];
  const after: number[] = [];
  for (let r = 0; r < 5; r++) {
    before.push(run(base, false));
    after.push(run(base, true));
  }
  const b = median(before);
  const a = median(after);
  const pct = (us: number) => ((us * 10) / 1e6 * 100).toFixed(2);
  console.log(
    `${String(n).padStart(8)}  ${b.toFixed(0).padStart(8)} µs  ${pct(b).padStart(6)}%` +
      `              ${a.toFixed(0).padStart(8)} µs  ${pct(a).padStart(6)}%         ${
        (b / a).toFixed(1)
      }x`,
  );
}
