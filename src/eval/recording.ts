/**
 * Reads recorded sessions (the format of `fixtures/*\/recordings` and of `agentwatch record`;
 * fixtures/README.md): in one folder, per recording NAME,
 *
 * * `NAME.bytes.jsonl`: `{"t": seconds, "b64": chunk}` per PTY read (required);
 * * `NAME.truth.jsonl`: `{"t": seconds, "state": ..., "why": ...}`, the true state from that
 *   moment on (required);
 * * `NAME.meta.json`: `{"agent", "rows", "cols", "exit": {"t", "code"}, "resizes": [{"t",
 *   "rows", "cols"}]}` (optional; default 32x120, no resize);
 * * `NAME.input.jsonl`: what was typed; its `resize` lines are resizes: `{"t", "resize":
 *   {"rows", "cols"}}`, or the capture driver's `{"t", "resize": "cols-1 then back"}` (one
 *   column narrower, and back {@link RESIZE_BACK_MS} later; fixtures/claude-code/README.md);
 * * `NAME.hooks.jsonl`: `{"t", "hook", "payload"}`, the agent's hook events (optional).
 *
 * Errors name the file and line. Times are converted to ms.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UserError } from '../errors.ts';

/** The capture driver's "cols-1 then back" resize went back after this long, ms. */
export const RESIZE_BACK_MS = 400;
/** The largest recording file read, bytes. */
export const MAX_RECORDING_FILE = 64 * 1024 * 1024;

/** One recorded session, times in ms from the recording's start. */
export interface Recording {
  name: string;
  dir: string;
  /** The agent the meta names ('claude-code'), '' when unknown. */
  agent: string;
  rows: number;
  cols: number;
  chunks: Array<{ t: number; bytes: Uint8Array }>;
  truth: Array<{ t: number; state: string }>;
  resizes: Array<{ t: number; rows: number; cols: number }>;
  hooks: Array<{ t: number; hook: string; payload: unknown }>;
  /** When the agent exited, ms; null when the recording does not say. */
  exitAt: number | null;
}

function readText(path: string): string {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    throw new UserError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  if (size > MAX_RECORDING_FILE) {
    throw new UserError(
      `${path}: ${size} bytes, more than the ${MAX_RECORDING_FILE} a recording may have`,
    );
  }
  return readFileSync(path, 'utf8');
}

type Json = Record<string, unknown>;

/** Parses JSON lines; blank lines are skipped. @throws UserError naming file:line. */
function jsonLines(path: string): Array<{ line: number; value: Json }> {
  const out: Array<{ line: number; value: Json }> = [];
  readText(path).split('\n').forEach((text, i) => {
    if (!text.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UserError(`${path}:${i + 1}: not a JSON line`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      throw new UserError(`${path}:${i + 1}: expected a JSON object`);
    }
    out.push({ line: i + 1, value: value as Json });
  });
  return out;
}

function seconds(path: string, line: number, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new UserError(`${path}:${line}: "t" must be a number of seconds >= 0`);
  }
  return Math.round(v * 1000 * 1000) / 1000;
}

function size(path: string, where: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new UserError(`${path}: ${where} must be an integer from ${min} to ${max}`);
  }
  return v;
}

/** The names of the recordings in `dir` (those with a bytes and a truth file), sorted. */
export function recordingNames(dir: string): string[] {
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch (e) {
    throw new UserError(
      `${dir}: cannot list the folder (${(e as NodeJS.ErrnoException).code ?? e})`,
    );
  }
  return files
    .filter((f) => f.endsWith('.bytes.jsonl'))
    .map((f) => f.slice(0, -'.bytes.jsonl'.length))
    .filter((n) => files.includes(`${n}.truth.jsonl`))
    .sort();
}

