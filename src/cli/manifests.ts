/**
 * `agentwatch manifests`: which detection manifests are in force, and checking a manifest
 * file before using it.
 *
 *   manifests list            every source (--manifest, your folder, catalog, bundled): id,
 *                             version, in force or not, last check, last result, last error
 *   manifests where           the folders, the config file and the catalog URL
 *   manifests check FILE...   parse + validate each file (with the catalog's limits) and run
 *                             its [[examples]]
 *
 * `check` exits 0 only when every file parses and every example gives its expected state; a
 * broken file prints its ManifestError (file:line: path: problem) and exits 1.
 */
import { type Command, type Io, type OptionValues, UsageError, UserError } from './command.ts';
import { ManifestError } from '../detect/errors.ts';
import { runExamples } from '../detect/examples.ts';
import type { Manifest } from '../detect/manifest.ts';
import { loadManifestFile } from '../runtime/manifest-sources.ts';
import { type ManifestSet, sourceLabel, type SourceStatus } from '../runtime/manifest-set.ts';
import { personManifests } from '../runtime/default-host.ts';
import { catalogCacheDir, configFile, userManifestDir } from '../runtime/user-dirs.ts';
import { loadConfig } from '../runtime/config.ts';
import { makeKeyPair } from '../runtime/catalog-build.ts';
import { lastPull } from '../runtime/catalog-cache.ts';
import { pullCatalog } from '../runtime/catalog-updater.ts';
import { writeFileSync } from 'node:fs';

/** One row of `manifests list --json`: one source file (or bundled manifest) and its last read. */
export interface ManifestListRecord {
  id: string | null;
  name: string | null;
  version: string | null;
  process: string[];
  rules: number;
  examples: number;
  source: string;
  bundled: boolean;
  /** '--manifest', 'your folder', 'catalog' or 'bundled'. */
  from: string;
  /** True when this is the manifest in force for its id. */
  inForce: boolean;
  /** ms since the epoch of the last read; null for bundled. */
  lastCheck: number | null;
  lastResult: string;
  lastError: string | null;
}

function listRecord(st: SourceStatus, m: Manifest | undefined): ListRow {
  return {
    id: st.id,
    name: m?.name ?? null,
    version: st.version,
    process: m ? [...m.process] : [],
    rules: m?.rules.length ?? 0,
    examples: m?.examples.length ?? 0,
    source: st.path,
    bundled: st.kind === 'bundled',
    from: sourceLabel(st.kind),
    inForce: st.inForce,
    lastCheck: st.lastCheck,
    lastResult: st.lastResult,
    lastError: st.lastError,
  };
}
type ListRow = ManifestListRecord;

/** Formats rows as left-aligned columns separated by two spaces. */
function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) =>
    r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]))).join('  ')
  ).join('\n') + '\n';
}

/** 'HH:MM:SS' today, else the date and time; '-' for null. */
function when(t: number | null): string {
  if (t === null) return '-';
  const d = new Date(t);
  const iso = new Date(t - d.getTimezoneOffset() * 60_000).toISOString();
  return new Date().toDateString() === d.toDateString() ? iso.slice(11, 19) : iso.slice(0, 16);
}

/**
 * Lists every source of `set` (and the catalog's own status lines, `extra`): one row per file
 * or bundled manifest, the one in force marked, then the errors.
 */
export function listSources(set: ManifestSet, json: boolean, io: Io, extra: string[] = []): number {
  const byPath = new Map<string, Manifest>();
  for (const m of set.bundled.values()) byPath.set(m.source, m);
  for (const m of set.effective().values()) byPath.set(m.source, m);
  const records = set.statuses().map((st) => listRecord(st, byPath.get(st.path)));
  if (json) {
    for (const r of records) io.stdout(JSON.stringify(r) + '\n');
    return 0;
  }
  const rows = [['ID', 'VERSION', 'SOURCE', 'IN FORCE', 'CHECKED', 'RESULT', 'FILE']];
  for (const r of records) {
    rows.push([
      r.id ?? '?',
      r.version ?? '-',
      r.from,
      r.inForce ? 'yes' : 'no',
      when(r.lastCheck),
      r.lastResult,
      r.source,
    ]);
  }
  io.stdout(table(rows));
  for (const r of records) if (r.lastError) io.stdout(refusedLine(r) + '\n');
  for (const line of extra) io.stdout(line + '\n');
  return 0;
}

/**
 * What a refused file's error line says: the file, what is wrong (its ManifestError names
 * both) and what is in force instead, e.g. `refused: F.toml:9: ...; its last good copy,
 * claude 2026.12.01, stays in force`.
 */
function refusedLine(r: ListRow): string {
  const instead = !r.version
    ? 'nothing from this file is in force'
    : r.inForce
    ? `its last good copy, ${r.id} ${r.version}, stays in force`
    : `its last good copy, ${r.id} ${r.version}, is kept (another source is in force for ${r.id})`;
  return `refused: ${r.lastError}; ${instead}`;
}

/**
 * The catalog's lines: 'catalog: URL (from); last check T: result' (and '; error: E' when the
 * last pull failed), then one line per manifest its last read of the index refused (which, why,
 * and what is in force for that id instead: the last good copy stays), or how to set one up.
 */
