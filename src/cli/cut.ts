/**
 * `agentwatch cut REC --at SECONDS|--mark N --label STATE [--out FILE]`: writes a fixture of
 * one moment of a recording (src/runtime/cut.ts says which bytes), its `.screen.txt`, and its
 * entry in the labels.json of the fixture's folder, and prints what it did.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import {
  type Command,
  type Io,
  type OptionValues,
  stringOption,
  UsageError,
  UserError,
} from './command.ts';
import { agentFromFileName } from './capture-manifest.ts';
import { cutRecording } from '../runtime/cut.ts';
import { readRecording, type Recording } from '../runtime/recording.ts';
import { loadBundledManifests, loadManifestFile } from '../runtime/manifest-sources.ts';
import type { Manifest } from '../detect/manifest.ts';

/** The file-name prefix `classify` reads the agent from, per manifest id. */
const FILE_PREFIX: Record<string, string> = {
  claude: 'claude',
  gemini: 'gemini-cli',
  qwen: 'qwen-code',
};

/** The manifest for a recording: `--manifest`, `--agent`, else its meta's agent. */
function manifestFor(rec: Recording, agent?: string, manifestPath?: string): Manifest {
  if (manifestPath) return loadManifestFile(manifestPath);
  const manifests = loadBundledManifests();
  const id = agent ?? agentFromFileName(rec.meta.agent || rec.name, manifests.keys());
  const m = id ? manifests.get(id) : undefined;
  if (!m) {
    throw new UserError(
      `${
        join(rec.dir, rec.name)
      }: cannot tell the agent (meta says '${rec.meta.agent}'); pass --agent ID (one of ${
        [...manifests.keys()].join(', ')
      })`,
    );
  }
  return m;
}

/**
 * Adds `file` (a path) with `state` to the labels.json in its folder, creating it; entries stay
 * sorted, and a size other than 32x120 is kept as `{"state", "size"}`.
 * @throws UserError when that labels.json exists and is not a JSON object.
 */
export function addLabel(file: string, state: string, rows: number, cols: number): string {
  const path = join(dirname(file), 'labels.json');
  let labels: Record<string, unknown> = {};
  if (existsSync(path)) {
    try {
      labels = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new UserError(`${path}: not valid JSON (${(e as Error).message}); not changed`);
    }
    if (!labels || typeof labels !== 'object' || Array.isArray(labels)) {
      throw new UserError(`${path}: expected a JSON object {"FILE": "STATE"}; not changed`);
    }
  }
  labels[basename(file)] = rows === 32 && cols === 120 ? state : { state, size: `${rows}x${cols}` };
  const sorted = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a < b ? -1 : 1));
  writeFileSync(path + '.tmp', JSON.stringify(sorted, null, 1) + '\n');
  renameSync(path + '.tmp', path);
  return path;
}

export const cutCommand: Command = {
  name: 'cut',
  summary: 'cut a fixture out of a recording at a moment or a truth mark, and label it',
  usage: 'cut REC (--at SECONDS | --mark N) [--label STATE] [--out FILE] [--force]',
  maxArgs: 1,
  options: {
    at: { type: 'string' },
    mark: { type: 'string' },
    label: { type: 'string' },
    out: { type: 'string' },
    agent: { type: 'string' },
    manifest: { type: 'string' },
    force: { type: 'boolean' },
  },
  placeholders: {
    at: 'SECONDS',
    mark: 'N',
    label: 'STATE',
    out: 'FILE',
    agent: 'ID',
    manifest: 'FILE',
  },
  help: {
    at: 'the moment, in seconds since the recording started',
    mark: "the moment of the Nth line of REC's truth.jsonl (1 = first); its state is the label",
    label: 'blocked, working or idle (required with --at)',
    out:
      'the fixture file (default: AGENT.LABEL.NAME.raw beside REC, or beside its recordings/ or marked/ folder)',
    agent: "manifest id to classify with (default: the recording's agent)",
    manifest: 'classify with this manifest file',
    force: 'replace FILE if it exists',
  },
  run: (values, positionals, io) =>
    Promise.resolve().then(() => cutFixture(values, positionals, io)),
};

/** How far past a recording's last output or mark `--at` may go, in seconds. */
const AT_SLACK_S = 1;

