/**
 * The process table as a detector: what `ps` says of the agent's process (state letter, CPU
 * time) and, on Linux, its kernel wait channel (`/proc/PID/wchan`), sampled twice a second
 * and summed up per true state. The source found every state `S` 99.5-100% of the time at
 * 0.02-0.04% of a core, with `wchan` printing `-` on macOS: the table tells who holds the
 * terminal, not whether the agent waits (DESIGN.md section 1).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { truthAtSamples, type TruthMark } from './analysis.ts';

/** The source sampled `ps` twice a second, ms. */
export const PROCESS_SAMPLE_MS = 500;
/**
 * Clock ticks per second of `/proc/PID/stat`'s utime and stime: USER_HZ, which Linux fixes
 * at 100 for every architecture it exposes to user space (proc(5)).
 */
const USER_HZ = 100;

/** One reading of the process. */
export interface ProcessSample {
  /** ms since the epoch. */
  t: number;
  /** `ps -o stat=`: the state letter first ('S', 'R', 'D', ...), then flags. */
  stat: string;
  /** CPU time used so far, ms (`/proc/PID/stat` on Linux, else `ps -o time=`, 1 s steps). */
  cpuMs: number;
  /** `/proc/PID/wchan` on Linux ('' elsewhere; '0' or '-' when running). */
  wchan: string;
}

/** The process table's figures for one true state. */
export interface ProcessFigures {
  state: string;
  samples: number;
  /** Share of samples per state letter, 0..1. */
  letters: Record<string, number>;
  /** CPU used while in this state, percent of one core. */
  cpuPercent: number;
  /** Samples per wait channel (Linux). */
  wchan: Record<string, number>;
}

function run(cmd: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 2000 }, (err, stdout) => resolve(err ? null : stdout));
  });
}

/** `[[dd-]hh:]mm:ss` (ps's TIME) in ms; NaN when malformed. */
export function parsePsTime(text: string): number {
  const m = /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return NaN;
  const [, d, h, min, s, frac] = m;
  const secs = Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(min) * 60 + Number(s);
  return secs * 1000 + (frac ? Number(`0.${frac}`) * 1000 : 0);
}

/** utime + stime of `/proc/PID/stat`, ms; null when unreadable. */
async function procCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state is field 3.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(rest[11]) + Number(rest[12]); // fields 14 (utime) and 15 (stime)
    return Number.isFinite(ticks) ? (ticks * 1000) / USER_HZ : null;
  } catch {
    return null;
  }
}

/** Reads process `pid` now: `ps -o stat=,time=`, and on Linux /proc; null when it is gone. */
export async function sampleProcess(pid: number): Promise<ProcessSample | null> {
  const t = Date.now();
  const ps = await run('ps', ['-o', 'stat=,time=', '-p', String(pid)]);
  const line = ps?.trim().split('\n').pop()?.trim();
  if (!line) return null;
  const [stat = '', time = ''] = line.split(/\s+/);
  let cpuMs = parsePsTime(time);
  let wchan = '';
  if (process.platform === 'linux') {
    cpuMs = (await procCpuMs(pid)) ?? cpuMs;
    try {
      wchan = (await readFile(`/proc/${pid}/wchan`, 'utf8')).trim() || '-';
    } catch {
      wchan = '?';
    }
  }
  return { t, stat, cpuMs, wchan };
}

/** Sums samples up per true state (blocked, working, idle), in that order. */
export function processFigures(
  samples: readonly ProcessSample[],
  truth: readonly TruthMark[],
): ProcessFigures[] {
  const kinds = truthAtSamples(samples.map((s) => s.t), truth);
  const out: ProcessFigures[] = [];
  for (const state of ['working', 'idle', 'blocked']) {
    let n = 0;
    let wall = 0;
    let cpu = 0;
    const letters: Record<string, number> = {};
    const wchan: Record<string, number> = {};
    for (let i = 0; i < samples.length; i++) {
      if (kinds[i] !== state) continue;
      const s = samples[i];
      n++;
      const letter = s.stat[0] ?? '?';
      letters[letter] = (letters[letter] ?? 0) + 1;
      if (s.wchan) wchan[s.wchan] = (wchan[s.wchan] ?? 0) + 1;
      const next = samples[i + 1];
      if (next && Number.isFinite(next.cpuMs) && Number.isFinite(s.cpuMs)) {
        wall += next.t - s.t;
        cpu += Math.max(0, next.cpuMs - s.cpuMs);
      }
    }
    for (const k of Object.keys(letters)) letters[k] /= n;
    out.push({
      state,
      samples: n,
      letters,
      cpuPercent: wall > 0 ? (100 * cpu) / wall : NaN,
      wchan,
    });
  }
  return out;
}
