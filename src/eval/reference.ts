/**
 * The source's reference figures (shared/seed, summarised in DESIGN.md section 1): its
 * seeded live run, seed 7: 30 tasks, 10.6 minutes, 25 permission prompts, 144 s waiting for
 * an answer, on a Mac, with a Python supervisor and a fake agent that wrote real spaces (so
 * its stripped tail saw the prompts). Printed beside ours, per detector id of
 * {@link DETECTORS}.
 */

/** One row of the source's table; null where the source has no such row. */
export interface ReferenceRow {
  /** Median and max latency, s; null for '–' (never detected). */
  medianS: number | null;
  maxS: number | null;
  missed: number;
  prompts: number;
  persistenceS: number;
  /** False alarms: episodes / seconds. */
  working: [number, number];
  idle: [number, number];
}

/** The source's run: tasks, minutes, prompts, seconds waiting. */
export const REFERENCE_RUN = { seed: 7, tasks: 30, minutes: 10.6, prompts: 25, waitingS: 144 };

/** The source's table, by detector id (it had no adaptive sweep and no signal combination). */
export const REFERENCE: Readonly<Record<string, ReferenceRow>> = {
  'screen-50ms': row(0.03, 0.06, 0, 0, [0, 0], [0, 0]),
  'sweep-700ms': row(0.26, 0.7, 0, 0.4, [0, 0], [0, 0]),
  'tail-8kb': row(0.03, 0.06, 0, 77.0, [0, 0], [0, 0]),
  'row-question': row(0.03, 0.06, 0, 58.0, [0, 231], [4, 143]),
  'quiet-0.5s': row(0.52, 0.56, 0, 0, [31, 78], [30, 168]),
  'quiet-1s': row(1.02, 1.06, 0, 0, [28, 63], [30, 153]),
  'quiet-2s': row(2.03, 2.06, 0, 0, [21, 38], [30, 123]),
  'quiet-3s': row(3.02, 3.06, 0, 0, [17, 19], [30, 93]),
  'quiet-5s': row(5.02, 5.05, 9, 0, [3, 1], [18, 46]),
  'quiet-8s': row(null, null, 25, 0, [0, 0], [6, 7]),
};

function row(
  medianS: number | null,
  maxS: number | null,
  missed: number,
  persistenceS: number,
  working: [number, number],
  idle: [number, number],
): ReferenceRow {
  return { medianS, maxS, missed, prompts: 25, persistenceS, working, idle };
}

/** The source's process table (`ps -o stat=,time=` twice a second, macOS). */
export const REFERENCE_PROCESS: ReadonlyArray<
  { state: string; samples: number; s: number; r: number; cpuPercent: number }
> = [
  { state: 'working', samples: 603, s: 0.995, r: 0.005, cpuPercent: 0.04 },
  { state: 'idle', samples: 357, s: 1, r: 0, cpuPercent: 0.02 },
  { state: 'blocked', samples: 280, s: 1, r: 0, cpuPercent: 0.02 },
];