/** Reads recording `name` of folder `dir`. @throws UserError for a missing or malformed file. */
export function readRecording(dir: string, name: string): Recording {
  const file = (ext: string) => join(dir, `${name}.${ext}`);
  const chunks = jsonLines(file('bytes.jsonl')).map(({ line, value }) => {
    if (typeof value.b64 !== 'string') {
      throw new UserError(`${file('bytes.jsonl')}:${line}: "b64" must be a base64 string`);
    }
    return {
      t: seconds(file('bytes.jsonl'), line, value.t),
      bytes: Buffer.from(value.b64, 'base64'),
    };
  });
  const truth = jsonLines(file('truth.jsonl')).map(({ line, value }) => {
    if (typeof value.state !== 'string') {
      throw new UserError(`${file('truth.jsonl')}:${line}: "state" must be a string`);
    }
    return { t: seconds(file('truth.jsonl'), line, value.t), state: value.state };
  });
  let meta: Json = {};
  if (existsSync(file('meta.json'))) {
    try {
      meta = JSON.parse(readText(file('meta.json'))) as Json;
    } catch {
      throw new UserError(`${file('meta.json')}: not JSON`);
    }
  }
  const rows = meta.rows === undefined ? 32 : size(file('meta.json'), '"rows"', meta.rows, 1, 1000);
  const cols = meta.cols === undefined
    ? 120
    : size(file('meta.json'), '"cols"', meta.cols, 2, 2000);
  const resizes: Recording['resizes'] = [];
  if (Array.isArray(meta.resizes)) {
    for (const r of meta.resizes as Json[]) {
      resizes.push({
        t: seconds(file('meta.json'), 0, r?.t),
        rows: size(file('meta.json'), 'a resize\'s "rows"', r?.rows, 1, 1000),
        cols: size(file('meta.json'), 'a resize\'s "cols"', r?.cols, 2, 2000),
      });
    }
  }
  if (existsSync(file('input.jsonl'))) {
    let current = { rows, cols };
    for (const { line, value } of jsonLines(file('input.jsonl'))) {
      if (value.resize === undefined) continue;
      const t = seconds(file('input.jsonl'), line, value.t);
      const r = value.resize as Json | string;
      if (r === 'cols-1 then back') {
        resizes.push({ t, rows: current.rows, cols: current.cols - 1 });
        resizes.push({ t: t + RESIZE_BACK_MS, rows: current.rows, cols: current.cols });
      } else if (r && typeof r === 'object') {
        current = {
          rows: size(file('input.jsonl'), `line ${line}: "resize.rows"`, r.rows, 1, 1000),
          cols: size(file('input.jsonl'), `line ${line}: "resize.cols"`, r.cols, 2, 2000),
        };
        resizes.push({ t, ...current });
      } else {
        throw new UserError(
          `${file('input.jsonl')}:${line}: "resize" must be {"rows", "cols"} or "cols-1 then back"`,
        );
      }
    }
  }
  resizes.sort((a, b) => a.t - b.t);
  const hooks: Recording['hooks'] = existsSync(file('hooks.jsonl'))
    ? jsonLines(file('hooks.jsonl')).map(({ line, value }) => {
      if (typeof value.hook !== 'string') {
        throw new UserError(`${file('hooks.jsonl')}:${line}: "hook" must be a string`);
      }
      return {
        t: seconds(file('hooks.jsonl'), line, value.t),
        hook: value.hook,
        payload: value.payload ?? {},
      };
    })
    : [];
  const exit = meta.exit as Json | undefined;
  const exitAt = exit && typeof exit.t === 'number' ? seconds(file('meta.json'), 0, exit.t) : null;
  const agent = typeof meta.agent === 'string' ? meta.agent : '';
  return { name, dir, agent, rows, cols, chunks, truth, resizes, hooks, exitAt };
}

/** Every recording in `dir`. @throws UserError when it holds none. */
export function readRecordings(dir: string): Recording[] {
  const names = recordingNames(dir);
  if (!names.length) {
    throw new UserError(
      `${dir}: no recordings (NAME.bytes.jsonl with NAME.truth.jsonl) in ${basename(dir) || dir}`,
    );
  }
  return names.map((n) => readRecording(dir, n));
}