function catalogLines(env: NodeJS.ProcessEnv, set: ManifestSet): string[] {
  const { config, origins } = loadConfig(env);
  if (!config.catalogUrl) {
    return ['catalog: none (set catalog_url in the config file; agentwatch manifests where)'];
  }
  const p = lastPull(catalogCacheDir(env));
  const head = `catalog: ${config.catalogUrl} (${origins.get('catalog_url')}${
    config.update ? '' : ', update = false'
  }); last check ${when(p.lastCheck)}: ${p.lastResult ?? 'never'}${
    p.lastError ? `; error: ${p.lastError}` : ''
  }`;
  const statuses = set.statuses();
  return [
    head,
    ...p.refused.map((r) => {
      const m = set.effective().get(r.id);
      const st = m && statuses.find((s) => s.path === m.source);
      const instead = m
        ? `${m.id} ${m.version}${st ? ` (${sourceLabel(st.kind)})` : ''} stays in force`
        : `no ${r.id} manifest is in force`;
      return `catalog refused: ${r.id} ${r.version}: ${r.why}; ${instead}`;
    }),
  ];
}

/**
 * `manifests pull`: fetches the catalog now (whoever checked last), prints what was adopted or
 * refused and why. Exit 0 when the catalog was read (even if some manifests were refused), 1
 * when it could not be used.
 */
export async function pull(
  args: string[],
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (args.length) throw new UsageError(`pull takes no arguments, got '${args[0]}'`);
  const { config } = loadConfig(env);
  if (!config.catalogUrl) {
    throw new UserError(
      'no catalog: set catalog_url in the config file (or AGENTWATCH_MANIFEST_URL)',
    );
  }
  const set = personManifests([], env, false);
  const r = await pullCatalog({
    url: config.catalogUrl,
    keys: config.catalogKeys,
    cacheDir: catalogCacheDir(env),
    set,
    force: true,
  });
  io.stdout(`${config.catalogUrl}: ${r.result} (${r.bytes} bytes, ${r.ms.toFixed(0)} ms)\n`);
  for (const a of r.adopted) io.stdout(`adopted  ${a.id} ${a.version}\n`);
  for (const x of r.refused) io.stdout(`refused  ${x.id} ${x.version}: ${x.why}\n`);
  if (r.error) io.stderr(`agentwatch manifests pull: ${r.error}\n`);
  return r.result === 'failed' || r.result === 'skipped' ? 1 : 0;
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
  summary: 'the detection manifests in force and where from; check a file; pull the catalog',
  usage: 'manifests list [--json]\n       agentwatch manifests where\n' +
    '       agentwatch manifests pull\n       agentwatch manifests check FILE...\n' +
    '       agentwatch manifests keygen PREFIX',
  options: { json: { type: 'boolean' } },
  help: { json: 'list: one JSON object per source file or bundled manifest' },
  run: (values, positionals, io) =>
    positionals[0] === 'pull'
      ? pull(positionals.slice(1), io)
      : Promise.resolve(runManifests(values, positionals, io)),
};

/**
 * Runs `manifests` with parsed options; returns the exit code.
 * @throws UsageError for a missing or unknown subcommand, or `check` without files.
 */
export function runManifests(
  values: OptionValues,
  positionals: string[],
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const [sub, ...args] = positionals;
  switch (sub) {
    case 'list':
      if (args.length) throw new UsageError(`list takes no arguments, got '${args[0]}'`);
      {
        const set = personManifests([], env, false);
        return listSources(set, values.json === true, io, catalogLines(env, set));
      }
    case 'where':
      if (args.length) throw new UsageError(`where takes no arguments, got '${args[0]}'`);
      {
        const { config, origins } = loadConfig(env);
        io.stdout(
          `your folder:   ${userManifestDir(env)}\n` +
            `catalog cache: ${catalogCacheDir(env)}\n` +
            `catalog URL:   ${config.catalogUrl ?? 'none'}${
              config.catalogUrl ? ` (${origins.get('catalog_url')})` : ''
            }${config.update ? '' : ' (update = false)'}\n` +
            `config file:   ${configFile(env)}\n`,
        );
      }
      return 0;
    case 'keygen': {
      if (args.length > 1) {
        throw new UsageError(`keygen takes one PREFIX, got also '${args[1]}'`);
      }
      if (args.length !== 1) {
        throw new UsageError('keygen needs one PREFIX (writes PREFIX.key and PREFIX.pub)');
      }
      const { privatePem, publicKey } = makeKeyPair();
      try {
        writeFileSync(`${args[0]}.key`, privatePem, { mode: 0o600, flag: 'wx' });
        writeFileSync(`${args[0]}.pub`, publicKey + '\n', { flag: 'wx' });
      } catch (e) {
        throw new UserError(
          `${args[0]}.key/.pub: ${
            (e as NodeJS.ErrnoException).code === 'EEXIST'
              ? 'exists already (nothing overwritten)'
              : (e as Error).message
          }`,
        );
      }
      io.stdout(
        `private key: ${args[0]}.key (keep it secret; sign with: npm run catalog -- --key ${
          args[0]
        }.key)\n` +
          `public key:  ${publicKey}\n` +
          `readers add it to their config.toml: catalog_keys = ["${publicKey}"]\n`,
      );
      return 0;
    }
    case 'check': {
      if (!args.length) throw new UsageError('check needs at least one FILE');
      let ok = true;
      for (const file of args) ok = checkFile(file, io) && ok;
      return ok ? 0 : 1;
    }
    case undefined:
      throw new UsageError('give a subcommand: list, where, pull, check FILE... or keygen PREFIX');
    default:
      throw new UsageError(
        `unknown subcommand '${sub}' (expected list, where, pull, check or keygen)`,
      );
  }
}
