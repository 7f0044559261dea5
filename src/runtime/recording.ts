/**
 * The recording format of a session (the one fixtures/<agent>/recordings and the real
 * captures use), written by `agentwatch record` and read by `agentwatch cut`. For a recording
 * named NAME in folder DIR:
 *
 * * `NAME.bytes.jsonl`: one line `{"t": s, "b64": chunk}` per PTY read, `t` in seconds since
 *   the recording started (ms precision), `b64` the bytes exactly as read (base64).
 * * `NAME.input.jsonl`: one line per chunk the person's terminal sent, `{"t", "keys"}` when the
 *   bytes are valid UTF-8, else `{"t", "b64"}`. Mark chords are not in it (the agent never got
 *   them).
 * * `NAME.truth.jsonl`: the person's truth, `{"t", "state", "why"}` per mark (chord or
 *   `agentwatch mark`).
 * * `NAME.meta.json`: `{agent, version, rows, cols, resizes: [{t, rows, cols}], argv, args,
 *   started, exit: {t, code}}`; written at the start and again at every resize and at the end,
 *   so an interrupted recording still has one.
 */
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../errors.ts';

/** The states a person can mark: what labels.json accepts. */
export type TruthState = 'blocked' | 'working' | 'idle';

/** One truth mark. */
export interface TruthMark {
  /** Seconds since the recording started. */
  t: number;
  state: TruthState;
  /** Why: the person's note, or how the mark was made. */
  why: string;
}

/** A recording's `NAME.meta.json`. */
export interface RecordingMeta {
  /** The manifest id that followed the session ('' until one matched). */
  agent: string;
  /** The agent's version when it could be read (its npm package.json), else null. */
  version: string | null;
  /** The size at the start, in cells. */
  rows: number;
  cols: number;
  /** Every resize after the start: seconds since the start, and the new size in cells. */
  resizes: Array<{ t: number; rows: number; cols: number }>;
  /** The command and its arguments, as given after `--`. */
  argv: string[];
  /** The arguments alone (the older captures' field). */
  args: string[];
  /** When the recording started, ISO 8601. */
  started: string;
  /** How the command ended: seconds since the start and its exit code (128 + signal). */
  exit?: { t: number; code: number };
}

/** The chord prefix: Ctrl-\ (0x1c), as a legacy terminal sends it. */
const PREFIX = 0x1c;
/** Ctrl-\ as a terminal in the kitty keyboard protocol sends it (`CSI 92 ; 5 u`). */
const KITTY_PREFIX = '\x1b[92;5u';
/** The key after the prefix, and the state it marks. */
const CHORD_KEYS: Record<string, TruthState> = { b: 'blocked', w: 'working', i: 'idle' };

/**
 * Finds the mark chord in the person's keys: Ctrl-\ then `b` (blocked), `w` (working) or `i`
 * (idle). Ctrl-\ twice sends one Ctrl-\ to the agent; Ctrl-\ then any other key sends both.
 * Everything else passes through untouched. A prefix at the end of a chunk waits for the next.
 */
export class MarkChords {
  #pending = false;

  /**
   * Feeds one input chunk.
   * @returns the bytes for the agent and the states marked in this chunk, in order.
   */
  feed(data: Uint8Array): { pass: Uint8Array; marks: TruthState[] } {
    const out: number[] = [];
    const marks: TruthState[] = [];
    const kitty = Buffer.from(KITTY_PREFIX);
    for (let i = 0; i < data.length; i++) {
      const b = data[i];
      if (this.#pending) {
        this.#pending = false;
        const state = CHORD_KEYS[String.fromCharCode(b)];
        if (state) marks.push(state);
        else if (b === PREFIX) out.push(PREFIX);
        else if (b === 0x1b && startsWith(data, i, kitty)) {
          out.push(...kitty); // the prefix twice (kitty keys): one goes through
          i += kitty.length - 1;
        } else out.push(PREFIX, b);
        continue;
      }
      if (b === PREFIX) this.#pending = true;
      else if (b === 0x1b && startsWith(data, i, kitty)) {
        this.#pending = true;
        i += kitty.length - 1;
      } else out.push(b);
    }
    return { pass: Uint8Array.from(out), marks };
  }
}

