/**
 * `agentwatch eval`: the evidence, reproducible (DESIGN.md section 1).
 *
 * Live: `eval [--seed N] [--tasks N] [--speed X] [--json|--csv]` runs the simulated agent in a
 * real PTY with a simulated person (see `src/eval/live.ts`) and prints, per detector, latency,
 * misses, persistence and false alarms beside the source's figures, then the process table.
 *
 * Replay: `eval --replay DIR... [--manifest FILE|DIR]` replays recordings on a virtual clock
 * (see `src/eval/replay.ts`) and prints the same table per recording and in total; with
 * `--manifest`, the bundled rules (before) against the given ones (after), and the diff.
 */
import os from 'node:os';
import {
  type Command,
  type Io,
  numberOption,
  type OptionValues,
  stringList,
  UsageError,
} from './command.ts';
import { detectorCsv, detectorRecords, detectorTable, processTable } from './eval-format.ts';
import { type LiveProgress, type LiveResult, runLive } from '../eval/live.ts';
import { loadBundledManifests } from '../runtime/manifest-sources.ts';
import { REFERENCE_RUN } from '../eval/reference.ts';
import { formatReplay, replayCommandResult } from './eval-replay.ts';

/** The machine, as the table's heading states it. */
export function machineLine(): string {
  const cpus = os.cpus();
  return `${os.type()} ${os.release()} ${os.arch()}, ${cpus.length} cores (${
    cpus[0]?.model.trim() ?? 'unknown CPU'
  }), Node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;
}

/** The live run's heading line. */
function liveHeading(r: LiveResult): string {
  const min = (r.durationMs / 60000).toFixed(1);
  const prompts = r.figures[0]?.prompts ?? 0;
  return `agentwatch eval: live, seed ${r.seed}, ${r.tasks} tasks, speed ${r.speed}: ${r.turns} turns in ${min} min, ` +
    `${prompts} permission prompts, ${(r.blockedMs / 1000).toFixed(0)} s waiting for an answer` +
    ` (source: seed ${REFERENCE_RUN.seed}, ${REFERENCE_RUN.tasks} tasks in ${REFERENCE_RUN.minutes} min, ` +
    `${REFERENCE_RUN.prompts} prompts, ${REFERENCE_RUN.waitingS} s waiting)\n` +
    `${new Date(r.startedAt).toISOString()} on ${machineLine()} at the end` +
    (r.speed === 1
      ? ''
      : `\nat speed ${r.speed} the quiet thresholds are divided by ${r.speed}, as every simulated delay`) +
    '\n';
}

function progressLine(p: LiveProgress): string {
  return `eval: ${
    (p.elapsedMs / 1000).toFixed(0)
  } s, turn ${p.tasksDone}/${p.tasks}, ${p.prompts} prompts, agent ${p.state}`;
}

/** Writes progress to stderr: one updating line on a terminal, else a plain line per turn. */
function progressWriter(io: Io): { update: (p: LiveProgress) => void; done: () => void } {
  const tty = process.stderr.isTTY === true;
  let lastTurn = -1;
  let shown = false;
  return {
    update(p) {
      if (tty) {
        io.stderr(`\r\x1b[K${progressLine(p)}`);
        shown = true;
      } else if (p.tasksDone !== lastTurn) {
        lastTurn = p.tasksDone;
        io.stderr(progressLine(p) + '\n');
      }
    },
    done() {
      if (tty && shown) io.stderr('\r\x1b[K');
    },
  };
}

async function live(values: OptionValues, io: Io, format: Format): Promise<number> {
  const seed = Math.floor(numberOption(values, 'seed', 7, 0, 2 ** 31));
  const tasks = Math.floor(numberOption(values, 'tasks', 30, 1, 10000));
  const speed = numberOption(values, 'speed', 1, 0.1, 100);
  const claude = loadBundledManifests().get('claude');
  if (!claude) throw new UsageError('the bundled claude manifest is missing');
  const progress = progressWriter(io);
  const r = await runLive({ seed, tasks, speed, manifest: claude, onProgress: progress.update });
  progress.done();
  const records = detectorRecords(r.figures);
  if (format === 'json') {
    io.stdout(
      JSON.stringify({
        mode: 'live',
        seed,
        tasks,
        speed,
        startedAt: new Date(r.startedAt).toISOString(),
        durationMs: r.durationMs,
        ended: r.ended,
        turns: r.turns,
        blockedMs: Math.round(r.blockedMs),
        machine: machineLine(),
        detectors: records,
        process: r.process,
      }) + '\n',
    );
  } else if (format === 'csv') {
    io.stdout(detectorCsv([{ extra: { seed: String(seed) }, records }]));
  } else {
    io.stdout(
      liveHeading(r) + '\n' + detectorTable(records, true) +
        '\nprocess table by true state (`ps -o stat=,time=` and /proc twice a second)\n' +
        processTable(r.process, true),
    );
    if (r.ended !== 'done') io.stdout(`(the run ended early: ${r.ended})\n`);
  }
  return r.ended === 'done' ? 0 : 1;
}

type Format = 'table' | 'json' | 'csv';

export const evalCommand: Command = {
  name: 'eval',
  summary: 'the evidence: compare the detectors live on a simulated agent, or on recordings',
  usage: 'eval [--seed N] [--tasks N] [--speed X] [--json|--csv]\n' +
    '       eval --replay DIR... [--manifest FILE|DIR] [--json|--csv]',
  options: {
    seed: { type: 'string' },
    tasks: { type: 'string' },
    speed: { type: 'string' },
    json: { type: 'boolean' },
    csv: { type: 'boolean' },
    replay: { type: 'boolean' },
    manifest: { type: 'string', multiple: true },
  },
  help: {
    seed: 'seed of the simulated agent and person (default 7)',
    tasks: 'tasks the simulated person gives (default 30: about 10 minutes at speed 1)',
    speed: 'time factor: 4 makes every simulated delay 4 times shorter (default 1)',
    json: 'print the figures as one JSON object',
    csv: 'print the figures as CSV, one row per detector',
    replay: 'replay the recordings in the given folders (NAME.bytes.jsonl + NAME.truth.jsonl)',
    manifest:
      'with --replay: compare these rules (a .toml file, or a folder of them) with the bundled ones',
  },
  placeholders: { manifest: 'FILE|DIR' },
  async run(values, positionals, io) {
    if (values.json && values.csv) throw new UsageError('give --json or --csv, not both');
    const format: Format = values.json ? 'json' : values.csv ? 'csv' : 'table';
    if (values.replay) {
      for (const n of ['seed', 'tasks', 'speed']) {
        if (values[n] !== undefined) {
          throw new UsageError(`--${n} is for the live eval, not --replay`);
        }
      }
      if (!positionals.length) {
        throw new UsageError('--replay needs at least one folder of recordings');
      }
      const result = await replayCommandResult(positionals, stringList(values, 'manifest'));
      io.stdout(formatReplay(result, format));
      return 0;
    }
    if (positionals.length) {
      throw new UsageError(`unexpected argument '${positionals[0]}' (recordings go with --replay)`);
    }
    if (values.manifest !== undefined) throw new UsageError('--manifest goes with --replay');
    return await live(values, io, format);
  },
};
