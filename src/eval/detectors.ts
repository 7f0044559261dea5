/**
 * The detectors the eval compares, all following one pane at once (DESIGN.md section 1 and
 * the source's table). Each answers one question at every sample: "does this agent need
 * me?" (`true`) or not.
 *
 * * `screen 50ms`: the manifest's rules on the emulated screen, polled at every sample;
 * * `sweep 700ms`, `sweep adaptive`: the product's {@link Sweep} (the real code, with its
 *   working -> idle confirmation), screen only, every 700 ms / adaptive (the product's
 *   default: soon after output, at most every 100 ms, and every 700 ms);
 * * `signals`: the product's full combination: the adaptive sweep plus the foreground
 *   process, the child's exit and the agent's reports (hooks);
 * * `tail 8KB`: the same rules on the last 8 KB of output with escapes stripped
 *   ({@link tailScreen});
 * * `row ends ?`: a visible screen row ends with `?`;
 * * `quiet >= N s`: no output for N seconds (N in {@link QUIET_SECONDS}, divided by the
 *   run's speed).
 *
 * Clock and timers are injected: the live eval gives the wall clock, the replay a
 * {@link VirtualClock}.
 */
import type { Manifest } from '../detect/manifest.ts';
import { evaluate } from '../detect/evaluate.ts';
import { ByteRing } from '../runtime/ring.ts';
import {
  type ForegroundRead,
  Sweep,
  type SweepTimers,
  type SweptSession,
} from '../runtime/sweep.ts';
import type { ScreenPane } from '../runtime/screen-pane.ts';
import { tailScreen } from './tail-baseline.ts';

/** The output quiet thresholds, seconds (the source's table). */
export const QUIET_SECONDS: readonly number[] = [0.5, 1, 2, 3, 5, 8];
/** The stripped tail's size, bytes (the source's 8 KB). */
export const TAIL_BYTES = 8 * 1024;
/** The eval's sampling period, ms (the source logged every detector every 50 ms). */
export const SAMPLE_MS = 50;
/** The plain sweep's interval, ms (the source's SWEEP_INTERVAL). */
export const PLAIN_SWEEP_MS = 700;

/** One detector: an id for JSON/CSV and a label for the table. */
export interface DetectorInfo {
  id: string;
  label: string;
}

/** The detectors, in the table's order. */
export const DETECTORS: readonly DetectorInfo[] = [
  { id: 'screen-50ms', label: 'screen rules, every 50 ms' },
  { id: 'sweep-700ms', label: 'screen rules, 700 ms sweep' },
  { id: 'sweep-adaptive', label: 'screen rules, adaptive sweep' },
  { id: 'signals', label: 'all signals (product default)' },
  { id: 'tail-8kb', label: 'same rules, stripped 8 KB tail' },
  { id: 'row-question', label: 'a screen row ends with "?"' },
  ...QUIET_SECONDS.map((s) => ({ id: `quiet-${s}s`, label: `output quiet >= ${s} s` })),
];

/** How a {@link DetectorBank} is set up. */
export interface DetectorBankOptions<S extends SweptSession> {
  session: S;
  /** The rules (the manifest the sweeps find by the session's `spec.agent`). */
  manifest: Manifest;
  now: () => number;
  /** Timer functions for the sweeps (default: the global ones). */
  timers?: SweepTimers;
  /** The foreground reading for the `signals` detector (the others read the screen only). */
  foreground: (session: S) => ForegroundRead | null;
  /** Time factor of the run: quiet thresholds are divided by it (default 1). */
  speed?: number;
}

/**
 * `session` as the screen-only sweeps see it: the same screen, exit and output, but never a
 * report (the agent's hooks are the `signals` detector's).
 */
function screenOnly(session: SweptSession): SweptSession {
  let ownInputs = 0;
  return {
    id: session.id,
    spec: session.spec,
    terminal: session.terminal,
    get exit() {
      return session.exit;
    },
    report: null,
    get inputsVersion() {
      return session.inputsVersion + ownInputs;
    },
    set inputsVersion(v: number) {
      ownInputs = v - session.inputsVersion;
    },
    onOutput: (l) => session.onOutput(l),
    onExit: (l) => session.onExit(l),
  };
}

/** Follows one pane with every detector; see the file comment. */
export class DetectorBank<S extends SweptSession> {
  readonly sweeps: { plain: Sweep<SweptSession>; adaptive: Sweep<SweptSession>; signals: Sweep<S> };
  readonly #watched: {
    plain: ScreenPane<SweptSession>;
    adaptive: ScreenPane<SweptSession>;
    signals: ScreenPane<S>;
  };
  readonly #tail = new ByteRing(TAIL_BYTES);
  readonly #quietMs: number[];
  #lastOutput: number;
  #outputs = 0;
  #screenVersion = -1;
  #screen = { blocked: false, question: false };
  #tailOutputs = -1;
  #tailBlocked = false;
  readonly #stop: () => void;

  constructor(readonly options: DetectorBankOptions<S>) {
    const { session, manifest, now, timers } = options;
    const manifests = new Map([[manifest.id, manifest]]);
    const common = { manifests: () => manifests, onTransition: () => {}, now, timers };
    this.sweeps = {
      plain: new Sweep({ ...common, intervalMs: PLAIN_SWEEP_MS, foreground: () => null }),
      adaptive: new Sweep({
        ...common,
        intervalMs: PLAIN_SWEEP_MS,
        adaptive: true,
        foreground: () => null,
      }),
      signals: new Sweep<S>({
        ...common,
        intervalMs: PLAIN_SWEEP_MS,
        adaptive: true,
        foreground: options.foreground,
      }),
    };
    this.#watched = {
      plain: this.sweeps.plain.add(screenOnly(session)),
      adaptive: this.sweeps.adaptive.add(screenOnly(session)),
      signals: this.sweeps.signals.add(session),
    };
    for (const s of Object.values(this.sweeps)) s.start();
    const speed = options.speed && options.speed > 0 ? options.speed : 1;
    this.#quietMs = QUIET_SECONDS.map((s) => (s * 1000) / speed);
    this.#lastOutput = now();
    this.#stop = session.onOutput((data) => {
      this.#lastOutput = now();
      this.#outputs++;
      this.#tail.push(data);
    });
  }

  /** Stops the sweeps and the output listener. */
  stop(): void {
    for (const s of Object.values(this.sweeps)) s.stop();
    this.#stop();
  }

  /** What each detector says now, in {@link DETECTORS} order (true = "needs you"). */
  sample(): boolean[] {
    const { session, manifest, now } = this.options;
    if (session.terminal.version !== this.#screenVersion) {
      this.#screenVersion = session.terminal.version;
      const snap = session.terminal.snapshot();
      this.#screen = {
        blocked: evaluate(snap, manifest).state === 'blocked',
        question: snap.rows.some((r) => r.trimEnd().endsWith('?')),
      };
    }
    if (this.#outputs !== this.#tailOutputs) {
      this.#tailOutputs = this.#outputs;
      this.#tailBlocked = evaluate(tailScreen(this.#tail.bytes()), manifest).state === 'blocked';
    }
    const quiet = now() - this.#lastOutput;
    return [
      this.#screen.blocked,
      this.#watched.plain.record.state === 'blocked',
      this.#watched.adaptive.record.state === 'blocked',
      this.#watched.signals.record.state === 'blocked',
      this.#tailBlocked,
      this.#screen.question,
      ...this.#quietMs.map((ms) => quiet >= ms),
    ];
  }
}
