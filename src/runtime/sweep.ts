/**
 * The sweep: every `intervalMs` (default 700 ms, the seed's SWEEP_INTERVAL) each session whose
 * screen or inputs changed since its last evaluation is classified again; unchanged sessions
 * cost one integer compare. In adaptive mode a session that changes is also evaluated soon
 * after its output, at most once every {@link ADAPTIVE_MIN_MS}; one timer serves every such
 * look, at most every {@link ADAPTIVE_SLOT_MS} (looks that fall due in the same slot share a
 * wake-up), instead of a timer per session. A session waiting for a working -> idle
 * confirmation stays due until it is confirmed or dropped.
 */
import { basename } from 'node:path';
import type { Manifest } from '../detect/manifest.ts';
import { Evaluator } from '../detect/evaluator.ts';
import { inputBox } from '../detect/evaluate.ts';
import {
  decide,
  type ForegroundKind,
  IDLE_CONFIRM_MS,
  initialState,
  SHELLS,
  type StateRecord,
} from './signals.ts';
import type { ExitInfo, Session, SessionSpec } from './session.ts';
import type { Report } from './signals.ts';
import type { ScreenSnapshot } from '../vt/terminal.ts';

/** The sweep interval's default, ms. */
export const DEFAULT_INTERVAL_MS = 700;
/** In adaptive mode, the shortest time between two evaluations of one session, ms. */
export const ADAPTIVE_MIN_MS = 100;
/**
 * In adaptive mode, the slot adaptive looks are served in, ms: a look due at time T runs at
 * the end of T's slot (T rounded up to a multiple of this), so at most 1000 / this wake-ups a
 * second serve any number of sessions, each at most this much later than due.
 */
export const ADAPTIVE_SLOT_MS = 25;

/** Who holds a PTY's terminal, as `foreground.ts` reads it. */
export interface ForegroundRead {
  pgid: number;
  name: string;
  argv: string[];
}

/**
 * What the sweep reads of a session: a {@link Session} (a PTY), or a replayed recording
 * (`src/eval`). The sweep bumps `inputsVersion` when the foreground or the manifest changes.
 */
export interface SweptSession {
  readonly id: string;
  readonly spec: Pick<SessionSpec, 'agent' | 'command' | 'args'>;
  readonly terminal: { readonly version: number; snapshot(): ScreenSnapshot };
  inputsVersion: number;
  readonly exit: ExitInfo | null;
  readonly report: Report | null;
  onOutput(listener: (data: Uint8Array) => void): () => void;
  onExit(listener: (exit: ExitInfo) => void): () => void;
}

/**
 * The timer functions the sweep uses: the global ones by default, a virtual clock's in the
 * eval's replay (so that a recording replays deterministically, without sleeping).
 */