/** The command's body. @throws UsageError / UserError for bad arguments or a bad recording. */
function cutFixture(values: OptionValues, positionals: string[], io: Io): number {
  if (positionals.length !== 1) {
    throw new UsageError('give one recording (DIR/NAME or one of its files)');
  }
  // The recording first: a wrong path says so, whatever else is missing.
  const rec = readRecording(positionals[0]);
  const atText = stringOption(values, 'at');
  const markText = stringOption(values, 'mark');
  if ((atText === undefined) === (markText === undefined)) {
    throw new UsageError('give --at SECONDS or --mark N');
  }
  let at: number;
  let label = stringOption(values, 'label');
  let why = '';
  if (markText !== undefined) {
    const n = Number(markText);
    if (!Number.isInteger(n) || n < 1 || n > rec.truth.length) {
      throw new UsageError(
        `--mark ${markText}: ${
          join(rec.dir, rec.name)
        }.truth.jsonl has ${rec.truth.length} marks (1-${rec.truth.length})`,
      );
    }
    const m = rec.truth[n - 1];
    at = m.t;
    label ??= m.state;
    why = m.why;
  } else {
    at = Number(atText);
    if (!Number.isFinite(at) || at < 0) {
      throw new UsageError(`--at ${atText}: expected seconds >= 0`);
    }
    if (label === undefined) throw new UsageError('--at needs --label blocked|working|idle');
    // A moment after the recording's end would silently cut its last screen under a wrong time.
    const end = Math.max(0, ...rec.chunks.map((c) => c.t), ...rec.truth.map((m) => m.t));
    if (at > end + AT_SLACK_S) {
      throw new UsageError(
        `--at ${atText}: ${join(rec.dir, rec.name)} is ${end.toFixed(1)} s long ` +
          `(its last output or mark), give --at 0-${end.toFixed(1)}`,
      );
    }
  }
  if (label !== 'blocked' && label !== 'working' && label !== 'idle') {
    throw new UsageError(`--label must be blocked, working or idle, got '${label}'`);
  }
  const manifest = manifestFor(
    rec,
    stringOption(values, 'agent'),
    stringOption(values, 'manifest'),
  );
  let cut;
  try {
    cut = cutRecording(rec, at, manifest);
  } catch (e) {
    if (e instanceof RangeError) throw new UserError(`${join(rec.dir, rec.name)}: ${e.message}`);
    throw e;
  }
  const prefix = FILE_PREFIX[manifest.id] ?? manifest.id;
  let out = stringOption(values, 'out');
  if (out === undefined) {
    const folder = ['recordings', 'marked'].includes(basename(rec.dir))
      ? dirname(rec.dir)
      : rec.dir;
    const stem = join(folder, `${prefix}.${label}.${rec.name}`);
    out = `${stem}.raw`;
    for (let i = 2; existsSync(out); i++) out = `${stem}.${i}.raw`;
  } else if (existsSync(out) && values.force !== true) {
    throw new UserError(`${out}: exists; pass --force to replace it`);
  }
  out = resolve(out);
  if (agentFromFileName(out, [manifest.id]) === null && !stringOption(values, 'manifest')) {
    io.stderr(
      `agentwatch cut: note: ${
        basename(out)
      } does not start with '${prefix}.': classify will need --agent ${manifest.id}\n`,
    );
  }
  const screenPath = out.replace(/\.raw$/, '') + '.screen.txt';
  try {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, cut.bytes);
    writeFileSync(screenPath, cut.screen + '\n');
  } catch (e) {
    throw new UserError(`${out}: cannot write (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  const labels = addLabel(out, label, cut.rows, cut.cols);
  const rel = (p: string) => relative(process.cwd(), p) || p;
  io.stdout(
    [
      `${rel(out)}: ${cut.bytes.length} bytes at ${cut.at} s (${cut.chunks} reads${
        why ? `, mark: ${why}` : ''
      })`,
      cut.from === 'redraw'
        ? `  from the last full redraw: bytes ${cut.offset}-${cut.total} of the session`
        : `  from the session's start: all ${cut.total} bytes (${cut.why})`,
      `  size ${cut.rows}x${cut.cols}; ${rel(screenPath)}; ${rel(labels)}: ${label}`,
      `  ${manifest.id} classifies it ${cut.state}${
        cut.state === label ? '' : ` (labelled ${label}: a rule to write)`
      }`,
    ].join('\n') + '\n',
  );
  if (!cut.faithful) {
    io.stderr(
      `agentwatch cut: warning: the fixture renders differently from the recorded moment (${cut.liveState} live); the session was resized before it\n`,
    );
  }
  return 0;
}
