/**
 * The eval's analysis: from the agent's true states and what each detector said at each
 * sample, the source's figures per detector (pure; times in ms).
 *
 * * a prompt is a span of true `blocked`, from its drawing to its answer;
 * * latency: from the prompt's start to the first sample inside the prompt at which the
 *   detector says "needs you" (0 when it already said so); a prompt with no such sample is
 *   missed;
 * * persistence: after the answer, how long the detector kept saying "needs you" without a
 *   break (up to the next prompt), per detected prompt;
 * * false alarms, split by the true state: episodes (the detector starts saying "needs you"
 *   while the agent is working or idle) and seconds (the time it says so while the agent is
 *   working or idle, persistence excluded, as the source counted them). A run that starts
 *   at most `truthSlackMs` before a prompt and lasts into it is that prompt's detection, not
 *   a false alarm (neither episode nor seconds) (a recording's truth can be written a moment after the
 *   prompt was drawn).
 *
 * True states other than blocked/working/idle: `starting` counts as working; after `exited`
 * nothing is counted.
 */

/** A true state as the truth files write it. */
export interface TruthMark {
  /** ms (any origin shared with the samples). */
  t: number;
  state: string;
}

/** The figures of one detector over one run. */
export interface DetectorFigures {
  prompts: number;
  missed: number;
  /** Start of each missed prompt, ms. */
  missedAt: number[];
  /** Per detected prompt, ms. */
  latenciesMs: number[];
  /** Per detected prompt, ms. */
  persistenceMs: number[];
  falseAlarms: {
    working: { episodes: number; ms: number };
    idle: { episodes: number; ms: number };
  };
  /** Start of each false-alarm episode, ms, with the true state then. */
  falseAt: Array<{ t: number; state: 'working' | 'idle' }>;
}

/** What analysis needs: sample times, the detectors' answers per sample, the truth. */
export interface RunLog {
  /** Sample times, ms, increasing. */
  times: number[];
  /** `says[d][k]`: detector d said "needs you" at sample k. */
  says: boolean[][];
  truth: TruthMark[];
  /** End of the run, ms (the last sample's span ends here). */
  end: number;
}

type Kind = 'blocked' | 'working' | 'idle' | 'off';

function kindOf(state: string | undefined): Kind {
  if (state === 'blocked' || state === 'working' || state === 'idle') return state;
  if (state === 'starting') return 'working';
  return 'off'; // before the first mark, exited, unknown
}

/** The true kind at each sample. */
export function truthAtSamples(times: readonly number[], truth: readonly TruthMark[]): Kind[] {
  const out: Kind[] = [];
  let i = -1;
  for (const t of times) {
    while (i + 1 < truth.length && truth[i + 1].t <= t) i++;
    out.push(i >= 0 ? kindOf(truth[i].state) : 'off');
  }
  return out;
}

/** The prompts of a truth list: [start, end) spans of `blocked`, ms. */
export function promptSpans(truth: readonly TruthMark[], end: number): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (let i = 0; i < truth.length; i++) {
    if (truth[i].state !== 'blocked') continue;
    if (i > 0 && truth[i - 1].state === 'blocked') continue; // a repeated mark
    let j = i + 1;
    while (j < truth.length && truth[j].state === 'blocked') j++;
    spans.push([truth[i].t, j < truth.length ? truth[j].t : end]);
  }
  return spans;
}

/** The figures of every detector in `log`, in the order of `log.says`. */
export function analyse(log: RunLog, truthSlackMs = 0): DetectorFigures[] {
  const kinds = truthAtSamples(log.times, log.truth);
  const prompts = promptSpans(log.truth, log.end);
  return log.says.map((says) => figures(log.times, says, kinds, prompts, log.end, truthSlackMs));
}

