/**
 * Replays a {@link Recording} through every detector of {@link DetectorBank} on a
 * {@link VirtualClock}: its chunks, resizes, hook reports and exit at their recorded times,
 * a sample every 50 ms, the sweeps' timers at their due times. Deterministic and fast: the
 * same recording and rules give the same figures on any machine, and nothing sleeps.
 *
 * Hook events become reports as `agentwatch report` / `notify` make them when agentwatch
 * starts Claude Code (src/runtime/integrations/claude-code.ts), with `at` = the hook's recorded time.
 * The agent holds the foreground until it exits.
 */
import type { Manifest } from '../detect/manifest.ts';
import { reportFromHook } from '../runtime/integrations/claude-code.ts';
import type { ExitInfo } from '../runtime/session.ts';
import type { Report } from '../runtime/signals.ts';
import type { SweptSession } from '../runtime/sweep.ts';
import { Terminal } from '../vt/terminal.ts';
import { analyse, type DetectorFigures, type RunLog } from './analysis.ts';
import { VirtualClock } from './clock.ts';
import { DetectorBank, SAMPLE_MS } from './detectors.ts';
import type { Recording } from './recording.ts';

/**
 * How long before a recorded prompt a detector may start saying "needs you" and count as
 * detecting it, ms: the capture driver marked a prompt blocked only once the pane had
 * settled, "quiet 2 s, or 5 s of server silence when the agent keeps animating"
 * (fixtures/codex/README.md "Truth"; the same driver recorded Gemini CLI, Qwen Code and
 * opencode), so the mark can follow the drawing by up to about 5 s.
 */
export const REPLAY_TRUTH_SLACK_MS = 5500;
/** Replay goes on this long after the recording's last event, ms. */
export const REPLAY_TAIL_MS = 1000;

/** A recorded pane as the sweep sees it. */
class ReplayPane implements SweptSession {
  readonly terminal: Terminal;
  inputsVersion = 0;
  exit: ExitInfo | null = null;
  report: Report | null = null;
  readonly #output = new Set<(data: Uint8Array) => void>();
  readonly #exit = new Set<(exit: ExitInfo) => void>();

  constructor(
    readonly id: string,
    readonly spec: SweptSession['spec'],
    rows: number,
    cols: number,
  ) {
    this.terminal = new Terminal(rows, cols);
  }

  write(bytes: Uint8Array): void {
    this.terminal.write(bytes);
    this.terminal.takeReplies(); // the capture driver answered the queries already
    this.terminal.takeExtensionReplies();
    for (const l of this.#output) l(bytes);
  }

  resize(rows: number, cols: number): void {
    this.terminal.resize(rows, cols);
    this.inputsVersion++;
  }

  setReport(report: Report): void {
    this.report = report;
    this.inputsVersion++;
  }

  end(code: number): void {
    this.exit = { code };
    this.inputsVersion++;
    for (const l of this.#exit) l(this.exit);
  }

  onOutput(listener: (data: Uint8Array) => void): () => void {
    this.#output.add(listener);
    return () => this.#output.delete(listener);
  }

  onExit(listener: (exit: ExitInfo) => void): () => void {
    this.#exit.add(listener);
    return () => this.#exit.delete(listener);
  }
}

/** The report a Claude Code hook event makes (runtime/integrations/claude-code.ts), or null. */
export function hookReport(hook: string, payload: unknown, at: number): Report | null {
  const r = reportFromHook(hook, JSON.stringify(payload ?? {}));
  return r?.ok ? { state: r.state, at, source: r.source } : null;
}

/** One recording's replay. */
export interface ReplayResult {
  recording: Recording;
  manifest: Manifest;
  durationMs: number;
  log: RunLog;
  figures: DetectorFigures[];
}

type Event =
  | { t: number; kind: 'bytes'; bytes: Uint8Array }
  | { t: number; kind: 'resize'; rows: number; cols: number }
  | { t: number; kind: 'report'; report: Report }
  | { t: number; kind: 'exit' };

/** Replays `rec` with `manifest`'s rules; see the file comment. */
export function replay(rec: Recording, manifest: Manifest): ReplayResult {
  const clock = new VirtualClock(0);
  const pane = new ReplayPane(
    rec.name,
    { agent: manifest.id, command: rec.agent, args: [] },
    rec.rows,
    rec.cols,
  );
  const name = manifest.process[0] ?? manifest.id;
  const bank = new DetectorBank<ReplayPane>({
    session: pane,
    manifest,
    now: clock.now,
    timers: clock,
    foreground: (p) => (p.exit ? null : { pgid: 1, name, argv: [name] }),
  });
  const events: Event[] = [
    ...rec.chunks.map((c): Event => ({ t: c.t, kind: 'bytes', bytes: c.bytes })),
    ...rec.resizes.map((r): Event => ({ t: r.t, kind: 'resize', rows: r.rows, cols: r.cols })),
    ...rec.hooks.flatMap((h): Event[] => {
      const report = hookReport(h.hook, h.payload, h.t);
      return report ? [{ t: h.t, kind: 'report', report }] : [];
    }),
    ...(rec.exitAt === null ? [] : [{ t: rec.exitAt, kind: 'exit' } as Event]),
  ];
  // Stable: events at the same time keep the order above (bytes before a resize at that time).
  events.sort((a, b) => a.t - b.t);
  const last = Math.max(0, ...events.map((e) => e.t), ...rec.truth.map((m) => m.t));
  const end = last + REPLAY_TAIL_MS;
  const log: RunLog = { times: [], says: [], truth: rec.truth, end };
  let i = 0;
  for (let t = 0; t < end; t += SAMPLE_MS) {
    for (; i < events.length && events[i].t <= t; i++) {
      const e = events[i];
      clock.advanceTo(e.t);
      if (e.kind === 'bytes') pane.write(e.bytes);
      else if (e.kind === 'resize') pane.resize(e.rows, e.cols);
      else if (e.kind === 'report') pane.setReport(e.report);
      else pane.end(0);
    }
    clock.advanceTo(t);
    log.times.push(t);
    bank.sample().forEach((v, d) => (log.says[d] ??= []).push(v));
  }
  bank.stop();
  return {
    recording: rec,
    manifest,
    durationMs: end,
    log,
    figures: analyse(log, REPLAY_TRUTH_SLACK_MS),
  };
}