function startsWith(data: Uint8Array, at: number, what: Uint8Array): boolean {
  if (at + what.length > data.length) return false;
  for (let j = 0; j < what.length; j++) if (data[at + j] !== what[j]) return false;
  return true;
}

/** The help line for the chord (record's help and its start-up line). */
export const CHORD_HELP =
  'Ctrl-\\ then b, w or i marks blocked, working or idle; Ctrl-\\ twice sends Ctrl-\\';

/**
 * The version of the npm package that ships `resolvedCommand` (its realpath's nearest
 * package.json with a name and a version), or null.
 */
export function packageVersion(resolvedCommand: string): string | null {
  let dir;
  try {
    dir = dirname(realpathSync(resolvedCommand));
  } catch {
    return null;
  }
  for (let i = 0; i < 8; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        const data = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown; version?: unknown };
        if (typeof data.name === 'string' && typeof data.version === 'string') return data.version;
      } catch {
        return null;
      }
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}

/** Seconds with ms precision. */
function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

/**
 * Writes one recording as it happens. Every line is written with write(2) at once, so what
 * was recorded is on disk even if the process is killed.
 */
export class Recorder {
  readonly meta: RecordingMeta;
  readonly #t0: number;
  readonly #fds: { bytes: number; input: number; truth: number };
  #closed = false;

  /**
   * Starts a recording: creates `dir/name.*` (the folder too).
   * @throws UserError when `dir/name.bytes.jsonl` exists already (a recording is never
   *   overwritten) or the files cannot be created.
   */
  constructor(
    readonly dir: string,
    readonly name: string,
    meta: Omit<RecordingMeta, 'resizes' | 'started' | 'agent'> & { agent?: string },
    now: () => number = performance.now.bind(performance),
  ) {
    this.#now = now;
    this.#t0 = now();
    this.meta = { agent: '', ...meta, resizes: [], started: new Date().toISOString() };
    const path = (ext: string) => join(dir, `${name}.${ext}`);
    if (existsSync(path('bytes.jsonl'))) {
      throw new UserError(
        `${path('bytes.jsonl')}: a recording of that name exists; pick another --name or --out`,
      );
    }
    try {
      this.#fds = {
        bytes: openSync(path('bytes.jsonl'), 'wx', 0o644),
        input: openSync(path('input.jsonl'), 'a', 0o644),
        truth: openSync(path('truth.jsonl'), 'a', 0o644),
      };
    } catch (e) {
      throw new UserError(
        `${dir}: cannot create the recording (${(e as NodeJS.ErrnoException).code ?? e})`,
      );
    }
    this.writeMeta();
  }

  readonly #now: () => number;

  /** Seconds since the recording started. */
  elapsed(): number {
    return seconds(this.#now() - this.#t0);
  }

  /** Records a chunk of the agent's output. */
  output(data: Uint8Array): void {
    this.#line(this.#fds.bytes, { t: this.elapsed(), b64: Buffer.from(data).toString('base64') });
  }

  /** Records a chunk the person typed (as passed to the agent). */
  input(data: Uint8Array): void {
    if (!data.length) return;
    const buf = Buffer.from(data);
    const text = buf.toString('utf8');
    const t = this.elapsed();
    this.#line(
      this.#fds.input,
      Buffer.from(text, 'utf8').equals(buf)
        ? { t, keys: text }
        : { t, b64: buf.toString('base64') },
    );
  }

  /** Appends a truth mark; returns it. */
  mark(state: TruthState, why: string): TruthMark {
    const m = { t: this.elapsed(), state, why };
    this.#line(this.#fds.truth, m);
    return m;
  }

  /** Records a resize, in cells. */
  resized(rows: number, cols: number): void {
    const last = this.meta.resizes.at(-1) ?? this.meta;
    if (last.rows === rows && last.cols === cols) return;
    this.meta.resizes.push({ t: this.elapsed(), rows, cols });
    this.writeMeta();
  }

  /** Sets the agent (manifest id) once it is known. */
  agent(id: string): void {
    if (!id || this.meta.agent === id) return;
    this.meta.agent = id;
    this.writeMeta();
  }

  /** Records the exit and closes the files. Later calls do nothing. */
  close(code?: number): void {
    if (this.#closed) return;
    if (code !== undefined) this.meta.exit = { t: this.elapsed(), code };
    this.writeMeta();
    this.#closed = true;
    for (const fd of Object.values(this.#fds)) closeSync(fd);
  }

  /** Rewrites `NAME.meta.json` (through a temporary file and a rename). */
  writeMeta(): void {
    if (this.#closed) return;
    const path = join(this.dir, `${this.name}.meta.json`);
    writeFileSync(path + '.tmp', JSON.stringify(this.meta, null, 1) + '\n');
    renameSync(path + '.tmp', path);
  }

  #line(fd: number, value: unknown): void {
    if (this.#closed) return;
    writeSync(fd, JSON.stringify(value) + '\n');
  }
}

/** A recording read back. */
export interface Recording {
  /** The folder and the name. */
  dir: string;
  name: string;
  meta: RecordingMeta;
  chunks: Array<{ t: number; bytes: Uint8Array }>;
  truth: TruthMark[];
}

/**
 * Where the recording `rec` is: `rec` is its name with folder (`DIR/NAME`) or any of its files
 * (`DIR/NAME.bytes.jsonl`, `DIR/NAME.meta.json`, ...).
 */
export function recordingPath(rec: string): { dir: string; name: string } {
  const m = /\.(bytes|input|truth|meta|hooks)\.jsonl?$/.exec(rec);
  const base = m ? rec.slice(0, m.index) : rec;
  return { dir: dirname(base), name: basename(base) };
}

function readJsonl<T>(path: string, what: string): T[] {
  if (!existsSync(path)) return [];
  const out: T[] = [];
  readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      out.push(JSON.parse(line) as T);
    } catch (e) {
      throw new UserError(`${path}:${i + 1}: not a JSON line of ${what} (${(e as Error).message})`);
    }
  });
  return out;
}