export interface SweepTimers {
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(f: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const GLOBAL_TIMERS: SweepTimers = {
  setTimeout: (f, ms) => setTimeout(f, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  setInterval: (f, ms) => setInterval(f, ms),
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
};

/** Lets the process exit while `handle` (a Node timer) is pending; a no-op for other handles. */
function unref(handle: unknown): void {
  (handle as { unref?: () => void } | undefined)?.unref?.();
}

/** A session as the sweep follows it. */
export interface Watched<S extends SweptSession = Session> {
  session: S;
  record: StateRecord;
  manifest: Manifest | null;
  foreground: { kind: ForegroundKind; name: string };
  /** terminal.version at the last evaluation. */
  screenVersion: number;
  inputsVersion: number;
  lastEvalAt: number;
  /** Evaluations so far. */
  evaluations: number;
  /** Its rules' results on the last screen, so an evaluation re-tests only what changed. */
  evaluator?: Evaluator;
  /** The last foreground read and the manifests it was matched against (to skip a rematch). */
  lastRead?: { fg: ForegroundRead; manifests: ReadonlyMap<string, Manifest> };
}

/** What the sweep needs from its host. */
export interface SweepOptions<S extends SweptSession = Session> {
  intervalMs?: number;
  /** How long a report lives unless the screen agrees, ms (default 60 s). */
  reportTtlMs?: number;
  adaptive?: boolean;
  /**
   * Manifests by id. When it returns another Map than before (a manifest was reloaded), each
   * session's manifest is looked up again by id and the session is evaluated afresh.
   */
  manifests: () => ReadonlyMap<string, Manifest>;
  /** Called at the start of every tick, before the manifests are read (hot reload's stat check). */
  refresh?: () => void;
  /** Reads a session's foreground; null when unknown. */
  foreground: (session: S) => ForegroundRead | null;
  /** Called when a session's state changes (not when only the reason changes). */
  onTransition: (w: Watched<S>, prev: StateRecord) => void;
  /** Called after every evaluation (for the board's timers and explain). */
  onEvaluated?: (w: Watched<S>) => void;
  now?: () => number;
  /** Timer functions (default: the global ones). */
  timers?: SweepTimers;
}

function stem(path: string | undefined): string {
  if (!path) return '';
  return basename(path).replace(/\.(exe|js|mjs|cjs|ts)$/i, '').toLowerCase();
}

/**
 * The manifest whose `process` names match the foreground leader (its name, argv[0] or, for
 * scripts run by node/bun/python, argv[1]), or null.
 */
export function manifestForProcess(
  manifests: ReadonlyMap<string, Manifest>,
  fg: ForegroundRead | { name: string; argv: string[] },
): Manifest | null {
  const names = new Set([stem(fg.name), stem(fg.argv[0]), stem(fg.argv[1])]);
  for (const m of manifests.values()) {
    if (m.process.some((p) => names.has(p.toLowerCase()))) return m;
  }
  return null;
}

/** Runs the sweep over a set of sessions. */
export class Sweep<S extends SweptSession = Session> {
  readonly watched = new Map<string, Watched<S>>();
  readonly intervalMs: number;
  readonly adaptive: boolean;
  #timer?: unknown;
  readonly #now: () => number;
  /** The manifests Map seen at the last tick, to notice a reload. */
  #manifests?: ReadonlyMap<string, Manifest>;
  readonly #timers: SweepTimers;
  /** Adaptive looks to take: each session's earliest time (ms since the epoch). */
  readonly #due = new Map<Watched<S>, number>();
  /** The one timer serving {@link #due}, and the time it fires at. */
  #slotTimer?: unknown;
  #slotAt = Infinity;
  /** Totals, for the benchmark. */
  readonly stats = { ticks: 0, evaluations: 0, evalMs: 0 };

  constructor(readonly options: SweepOptions<S>) {
    this.intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    this.adaptive = options.adaptive ?? false;
    this.#now = options.now ?? Date.now;
    this.#timers = options.timers ?? GLOBAL_TIMERS;
  }

  /** Starts following `session`; it begins idle (an agent that has only started is not working). */
  add(session: S): Watched<S> {
    // A forced agent (--agent) is known from the start: `info` names it before the first sweep.
    const forced = session.spec.agent
      ? this.options.manifests().get(session.spec.agent) ?? null
      : null;
    // An agent whose input box is known (`[input] box`) is starting until it draws it.
    const agent = forced ?? manifestForProcess(this.options.manifests(), {
      name: session.spec.command,
      argv: [session.spec.command, ...session.spec.args],
    });
    const w: Watched<S> = {
      session,
      record: initialState(this.#now(), (agent?.input?.box.length ?? 0) > 0),
      manifest: forced,
      foreground: { kind: 'unknown', name: '' },
      screenVersion: -1,
      inputsVersion: -1,
      lastEvalAt: 0,
      evaluations: 0,
    };
    this.watched.set(session.id, w);
    if (this.adaptive) session.onOutput(() => this.#schedule(w));
    session.onExit(() => this.evaluate(w));
    return w;
  }

  /** Stops following session `id`. */
  remove(id: string): void {
    const w = this.watched.get(id);
    if (w) this.#due.delete(w);
    this.watched.delete(id);
  }

  /** Starts the periodic sweep. */
  start(): void {
    this.#timer ??= this.#timers.setInterval(() => this.tick(), this.intervalMs);
    unref(this.#timer);
  }

  stop(): void {
    if (this.#timer) this.#timers.clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#slotTimer !== undefined) this.#timers.clearTimeout(this.#slotTimer);
    this.#slotTimer = undefined;
    this.#slotAt = Infinity;
    this.#due.clear();
  }

  /** Asks for an adaptive look at `w` once `after` ms have passed since its last evaluation. */
  #schedule(w: Watched<S>, after = ADAPTIVE_MIN_MS): void {
    const at = w.lastEvalAt + after;
    const due = this.#due.get(w);
    if (due !== undefined && due <= at) return;
    this.#due.set(w, at);
    this.#arm(at);
  }

  /** Makes the slot timer fire by the end of the slot of time `at` (ms since the epoch). */
  #arm(at: number): void {
    const slotEnd = Math.ceil(at / ADAPTIVE_SLOT_MS) * ADAPTIVE_SLOT_MS;
    if (this.#slotTimer !== undefined && this.#slotAt <= slotEnd) return;
    if (this.#slotTimer !== undefined) this.#timers.clearTimeout(this.#slotTimer);
    this.#slotAt = slotEnd;
    this.#slotTimer = this.#timers.setTimeout(
      () => this.#serve(),
      Math.max(0, slotEnd - this.#now()),
    );
    unref(this.#slotTimer);
  }

  /** Takes the adaptive looks that are due, then sets the timer for the next one. */
  #serve(): void {
    this.#slotTimer = undefined;
    this.#slotAt = Infinity;
    const now = this.#now();
    let next = Infinity;
    for (const [w, at] of [...this.#due]) {
      if (at > now) {
        next = Math.min(next, at);
        continue;
      }
      this.#due.delete(w);
      if (!this.watched.has(w.session.id)) continue;
      try {
        this.evaluateIfDue(w);
      } catch {
        // one session's failure must not stop the looks at the others
      }
    }
    if (next < Infinity) this.#arm(next);
  }

  /** One sweep: reads every foreground, evaluates the sessions that are due. */
  tick(): void {
    this.stats.ticks++;
    try {
      this.options.refresh?.();
    } catch {
      // a reload's failure keeps the manifests in force; the sweep goes on
    }
    const manifests = this.options.manifests();
    if (this.#manifests !== undefined && manifests !== this.#manifests) {
      for (const w of this.watched.values()) this.#reloaded(w, manifests);
    }
    this.#manifests = manifests;
    for (const w of this.watched.values()) {
      try {
        this.#readForeground(w);
        this.evaluateIfDue(w);
      } catch {
        // One session's failure must not stop the sweep of the others; it is retried next tick.
      }
    }
  }

  /** After a reload: `w` takes the manifest now in force for its id (or none) and is due. */
  #reloaded(w: Watched<S>, manifests: ReadonlyMap<string, Manifest>): void {
    if (!w.manifest) {
      w.session.inputsVersion++; // evaluate() looks for one again (by --agent or the command)
      return;
    }
    const now = manifests.get(w.manifest.id) ?? null;
    if (now === w.manifest) return;
    w.manifest = now;
    w.session.inputsVersion++;
  }

  #readForeground(w: Watched<S>): void {
    const s = w.session;
    if (s.exit) return;
    const fg = this.options.foreground(s);
    if (!fg) {
      w.lastRead = undefined;
      if (w.foreground.kind !== 'unknown') {
        w.foreground = { kind: 'unknown', name: '' };
        s.inputsVersion++;
      }
      return;
    }
    const manifests = this.options.manifests();
    // The same read (a foreground reader returns its previous answer while the group is the
    // same) against the same manifests: nothing to match again.
    if (w.lastRead?.fg === fg && w.lastRead.manifests === manifests) return;
    w.lastRead = { fg, manifests };
    const forced = s.spec.agent ? manifests.get(s.spec.agent) ?? null : null;
    const byProcess = manifestForProcess(manifests, fg);
    const kind: ForegroundKind = byProcess
      ? 'agent'
      : SHELLS.has(stem(fg.name))
      ? 'shell'
      : 'other';
    if (kind !== w.foreground.kind || fg.name !== w.foreground.name) {
      w.foreground = { kind, name: fg.name };
      s.inputsVersion++;
    }
    // A shell back in front: the agent that ran (if any) ended and its rules no longer apply; a
    // command started next (`sleep 6`) reads `running`, not the old agent's screen.
    const manifest = byProcess ?? forced ?? (kind === 'shell' ? null : w.manifest);
    if (manifest !== w.manifest) {
      w.manifest = manifest;
      s.inputsVersion++;
    }
  }

  /** Evaluates `w` when its screen or inputs changed, or an idle confirmation is pending. */
  evaluateIfDue(w: Watched<S>): void {
    const s = w.session;
    // A live report is due too: it may have expired or lost its grace since the last look.
    const due = s.terminal.version !== w.screenVersion || s.inputsVersion !== w.inputsVersion ||
      w.record.idleSeenAt !== undefined ||
      (s.report !== null && w.record.reportDroppedAt !== s.report.at);
    if (due) this.evaluate(w);
  }

  /** Classifies `w` afresh, whatever the last sweep said (the typing guard calls this). */
  evaluate(w: Watched<S>): StateRecord {
    const t0 = performance.now();
    const s = w.session;
    if (!w.manifest) {
      const manifests = this.options.manifests();
      w.manifest = (s.spec.agent ? manifests.get(s.spec.agent) : undefined) ??
        manifestForProcess(manifests, {
          name: s.spec.command,
          argv: [s.spec.command, ...s.spec.args],
        });
    }
    w.screenVersion = s.terminal.version;
    w.inputsVersion = s.inputsVersion;
    const now = this.#now();
    const evaluation = w.manifest
      ? (w.evaluator ??= new Evaluator()).evaluate(s.terminal.snapshot(), w.manifest)
      : null;
    const prev = w.record;
    w.record = decide(prev, {
      now,
      evaluation,
      foreground: w.foreground.kind,
      foregroundName: w.foreground.name,
      exit: s.exit,
      report: s.report,
      reportTtlMs: this.options.reportTtlMs,
      inputDrawn: w.manifest?.input?.box.length && !prev.inputSeen
        ? inputBox(s.terminal.snapshot(), w.manifest) !== 'absent'
        : undefined,
    });
    w.lastEvalAt = now;
    w.evaluations++;
    this.stats.evaluations++;
    this.stats.evalMs += performance.now() - t0;
    // In adaptive mode a pending working -> idle is confirmed by its own look, not by the
    // next tick or the next output (a quiet idle screen brings neither soon).
    if (this.adaptive && w.record.idleSeenAt !== undefined) this.#schedule(w, IDLE_CONFIRM_MS);
    if (w.record.state !== prev.state) this.options.onTransition(w, prev);
    this.options.onEvaluated?.(w);
    return w.record;
  }
}
