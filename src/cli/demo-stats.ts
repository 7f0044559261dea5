/**
 * What `agentwatch demo` counts and prints at its end, pure: per simulated session, the
 * transitions the sweep saw, the prompts shown (truth) and answered, the time blocked on the
 * board and in truth, the board's delay in noticing each prompt, and how its notices went.
 * Times in ms since the epoch unless said otherwise.
 */

/** What the demo counts per session. */
export interface DemoStats {
  name: string;
  /** State changes the sweep published. */
  transitions: number;
  /** Permission prompts the agent showed (truth) and the user answered. */
  promptsShown: number;
  promptsAnswered: number;
  /** Time blocked as the board showed it, and as it truly was, ms. */
  blockedBoardMs: number;
  blockedTrueMs: number;
  /** For each prompt the board noticed: ms from the prompt's appearance to the board's blocked. */
  latenciesMs: number[];
  /** Prompts that ended before the board showed them blocked. */
  missed: number;
  /** The notices of blocked prompts, matched to the prompts shown (see {@link noticeStats}). */
  notices?: NoticeStats;
}

/** How the notices of one session's prompts went. */
export interface NoticeStats {
  /** Blocked notices sent. */
  sent: number;
  /** Prompts (truth) with at least one notice. */
  announced: number;
  /** Notices carrying the dialog's question (`question` of the caller). */
  rightQuestion: number;
  /** Notices beyond the first of one prompt. */
  duplicates: number;
  /** Notices sent while no prompt was up (within `toleranceMs` after one ended). */
  stray: number;
}

/**
 * Matches blocked notices (`t`, question) to the true prompts (blocked spells of `truth`),
 * one to one in time order: a notice belongs to the earliest prompt not announced yet that is
 * up at its time or ended at most `toleranceMs` before (a notice comes a moment after its
 * prompt showed, and at a high `--speed` the next prompt may be up by then); when all such
 * prompts were announced it is a duplicate, and with none it is stray.
 */
export function noticeStats(
  truth: ReadonlyArray<{ t: number; state: string }>,
  notices: ReadonlyArray<{ t: number; question: string }>,
  question: string,
  end: number,
  toleranceMs: number,
): NoticeStats {
  const spells: Array<{ from: number; to: number; count: number }> = [];
  for (let i = 0; i < truth.length; i++) {
    if (truth[i].state !== 'blocked') continue;
    spells.push({ from: truth[i].t, to: truth[i + 1]?.t ?? end, count: 0 });
  }
  let stray = 0;
  for (const n of [...notices].sort((a, b) => a.t - b.t)) {
    const near = spells.filter((s) => n.t >= s.from && n.t <= s.to + toleranceMs);
    const spell = near.find((s) => s.count === 0) ?? near[near.length - 1];
    if (spell) spell.count++;
    else stray++;
  }
  return {
    sent: notices.length,
    announced: spells.filter((s) => s.count > 0).length,
    rightQuestion: notices.filter((n) => n.question === question).length,
    duplicates: spells.reduce((sum, s) => sum + Math.max(0, s.count - 1), 0),
    stray,
  };
}

/** Sums the time spent in `state` from a list of (t, state) changes up to `end`, ms. */
export function timeIn(
  changes: ReadonlyArray<{ t: number; state: string }>,
  state: string,
  end: number,
): number {
  let total = 0;
  for (let i = 0; i < changes.length; i++) {
    if (changes[i].state !== state) continue;
    const until = i + 1 < changes.length ? changes[i + 1].t : end;
    total += Math.max(0, until - changes[i].t);
  }
  return total;
}

/**
 * Matches true prompts with the board's blocked episodes, one to one in time order: a prompt
 * is noticed when the board turned blocked while it showed (or within `slackMs` after it was
 * answered, one sweep late), by an episode no earlier prompt took; or when the board still
 * showed blocked as it appeared (the prompt before was answered and this one drawn between two
 * looks of the sweep: the board never stopped saying so), with a delay of 0.
 */
export function promptLatencies(
  truth: ReadonlyArray<{ t: number; state: string }>,
  board: ReadonlyArray<{ t: number; state: string }>,
  end: number,
  slackMs = 0,
): { latenciesMs: number[]; missed: number } {
  const latenciesMs: number[] = [];
  let missed = 0;
  const onsets = board.filter((b, j) =>
    b.state === 'blocked' && (j === 0 || board[j - 1].state !== 'blocked')
  );
  let next = 0; // the first onset no prompt took
  for (let i = 0; i < truth.length; i++) {
    if (truth[i].state !== 'blocked') continue;
    const from = truth[i].t;
    const to = (i + 1 < truth.length ? truth[i + 1].t : end) + slackMs;
    while (next < onsets.length && onsets[next].t < from) next++;
    if (next < onsets.length && onsets[next].t <= to) {
      latenciesMs.push(onsets[next].t - from);
      next++;
    } else if (stateAt(board, from) === 'blocked') latenciesMs.push(0);
    else missed++;
  }
  return { latenciesMs, missed };
}

/** The state of `changes` at time `t`: the last change at or before it ('' before the first). */
function stateAt(changes: ReadonlyArray<{ t: number; state: string }>, t: number): string {
  let state = '';
  for (const c of changes) {
    if (c.t > t) break;
    state = c.state;
  }
  return state;
}

/** `n` and `noun`, plural unless `n` is 1: '1 session', '3 sessions'. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** `ms` as seconds with one decimal: '1.5 s'. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function median(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The summary printed at the end: one block per session. */
export function formatSummary(stats: DemoStats[], durationMs: number): string {
  const lines = [
    `agentwatch demo: ${plural(stats.length, 'simulated session')} for ${seconds(durationMs)}`,
  ];
  for (const s of stats) {
    const lat = s.latenciesMs.length
      ? `board noticed ${s.latenciesMs.length}/${s.promptsShown} prompts, median ${
        seconds(median(s.latenciesMs))
      } after they appeared`
      : `board noticed 0/${s.promptsShown} prompts`;
    const transitions = plural(s.transitions, 'transition');
    const prompts = `${s.promptsAnswered}/${s.promptsShown} prompts answered`;
    const blocked = `blocked ${seconds(s.blockedBoardMs)} on the board, ${
      seconds(s.blockedTrueMs)
    } in truth`;
    const n = s.notices;
    const notices = n
      ? ` · ${
        plural(n.sent, 'notice')
      } (${n.announced}/${s.promptsShown} prompts announced, ${n.rightQuestion} with the dialog's question, ${n.duplicates} duplicate, ${n.stray} stray)`
      : '';
    lines.push(
      `  ${s.name.padEnd(9)} ${transitions} · ${prompts} · ${blocked} · ${lat}${notices}`,
    );
  }
  return lines.join('\n') + '\n';
}
