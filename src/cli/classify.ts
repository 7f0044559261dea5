/**
 * `agentwatch classify`: replays capture files into an emulated screen and prints the state
 * each one's manifest gives, with the rule and the matched text. `--compare LABELS.json`
 * prints the seed's table: truth | the same rules on the stripped 8 KB tail | the screen.
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import {
  type Command,
  type Io,
  type OptionValues,
  parseSize,
  stringList,
  stringOption,
  UsageError,
  UserError,
} from './command.ts';
import { manifestForFile } from './capture-manifest.ts';
import { evaluate } from '../detect/evaluate.ts';
import type { Manifest } from '../detect/manifest.ts';
import { ManifestError } from '../detect/errors.ts';
import type { Evaluation, RuleState } from '../detect/types.ts';
import { personManifests } from '../runtime/default-host.ts';
import { sourceLabel } from '../runtime/manifest-set.ts';
import { checkCaptureFile, renderFile } from '../runtime/render-file.ts';
import { tailScreen } from '../eval/tail-baseline.ts';

/** One classified file, as printed by `--json`. */
export interface ClassifyRecord {
  file: string;
  agent: string;
  state: RuleState;
  rule: number | null;
  pattern: string | null;
  match: string | null;
  region: string | null;
}

/** Options shared by classify and explain: which manifests, which size. */
export interface ClassifySetup {
  manifests: ReadonlyMap<string, Manifest>;
  /** The one `--manifest` file given without `--agent`: it classifies every file. */
  explicit?: Manifest;
  agent?: string;
  rows: number;
  cols: number;
  /** Which source a manifest in force came from ('--manifest', 'your folder', ...). */
  sourceOf: (id: string) => string;
}

/**
 * Reads `--agent`, `--manifest` (repeatable) and `--size` into a {@link ClassifySetup}: the
 * manifests of every source (manifest-set.ts), `--manifest` files first.
 * @throws ManifestError when a `--manifest` file cannot be used.
 */
export function classifySetup(
  values: OptionValues,
  env: NodeJS.ProcessEnv = process.env,
): ClassifySetup {
  const { rows, cols } = parseSize(stringOption(values, 'size', '32x120')!);
  const files = stringList(values, 'manifest');
  const agent = stringOption(values, 'agent');
  const set = personManifests(files, env, false);
  const manifests = set.effective();
  if (agent !== undefined && !manifests.has(agent)) {
    // a usage error (exit 2), as `run --agent`: said once, not once per file
    throw new UsageError(
      `--agent ${agent}: no such agent (known: ${[...manifests.keys()].join(', ')})`,
    );
  }
  const explicit = files.length === 1 && !agent
    ? [...set.effective().values()].find((m) => m.source === files[0])
    : undefined;
  return {
    manifests,
    explicit,
    agent,
    rows,
    cols,
    sourceOf: (id) => sourceLabel(set.sourceOf(id) ?? 'bundled'),
  };
}

/** Classifies one capture file. @throws UserError for a bad file or an unknown agent. */
export async function classifyFile(path: string, setup: ClassifySetup): Promise<
  { record: ClassifyRecord; evaluation: Evaluation; tail: Evaluation; manifest: Manifest }
> {
  await checkCaptureFile(path); // a missing file is named as such before its name is read
  const manifest = manifestForFile(path, setup.manifests, setup.agent, setup.explicit);
  const rendered = await renderFile(path, setup.rows, setup.cols);
  const evaluation = evaluate(rendered.terminal.snapshot(), manifest);
  const tail = evaluate(tailScreen(rendered.tail), manifest);
  const record: ClassifyRecord = {
    file: path,
    agent: manifest.id,
    state: evaluation.state,
    rule: evaluation.rule,
    pattern: evaluation.pattern,
    match: evaluation.match,
    region: evaluation.region,
  };
  return { record, evaluation, tail, manifest };
}

function oneLine(text: string | null, max = 60): string {
  if (text === null) return '';
  const flat = text.replace(/\n/g, '⏎');
  return JSON.stringify(flat.length > max ? flat.slice(0, max - 1) + '…' : flat);
}

async function classifyFiles(
  files: string[],
  setup: ClassifySetup,
  json: boolean,
  io: Io,
): Promise<number> {
  const records: ClassifyRecord[] = [];
  let failed = 0;
  const width = Math.max(...files.map((f) => f.length));
  for (const file of files) {
    try {
      const { record, evaluation } = await classifyFile(file, setup);
      records.push(record);
      if (!json) {
        const rule = evaluation.rule === null
          ? 'no rule matched'
          : `rule ${evaluation.rule} ${evaluation.region ?? ''}`;
        io.stdout(
          `${file.padEnd(width)}  ${record.state.padEnd(7)}  ${rule.padEnd(22)}  ${
            oneLine(evaluation.match)
          }`.trimEnd() + '\n',
        );
      }
    } catch (e) {
      if (!(e instanceof UserError) && !(e instanceof ManifestError)) throw e;
      failed++;
      io.stderr(`agentwatch classify: ${e.message}\n`);
    }
  }
  if (json) io.stdout(JSON.stringify(records, null, 2) + '\n');
  return failed ? 1 : 0;
}

/**
 * Reads a labels file: a JSON object `{"FILE": STATE}` (STATE blocked, working or idle), files
 * relative to it; an entry `{"state": STATE, "size": "ROWSxCOLS"}` names a fixture cut at
 * another size than the default.
 * @throws UserError naming the file and the bad entry.
 */
