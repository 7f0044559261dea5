/**
 * `agentwatch eval --replay DIR... [--manifest FILE|DIR]`: picks each recording's rules,
 * replays it (src/eval/replay.ts) and formats the per-recording tables, the total and, with
 * `--manifest`, the before/after diff of misses and false alarms.
 *
 * A recording's agent comes from its meta.json (`"agent": "claude-code"`), else its name
 * (`codex.bytes.jsonl`), else its folder (`fixtures/claude-code/recordings`), matched against
 * the manifest ids as `classify` matches file names (`claude-code` -> claude).
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UserError } from './command.ts';
import { agentFromFileName } from './capture-manifest.ts';
import { columns, detectorCsv, detectorRecords, detectorTable } from './eval-format.ts';
import type { Manifest } from '../detect/manifest.ts';
import { sumFigures } from '../eval/analysis.ts';
import { DETECTORS } from '../eval/detectors.ts';
import { readRecordings, type Recording } from '../eval/recording.ts';
import { replay, type ReplayResult } from '../eval/replay.ts';
import { loadBundledManifests, loadManifestFile } from '../runtime/manifest-sources.ts';

/** One recording replayed with the bundled rules and, with `--manifest`, with the given ones. */
export interface ReplayRun {
  recording: Recording;
  before: ReplayResult;
  after: ReplayResult | null;
}

/** What `eval --replay` found. */
export interface ReplayCommandResult {
  runs: ReplayRun[];
  /** The `--manifest` sources, [] without a comparison. */
  compared: string[];
}

/** The manifests of `--manifest` arguments: files, or folders of `*.toml` files, by id. */
function givenManifests(paths: readonly string[]): Map<string, Manifest> {
  const out = new Map<string, Manifest>();
  for (const p of paths) {
    let files = [p];
    try {
      if (statSync(p).isDirectory()) {
        files = readdirSync(p).filter((f) => f.endsWith('.toml')).sort().map((f) => join(p, f));
        if (!files.length) throw new UserError(`--manifest ${p}: no .toml files in the folder`);
      }
    } catch (e) {
      if (e instanceof UserError) throw e;
      // a missing path: loadManifestFile names it
    }
    for (const f of files) {
      const m = loadManifestFile(f);
      out.set(m.id, m);
    }
  }
  return out;
}

function agentOf(rec: Recording, ids: readonly string[]): string | null {
  const dir = resolve(rec.dir);
  for (const name of [rec.agent, rec.name, basename(dirname(dir)), basename(dir)]) {
    const id = name ? agentFromFileName(name, ids) : null;
    if (id) return id;
  }
  return null;
}

/**
 * Replays every recording in `dirs`; with `manifestPaths`, also with those rules.
 * @throws UserError for a folder without recordings, a malformed file, a broken manifest or
 *   a recording whose agent has no rules.
 */