/**
 * Reads a recording (the format above; the older captures' meta without `resizes`/`argv` too).
 * @throws UserError naming the file and line when something is missing or malformed.
 */
export function readRecording(rec: string): Recording {
  const { dir, name } = recordingPath(rec);
  const bytesPath = join(dir, `${name}.bytes.jsonl`);
  if (!existsSync(bytesPath)) {
    throw new UserError(`no such recording: ${rec} (no ${bytesPath})`);
  }
  const chunks = readJsonl<{ t?: unknown; b64?: unknown }>(bytesPath, '{t, b64}').map((c, i) => {
    if (typeof c.t !== 'number' || typeof c.b64 !== 'string') {
      throw new UserError(`${bytesPath}:${i + 1}: expected {"t": seconds, "b64": bytes}`);
    }
    return { t: c.t, bytes: Uint8Array.from(Buffer.from(c.b64, 'base64')) };
  });
  const truthPath = join(dir, `${name}.truth.jsonl`);
  const truth = readJsonl<TruthMark>(truthPath, '{t, state, why}');
  truth.forEach((m, i) => {
    if (typeof m.t !== 'number' || !['blocked', 'working', 'idle'].includes(m.state)) {
      throw new UserError(`${truthPath}:${i + 1}: expected {"t": seconds, "state": STATE}`);
    }
  });
  const metaPath = join(dir, `${name}.meta.json`);
  let raw: Partial<RecordingMeta> = {};
  if (existsSync(metaPath)) {
    try {
      raw = JSON.parse(readFileSync(metaPath, 'utf8'));
    } catch (e) {
      throw new UserError(`${metaPath}: not valid JSON (${(e as Error).message})`);
    }
  }
  const meta: RecordingMeta = {
    agent: typeof raw.agent === 'string' ? raw.agent : '',
    version: typeof raw.version === 'string' ? raw.version : null,
    rows: Number.isInteger(raw.rows) ? raw.rows! : 32,
    cols: Number.isInteger(raw.cols) ? raw.cols! : 120,
    resizes: Array.isArray(raw.resizes) ? raw.resizes : [],
    argv: Array.isArray(raw.argv) ? raw.argv : [],
    args: Array.isArray(raw.args) ? raw.args : [],
    started: typeof raw.started === 'string' ? raw.started : '',
    exit: raw.exit,
  };
  return { dir, name, meta, chunks, truth };
}