export async function readLabels(
  path: string,
): Promise<Array<{ file: string; truth: RuleState; size?: { rows: number; cols: number } }>> {
  let text;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UserError(`${path}: cannot read labels (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new UserError(`${path}: not valid JSON (${(e as Error).message})`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw new UserError(`${path}: expected a JSON object {"FILE": "STATE"}`);
  }
  const out = [];
  for (const [file, entry] of Object.entries(data)) {
    const obj = entry && typeof entry === 'object'
      ? entry as { state?: unknown; size?: unknown }
      : null;
    const truth = obj ? obj.state : entry;
    if (truth !== 'blocked' && truth !== 'working' && truth !== 'idle') {
      throw new UserError(
        `${path}: ${file}: label must be blocked, working or idle, got ${JSON.stringify(truth)}`,
      );
    }
    let size;
    if (obj && obj.size !== undefined) {
      try {
        size = parseSize(String(obj.size));
      } catch (e) {
        throw new UserError(`${path}: ${file}: ${(e as Error).message.replace('--size', 'size')}`);
      }
    }
    out.push({ file: resolve(dirname(path), file), truth, size });
  }
  return out;
}

async function compare(
  labelFiles: string[],
  setup: ClassifySetup,
  json: boolean,
  io: Io,
): Promise<number> {
  let wrong = 0;
  type Row = {
    file: string;
    agent: string;
    truth: RuleState;
    tail: RuleState;
    screen: RuleState;
    /** The emulated screen's size, ROWSxCOLS: the label's, else `--size`'s. */
    size: string;
  };
  const all: Row[] = [];
  for (const labels of labelFiles) {
    const rows: Row[] = [];
    for (const { file, truth, size } of await readLabels(labels)) {
      const used = size ? { ...setup, ...size } : setup;
      const { record, tail } = await classifyFile(file, used);
      rows.push({
        file,
        agent: record.agent,
        truth,
        tail: tail.state,
        screen: record.state,
        size: `${used.rows}x${used.cols}`,
      });
    }
    all.push(...rows);
    if (json) continue;
    const w = Math.max(30, ...rows.map((r) => basename(r.file).length));
    const mark = (got: RuleState, truth: RuleState) =>
      got.padEnd(8) + (got === truth ? '  ' : ' ✗');
    // The header names the size the screens were emulated at; when a labels file mixes
    // sizes, each row says its own.
    const sizes = new Set(rows.map((r) => r.size));
    const one = sizes.size <= 1 ? (rows[0]?.size ?? `${setup.rows}x${setup.cols}`) : undefined;
    io.stdout(`${labels}\n`);
    io.stdout(
      `${'fixture'.padEnd(w)}  ${'truth'.padEnd(8)}  ${'last 8 KB, stripped'.padEnd(20)}  ${
        one ? `emulated ${one} screen` : 'emulated screen (size)'
      }\n`,
    );
    for (const r of rows) {
      io.stdout(
        `${basename(r.file).padEnd(w)}  ${r.truth.padEnd(8)}  ${
          mark(r.tail, r.truth).padEnd(20)
        }  ${mark(r.screen, r.truth)}${one ? '' : ` (${r.size})`}`.trimEnd() + '\n',
      );
    }
    const ok = (k: 'tail' | 'screen') => rows.filter((r) => r[k] === r.truth).length;
    io.stdout(
      `correct: tail ${ok('tail')}/${rows.length}, screen ${ok('screen')}/${rows.length}\n\n`,
    );
  }
  wrong = all.filter((r) => r.screen !== r.truth).length;
  if (json) io.stdout(JSON.stringify(all, null, 2) + '\n');
  else if (labelFiles.length > 1) {
    const tailOk = all.filter((r) => r.tail === r.truth).length;
    io.stdout(`total: tail ${tailOk}/${all.length}, screen ${all.length - wrong}/${all.length}\n`);
  }
  return wrong ? 1 : 0;
}

export const classifyCommand: Command = {
  name: 'classify',
  summary: 'classify captured terminal bytes: state, rule and matched text per file',
  usage: 'classify [--agent ID | --manifest FILE] [--size ROWSxCOLS] [--json] FILE...\n' +
    '       agentwatch classify --compare LABELS.json [--compare LABELS.json ...]',
  options: {
    agent: { type: 'string' },
    manifest: { type: 'string', multiple: true },
    size: { type: 'string' },
    json: { type: 'boolean' },
    compare: { type: 'string', multiple: true },
  },
  placeholders: { agent: 'ID', manifest: 'FILE', size: 'ROWSxCOLS', compare: 'LABELS.json' },
  help: {
    agent: 'manifest id (claude, codex, gemini, qwen, opencode); default: the file name prefix',
    manifest:
      'use this manifest file for its agent (repeatable); one alone, without --agent, classifies every file',
    size: 'screen size in cells (default 32x120)',
    json: 'print one JSON array of {file, agent, state, rule, pattern, match, region}',
    compare: 'print truth | stripped 8 KB tail | emulated screen for a labels file',
  },
  async run(values, positionals, io) {
    const setup = classifySetup(values);
    const labels = stringList(values, 'compare');
    const json = values.json === true;
    if (labels.length) {
      // `--compare a/labels.json b/labels.json` (a shell glob after one --compare): the other
      // JSON files are labels files too.
      if (positionals.some((p) => !p.endsWith('.json'))) {
        throw new UsageError('--compare takes labels files (JSON), not capture files');
      }
      return await compare([...labels, ...positionals], setup, json, io);
    }
    if (!positionals.length) throw new UsageError('no capture file given');
    return await classifyFiles(positionals, setup, json, io);
  },
};