function figures(
  times: readonly number[],
  says: readonly boolean[],
  kinds: readonly Kind[],
  prompts: ReadonlyArray<[number, number]>,
  end: number,
  slack: number,
): DetectorFigures {
  const out: DetectorFigures = {
    prompts: prompts.length,
    missed: 0,
    missedAt: [],
    latenciesMs: [],
    persistenceMs: [],
    falseAlarms: { working: { episodes: 0, ms: 0 }, idle: { episodes: 0, ms: 0 } },
    falseAt: [],
  };
  const n = times.length;
  /** Samples counted as a prompt's persistence, not as false alarms. */
  const persisting = new Uint8Array(n);
  // Prompts: latency and persistence.
  let k = 0;
  for (let p = 0; p < prompts.length; p++) {
    const [a, b] = prompts[p];
    while (k < n && times[k] < a) k++;
    let hit = -1;
    for (let j = k; j < n && times[j] < b; j++) {
      if (says[j]) {
        hit = j;
        break;
      }
    }
    if (hit < 0) {
      out.missed++;
      out.missedAt.push(a);
      continue;
    }
    // Already saying so when the prompt came: latency 0.
    const already = hit === k && k > 0 && says[k - 1];
    out.latenciesMs.push(already ? 0 : Math.max(0, times[hit] - a));
    // Persistence: the unbroken run of "needs you" from the answer on.
    const next = p + 1 < prompts.length ? prompts[p + 1][0] : end;
    let j = hit;
    while (j < n && times[j] < b) j++;
    let last = b;
    if (j > 0 && says[j - 1]) {
      while (j < n && times[j] < next && says[j]) {
        last = times[j];
        persisting[j] = 1;
        j++;
      }
    }
    out.persistenceMs.push(Math.max(0, last - b));
  }
  // False alarms. A run that leads into a prompt (within the slack) is that prompt's.
  let leading = false;
  for (let j = 0; j < n; j++) {
    const kind = kinds[j];
    if (!says[j]) leading = false;
    if (!says[j] || persisting[j] || (kind !== 'working' && kind !== 'idle')) continue;
    const onset = j === 0 || !says[j - 1] || persisting[j - 1] === 1;
    if (onset) {
      leading = leadsIntoPrompt(j, times, says, prompts, slack);
      if (!leading) {
        out.falseAlarms[kind].episodes++;
        out.falseAt.push({ t: times[j], state: kind });
      }
    }
    if (leading) continue;
    const span = (j + 1 < n ? times[j + 1] : end) - times[j];
    out.falseAlarms[kind].ms += Math.max(0, span);
  }
  return out;
}

/** True when the run of "needs you" starting at sample `j` starts at most `slack` before a prompt and lasts into it. */
function leadsIntoPrompt(
  j: number,
  times: readonly number[],
  says: readonly boolean[],
  prompts: ReadonlyArray<[number, number]>,
  slack: number,
): boolean {
  if (slack <= 0) return false;
  const t = times[j];
  const prompt = prompts.find(([a]) => a >= t && a - t <= slack);
  if (!prompt) return false;
  for (let i = j; i < times.length && times[i] <= prompt[0]; i++) if (!says[i]) return false;
  return true;
}

/** Median of `xs`, NaN when empty. */
export function median(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Mean of `xs`, NaN when empty. */
export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

/**
 * Adds the figures of several runs of the same detector (for a total over recordings); the
 * times of misses and false alarms are left out (they belong to one run each).
 */
export function sumFigures(all: readonly DetectorFigures[]): DetectorFigures {
  const out: DetectorFigures = {
    prompts: 0,
    missed: 0,
    missedAt: [],
    latenciesMs: [],
    persistenceMs: [],
    falseAlarms: { working: { episodes: 0, ms: 0 }, idle: { episodes: 0, ms: 0 } },
    falseAt: [],
  };
  for (const f of all) {
    out.prompts += f.prompts;
    out.missed += f.missed;
    out.latenciesMs.push(...f.latenciesMs);
    out.persistenceMs.push(...f.persistenceMs);
    for (const k of ['working', 'idle'] as const) {
      out.falseAlarms[k].episodes += f.falseAlarms[k].episodes;
      out.falseAlarms[k].ms += f.falseAlarms[k].ms;
    }
  }
  return out;
}