export function replayCommandResult(
  dirs: readonly string[],
  manifestPaths: readonly string[],
): Promise<ReplayCommandResult> {
  const bundled = loadBundledManifests();
  const given = givenManifests(manifestPaths);
  const ids = [...new Set([...bundled.keys(), ...given.keys()])];
  const runs: ReplayRun[] = [];
  for (const dir of dirs) {
    for (const rec of readRecordings(dir)) {
      const id = agentOf(rec, ids) ?? (given.size === 1 ? [...given.keys()][0] : null);
      if (!id) {
        throw new UserError(
          `${
            join(rec.dir, rec.name)
          }: cannot tell the agent (meta.json "agent", the name or the folder; known: ${
            ids.join(', ')
          })`,
        );
      }
      const base = bundled.get(id) ?? given.get(id)!;
      const other = given.get(id);
      runs.push({
        recording: rec,
        before: replay(rec, base),
        after: other && other !== base ? replay(rec, other) : null,
      });
    }
  }
  return Promise.resolve({ runs, compared: manifestPaths.map(String) });
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function heading(r: ReplayResult): string {
  const rec = r.recording;
  const prompts = r.figures[0]?.prompts ?? 0;
  const resizes = rec.resizes.length ? `, ${rec.resizes.length} resizes` : '';
  const hooks = rec.hooks.length ? `, ${rec.hooks.length} hook events` : '';
  return `${
    join(rec.dir, rec.name)
  }: ${r.manifest.id} rules (${r.manifest.source}), ${rec.rows}x${rec.cols}${resizes}${hooks}, ` +
    `${secs(r.durationMs)}, ${prompts} prompt${prompts === 1 ? '' : 's'}\n`;
}

/** The differences of misses and false alarms between two replays of one recording. */
function diffLines(run: ReplayRun): string[] {
  if (!run.after) return [];
  const out: string[] = [];
  run.before.figures.forEach((b, d) => {
    const a = run.after!.figures[d];
    const at = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const newlyMissed = a.missedAt.filter((t) => !b.missedAt.includes(t));
    const fixedMissed = b.missedAt.filter((t) => !a.missedAt.includes(t));
    const key = (f: { t: number; state: string }) => `${f.t}/${f.state}`;
    const bKeys = new Set(b.falseAt.map(key));
    const aKeys = new Set(a.falseAt.map(key));
    const newFalse = a.falseAt.filter((f) => !bKeys.has(key(f)));
    const goneFalse = b.falseAt.filter((f) => !aKeys.has(key(f)));
    const parts = [
      ...newlyMissed.map((t) => `now misses the prompt at ${at(t)}`),
      ...fixedMissed.map((t) => `now sees the prompt at ${at(t)}`),
      ...newFalse.map((f) => `new false alarm at ${at(f.t)} (${f.state})`),
      ...goneFalse.map((f) => `no more false alarm at ${at(f.t)} (${f.state})`),
    ];
    if (parts.length) out.push(`  ${DETECTORS[d].label}: ${parts.join('; ')}`);
  });
  return out;
}

/** A total table over several runs. */
function totalTable(results: readonly ReplayResult[]): string {
  const figures = DETECTORS.map((_, d) => sumFigures(results.map((r) => r.figures[d])));
  return detectorTable(detectorRecords(figures));
}

/** Prints `result` as a table, JSON or CSV. */
export function formatReplay(
  result: ReplayCommandResult,
  format: 'table' | 'json' | 'csv',
): string {
  const { runs } = result;
  if (format === 'json') {
    const one = (r: ReplayResult) => ({
      manifest: r.manifest.source,
      durationMs: r.durationMs,
      detectors: detectorRecords(r.figures).map((rec, d) => ({
        ...rec,
        missedAtMs: r.figures[d].missedAt,
        falseAlarmsAt: r.figures[d].falseAt,
      })),
    });
    return JSON.stringify({
      mode: 'replay',
      compared: result.compared,
      recordings: runs.map((run) => ({
        recording: join(run.recording.dir, run.recording.name),
        agent: run.before.manifest.id,
        rows: run.recording.rows,
        cols: run.recording.cols,
        before: one(run.before),
        after: run.after ? one(run.after) : null,
      })),
      total: detectorRecords(
        DETECTORS.map((_, d) => sumFigures(runs.map((r) => r.before.figures[d]))),
      ),
    }) + '\n';
  }
  if (format === 'csv') {
    return detectorCsv(runs.flatMap((run) => [
      {
        extra: { recording: join(run.recording.dir, run.recording.name), rules: 'before' },
        records: detectorRecords(run.before.figures),
      },
      ...(run.after
        ? [{
          extra: { recording: join(run.recording.dir, run.recording.name), rules: 'after' },
          records: detectorRecords(run.after.figures),
        }]
        : []),
    ]));
  }
  let out = '';
  for (const run of runs) {
    out += heading(run.before) + detectorTable(detectorRecords(run.before.figures)) + '\n';
  }
  out +=
    `total over ${runs.length} recordings (${
      secs(runs.reduce((s, r) => s + r.before.durationMs, 0))
    })\n` + totalTable(runs.map((r) => r.before));
  if (result.compared.length) {
    const changed = runs.filter((r) => r.after);
    out += `\nrules compared: bundled (before) vs ${
      result.compared.join(', ')
    } (after) on ${changed.length} recordings\n`;
    if (changed.length) {
      const rows = [['detector', 'missed before', 'after', 'false alarms before', 'after']];
      DETECTORS.forEach((det, d) => {
        const b = sumFigures(changed.map((r) => r.before.figures[d]));
        const a = sumFigures(changed.map((r) => r.after!.figures[d]));
        const fa = (f: typeof a) =>
          String(f.falseAlarms.working.episodes + f.falseAlarms.idle.episodes);
        rows.push([
          det.label,
          `${b.missed}/${b.prompts}`,
          `${a.missed}/${a.prompts}`,
          fa(b),
          fa(a),
        ]);
      });
      out += columns(rows);
      const diffs = changed.flatMap((run) => {
        const lines = diffLines(run);
        return lines.length ? [`${join(run.recording.dir, run.recording.name)}:`, ...lines] : [];
      });
      out += diffs.length ? diffs.join('\n') + '\n' : 'no difference in misses or false alarms\n';
    }
  }
  return out;
}
