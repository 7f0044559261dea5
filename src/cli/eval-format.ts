/**
 * `agentwatch eval`'s output: the per-detector table (with the source's figures beside ours
 * on the live run), the process-table section, and the same figures as JSON and CSV.
 */
import { type DetectorFigures, mean, median } from '../eval/analysis.ts';
import { DETECTORS } from '../eval/detectors.ts';
import type { ProcessFigures } from '../eval/process-table.ts';
import { REFERENCE, REFERENCE_PROCESS, type ReferenceRow } from '../eval/reference.ts';

/** One detector's figures in the shape `--json` and `--csv` print. */
export interface DetectorRecord {
  id: string;
  label: string;
  prompts: number;
  missed: number;
  /** ms; null when no prompt was detected. */
  latencyMedianMs: number | null;
  latencyMaxMs: number | null;
  persistenceMeanMs: number | null;
  falseWorkingEpisodes: number;
  falseWorkingMs: number;
  falseIdleEpisodes: number;
  falseIdleMs: number;
}

const round = (x: number): number | null => (Number.isFinite(x) ? Math.round(x) : null);

/** The records of a run's figures, in {@link DETECTORS} order. */
export function detectorRecords(figures: readonly DetectorFigures[]): DetectorRecord[] {
  return figures.map((f, i) => ({
    id: DETECTORS[i].id,
    label: DETECTORS[i].label,
    prompts: f.prompts,
    missed: f.missed,
    latencyMedianMs: round(median(f.latenciesMs)),
    latencyMaxMs: round(f.latenciesMs.length ? Math.max(...f.latenciesMs) : NaN),
    persistenceMeanMs: round(mean(f.persistenceMs)),
    falseWorkingEpisodes: f.falseAlarms.working.episodes,
    falseWorkingMs: Math.round(f.falseAlarms.working.ms),
    falseIdleEpisodes: f.falseAlarms.idle.episodes,
    falseIdleMs: Math.round(f.falseAlarms.idle.ms),
  }));
}

function secs(ms: number | null, digits = 2): string {
  return ms === null ? '–' : `${(ms / 1000).toFixed(digits)} s`;
}

function alarms(episodes: number, ms: number): string {
  return episodes === 0 && ms < 500 ? '0' : `${episodes} / ${Math.round(ms / 1000)} s`;
}

function refCells(r: ReferenceRow | undefined): string[] {
  if (!r) return ['', '', '', '', '', ''];
  const s = (x: number | null) => (x === null ? '–' : `${x.toFixed(2)} s`);
  const a = ([e, sec]: [number, number]) => (e === 0 && sec === 0 ? '0' : `${e} / ${sec} s`);
  return [
    s(r.medianS),
    s(r.maxS),
    `${r.missed}/${r.prompts}`,
    `${r.persistenceS.toFixed(1)} s`,
    a(r.working),
    a(r.idle),
  ];
}

/** Lays out rows of cells in columns (left-aligned first column, the rest right-aligned). */
export function columns(rows: readonly string[][], gap = '  '): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length)));
  return rows.map((r) =>
    r.map((c, i) => {
      const pad = ' '.repeat(widths[i] - [...c].length);
      return i === 0 ? c + pad : pad + c;
    }).join(gap).trimEnd()
  ).join('\n') + '\n';
}

const HEAD = ['detector', 'median', 'max', 'missed', 'persists', 'false: working', 'idle'];

/**
 * The per-detector table. With `reference`, the source's figures follow ours on each row
 * (after a `|`), for the detectors the source measured.
 */
export function detectorTable(records: readonly DetectorRecord[], reference = false): string {
  const rows: string[][] = [
    reference
      ? [...HEAD, '|', 'source: median', 'max', 'missed', 'persists', 'working', 'idle']
      : HEAD,
  ];
  for (const r of records) {
    const ours = [
      r.label,
      secs(r.latencyMedianMs),
      secs(r.latencyMaxMs),
      `${r.missed}/${r.prompts}`,
      secs(r.persistenceMeanMs, 1),
      alarms(r.falseWorkingEpisodes, r.falseWorkingMs),
      alarms(r.falseIdleEpisodes, r.falseIdleMs),
    ];
    rows.push(reference ? [...ours, '|', ...refCells(REFERENCE[r.id])] : ours);
  }
  return columns(rows);
}

/** The process-table section, with the source's figures (macOS) when `reference`. */
export function processTable(figures: readonly ProcessFigures[], reference = false): string {
  const rows: string[][] = [['true state', 'samples', 'state letters', 'CPU', 'wchan']];
  for (const f of figures) {
    const letters = Object.entries(f.letters).sort((a, b) => b[1] - a[1])
      .map(([l, share]) => `${l} ${(share * 100).toFixed(1)}%`).join(' ');
    // /proc/PID/wchan reads '0' while the process runs.
    const wchan = Object.entries(f.wchan).sort((a, b) => b[1] - a[1]).slice(0, 3)
      .map(([w, n]) => `${w === '0' ? '(running)' : w} ${((n / f.samples) * 100).toFixed(1)}%`)
      .join(' ');
    const cpu = Number.isFinite(f.cpuPercent) ? `${f.cpuPercent.toFixed(2)}% of a core` : '–';
    rows.push([f.state, String(f.samples), letters || '–', cpu, wchan || '–']);
  }
  let out = columns(rows);
  if (reference) {
    const ref = REFERENCE_PROCESS.map((r) =>
      `${r.state} ${r.samples} samples S ${(r.s * 100).toFixed(1)}% R ${
        (r.r * 100).toFixed(1)
      }% CPU ${r.cpuPercent.toFixed(2)}%`
    ).join('; ');
    out += `source (macOS, wchan printed '-'): ${ref}\n`;
  }
  return out;
}

/** CSV of detector records, one row each, prefixed by `extra` columns (e.g. the recording). */
export function detectorCsv(
  blocks: ReadonlyArray<{ extra: Record<string, string>; records: readonly DetectorRecord[] }>,
): string {
  if (!blocks.length) return '';
  const extraKeys = Object.keys(blocks[0].extra);
  const keys = Object.keys(blocks[0].records[0] ?? {}) as Array<keyof DetectorRecord>;
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [[...extraKeys, ...keys].join(',')];
  for (const b of blocks) {
    for (const r of b.records) {
      lines.push(
        [...extraKeys.map((k) => cell(b.extra[k])), ...keys.map((k) => cell(r[k]))].join(','),
      );
    }
  }
  return lines.join('\n') + '\n';
}
