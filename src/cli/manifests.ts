/**
 * `agentwatch manifests`: which detection manifests are in force, and checking a manifest
 * file before using it.
 *
 *   manifests list            id, name, version, process names, rule count, source
 *   manifests check FILE...   parse + validate each file and run its [[examples]]
 *
 * `check` exits 0 only when every file parses and every example gives its expected state; a
 * broken file prints its ManifestError (file:line: path: problem) and exits 1.
 */
import { type Command, type Io, type OptionValues, UsageError } from './command.ts';
import { ManifestError } from '../detect/errors.ts';
import { runExamples } from '../detect/examples.ts';
import type { Manifest } from '../detect/manifest.ts';
import { isBundled, loadBundledManifests, loadManifestFile } from '../runtime/manifest-sources.ts';

/** One row of `manifests list --json`. */
export interface ManifestListRecord {
  id: string;
  name: string;
  version: string;
  process: string[];
  rules: number;
  examples: number;
  source: string;
  bundled: boolean;
}

function listRecord(m: Manifest): ManifestListRecord {
  return {
    id: m.id,
    name: m.name,
    version: m.version,
    process: [...m.process],
    rules: m.rules.length,
    examples: m.examples.length,
    source: m.source,
    bundled: isBundled(m),
  };
}

/** Formats rows as left-aligned columns separated by two spaces. */
function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) =>
    r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]))).join('  ')
  ).join('\n') + '\n';
}

function list(manifests: readonly Manifest[], json: boolean, io: Io): number {
  const records = manifests.map(listRecord);
  if (json) {
    for (const r of records) io.stdout(JSON.stringify(r) + '\n');
    return 0;
  }
  const rows = [['ID', 'NAME', 'VERSION', 'PROCESS', 'RULES', 'SOURCE']];
  for (const r of records) {
    const source = r.bundled ? `bundled (${r.source})` : r.source;
    rows.push([r.id, r.name, r.version, r.process.join(','), String(r.rules), source]);
  }
  io.stdout(table(rows));
  return 0;
}

/** Checks one file; returns true when it parses and all its examples pass. */
function checkFile(path: string, io: Io): boolean {
  let manifest: Manifest;
  try {
    manifest = loadManifestFile(path);
  } catch (e) {
    if (e instanceof ManifestError) {
      io.stderr(`${e.message}\n`);
      return false;
    }
    throw e;
  }
  const report = runExamples(manifest);
  const n = manifest.rules.length;
  const head = `${path}: manifest '${manifest.id}' ${manifest.version}, ${n} rule${
    n === 1 ? '' : 's'
  }`;
  if (report.results.length === 0) {
    io.stdout(`${head}, no examples to run\n`);
    return true;
  }
  const k = report.results.length;
  io.stdout(`${head}, ${k} example${k === 1 ? '' : 's'}\n`);
  for (const r of report.results) {
    const label = `examples[${r.index}]${r.name ? ` ${r.name}` : ''}`;
    if (r.ok) io.stdout(`  ok    ${label}: ${r.got}\n`);
    else io.stdout(`  FAIL  ${label}: expected ${r.expected}, got ${r.got} (${r.reason})\n`);
  }
  const failed = report.failed.length;
  io.stdout(`${path}: ${report.passed} passed, ${failed} failed\n`);
  return failed === 0;
}

export const manifestsCommand: Command = {
  name: 'manifests',
  summary: 'list the detection manifests in force; check a manifest file',
  usage: 'manifests list [--json]\n       agentwatch manifests check FILE...',
  options: { json: { type: 'boolean' } },
  help: { json: 'list: one JSON object per manifest' },
  run: (values, positionals, io) => Promise.resolve(runManifests(values, positionals, io)),
};

/**
 * Runs `manifests` with parsed options; returns the exit code.
 * @throws UsageError for a missing or unknown subcommand, or `check` without files.
 */
export function runManifests(values: OptionValues, positionals: string[], io: Io): number {
  const [sub, ...args] = positionals;
  switch (sub) {
    case 'list':
      if (args.length) throw new UsageError(`list takes no arguments, got '${args[0]}'`);
      return list([...loadBundledManifests().values()], values.json === true, io);
    case 'check': {
      if (!args.length) throw new UsageError('check needs at least one FILE');
      let ok = true;
      for (const file of args) ok = checkFile(file, io) && ok;
      return ok ? 0 : 1;
    }
    case undefined:
      throw new UsageError('give a subcommand: list or check FILE...');
    default:
      throw new UsageError(`unknown subcommand '${sub}' (expected list or check)`);
  }
}
