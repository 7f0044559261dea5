/**
 * Pulls the catalog and adopts what passes every check, into the cache folder that
 * manifest-set.ts reads. A new manifest is adopted only if: the index's signature verifies
 * (catalog.ts) and the file's size and sha256 match the index; it parses and validates with the
 * limits (rules <= 256, patterns <= 2048 characters, examples <= 512) and every pattern
 * compiles (re2js); its min_engine is <= ours; its version is newer than the one in force from
 * the catalog or bundled (no downgrade; the same version with other bytes is refused); every
 * `[[examples]]` entry passes; and every golden screen of its agent that the manifest in force
 * reads right is still read right. Otherwise the last good one stays and the refusal is told.
 *
 * Adopted files are written atomically; one fetch per interval per user, under the cache
 * folder's lock and by its `state.json` (catalog-cache.ts); other processes see the new files
 * through their folder watch and stat check.
 * Checks that take time yield to the event loop between steps, so a running sweep is not held.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManifestError } from '../detect/errors.ts';
import { evaluate } from '../detect/evaluate.ts';
import { ENGINE_VERSION, type Manifest, parseManifest } from '../detect/manifest.ts';
import type { ScreenInput } from '../detect/types.ts';
import { compareVersions } from '../detect/version.ts';
import { bundledGoldenScreens, type GoldenScreen } from './bundled-golden.ts';
import {
  CatalogError,
  type IndexEntry,
  parseIndex,
  PINNED_CATALOG_KEYS,
  verifyIndex,
} from './catalog.ts';
import { type CacheState, readState, takeLock, writeAtomic } from './catalog-cache.ts';
import { fetchBounded } from './catalog-fetch.ts';
import { checkExamples } from './manifest-files.ts';
import type { ManifestSet } from './manifest-set.ts';
import {
  compileYielding,
  loadManifestFileYielding,
  MANIFEST_MAX_BYTES,
} from './manifest-sources.ts';
import { decodeUtf8, FileReadError } from './read-bounded.ts';
import { bundledManifestTexts } from './bundled-manifests.ts';

/** The first retry after a failed pull, ms; doubled after each failure, up to the interval. */
export const BACKOFF_START_MS = 60_000;
/** The interval when the caller gives none, ms (30 min, as the config's default). */
export const DEFAULT_PULL_INTERVAL_MS = 30 * 60_000;

/** What one pull did. */
export interface PullReport {
  at: number;
  /**
   * 'adopted' (at least one), 'refused' (none adopted, some refused), 'up to date', 'not
   * modified' (HTTP 304), 'skipped' (another process pulls or pulled lately), 'failed'.
   */
  result: 'adopted' | 'refused' | 'up to date' | 'not modified' | 'skipped' | 'failed';
  /** The catalog-wide error (fetch, signature, index), null when none. */
  error: string | null;
  adopted: Array<{ id: string; version: string }>;
  refused: Array<{ id: string; version: string; why: string }>;
  /** When the next pull is due, ms since the epoch (null: when the caller likes). */
  next: number | null;
  /** Milliseconds spent, and bytes fetched. */
  ms: number;
  bytes: number;
}

/** How to pull. */
export interface PullOptions {
  /** The index's URL. */
  url: string;
  /** The config's `catalog_keys`: null when not written, [] to accept unsigned catalogs. */
  keys: readonly string[] | null;
  cacheDir: string;
  /** The manifests in force (for versions and the golden check) and where notices go. */
  set: ManifestSet;
  timeoutMs?: number;
  /** The per-file byte cap (default 256 KiB). */
  maxBytes?: number;
  /** Pull even when another process checked less than an interval ago. */
  force?: boolean;
  /** With `force` false: skip when the last check (state.json) is younger than this, ms. */
  intervalMs?: number;
  now?: () => number;
  /** The golden screens (default: bundled). */
  goldens?: () => Promise<GoldenScreen[]>;
}

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const yieldNow = () => new Promise<void>((r) => setImmediate(r));

/** The screen a golden screen stands for. */
function goldenInput(g: GoldenScreen): ScreenInput {
  return { rows: g.rows, wrapped: g.wrapped, title: g.title, osc: new Map(g.osc) };
}

/** True when capture prefix `prefix` ('qwen-code') belongs to agent `id` ('qwen'). */
function ofAgent(prefix: string, id: string): boolean {
  return prefix === id || prefix.startsWith(id + '-');
}

/**
 * Checks one downloaded manifest against everything but the signature.
 * @returns the parsed manifest.
 * @throws CatalogError or ManifestError naming the refusal.
 */
export async function vetManifest(
  bytes: Uint8Array,
  entry: IndexEntry,
  label: string,
  current: Manifest | null,
  goldens: GoldenScreen[],
): Promise<Manifest> {
  if (bytes.length !== entry.size) {
    throw new CatalogError(`${label}: size ${bytes.length} bytes, the index says ${entry.size}`);
  }
  const digest = sha256(bytes);
  if (digest !== entry.sha256) {
    throw new CatalogError(
      `${label}: sha256 mismatch (got ${digest}, the index says ${entry.sha256})`,
    );
  }
  let text: string;
  try {
    text = decodeUtf8(bytes, label);
  } catch (e) {
    if (e instanceof FileReadError) throw new CatalogError(e.message);
    throw e;
  }
  const m = parseManifest(text, label, await compileYielding(text));
  await yieldNow();
  if (m.id !== entry.id) {
    throw new CatalogError(`${label}: id '${m.id}', the index says '${entry.id}'`);
  }
  if (m.version !== entry.version) {
    throw new CatalogError(`${label}: version '${m.version}', the index says '${entry.version}'`);
  }
  checkExamples(m);
  await yieldNow();
  for (const g of goldens) {
    if (!ofAgent(g.prefix, m.id)) continue;
    const input = goldenInput(g);
    if (current && evaluate(input, current).state !== g.label) continue; // already wrong: no regression
    const got = evaluate(input, m).state;
    if (got !== g.label) {
      throw new CatalogError(
        `${label}: golden screen ${g.file} is ${g.label}, this manifest reads it as ${got}`,
      );
    }
    await yieldNow();
  }
  return m;
}

/**
 * Pulls the catalog once: fetch, verify, check, adopt. Never throws for the catalog's faults;
 * they are in the report (and told as notices on `set`).
 */
export async function pullCatalog(opts: PullOptions): Promise<PullReport> {
  const now = opts.now ?? Date.now;
  const t0 = performance.now();
  const report: PullReport = {
    at: now(),
    result: 'up to date',
    error: null,
    adopted: [],
    refused: [],
    next: null,
    ms: 0,
    bytes: 0,
  };
  const dir = opts.cacheDir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const state = readState(dir);
  if (!opts.force && state.next !== undefined && now() < state.next) {
    report.result = 'skipped'; // another process pulled lately (or failed and backs off)
    report.next = state.next;
    opts.set.touch(dir);
    return report;
  }
  const release = takeLock(dir, now());
  if (!release) {
    report.result = 'skipped';
    report.error = 'another agentwatch is pulling the catalog now';
    report.next = now() + Math.min(opts.intervalMs ?? BACKOFF_START_MS, 30_000);
    return report;
  }
  try {
    await pullLocked(opts, state, report);
  } catch (e) {
    if (!(e instanceof CatalogError || e instanceof ManifestError)) throw e;
    report.result = 'failed';
    report.error = e.message;
  } finally {
    state.lastCheck = report.at;
    state.lastResult = report.result;
    state.lastError = report.error;
    // The index was read: its refusals replace the last ones (none left: the entries are fixed).
    if (['adopted', 'refused', 'up to date'].includes(report.result)) {
      state.refused = report.refused;
    }
    const interval = opts.intervalMs ?? DEFAULT_PULL_INTERVAL_MS;
    state.failures = report.result === 'failed' ? (state.failures ?? 0) + 1 : 0;
    state.next = report.next = report.at +
      (state.failures
        ? Math.min(interval, BACKOFF_START_MS * 2 ** (state.failures - 1))
        : interval * (0.9 + Math.random() * 0.2));
    try {
      await writeAtomic(dir, 'state.json', JSON.stringify(state, null, 1) + '\n');
    } catch {
      // a read-only cache: the next pull tries again
    }
    release();
    report.ms = performance.now() - t0;
  }
  if (report.error) opts.set.notice(false, `catalog: ${report.error}`);
  for (const r of report.refused) {
    opts.set.notice(false, `catalog: ${r.id} ${r.version} refused: ${r.why}`);
  }
  opts.set.touch(dir);
  opts.set.refresh();
  return report;
}

async function pullLocked(opts: PullOptions, state: CacheState, report: PullReport): Promise<void> {
  const maxBytes = opts.maxBytes ?? MANIFEST_MAX_BYTES;
  const f = { maxBytes, timeoutMs: opts.timeoutMs };
  const index = await fetchBounded(opts.url, {
    ...f,
    etag: state.etag,
    lastModified: state.lastModified,
  });
  if (index.status === 'not-modified') {
    report.result = 'not modified';
    return;
  }
  report.bytes += index.bytes.length;
  const unsigned = opts.keys !== null && opts.keys.length === 0;
  const keys = [...PINNED_CATALOG_KEYS, ...(opts.keys ?? [])];
  if (!unsigned) {
    if (!keys.length) {
      throw new CatalogError(
        'no public key to check the catalog with: add catalog_keys to the config file ' +
          '(or write catalog_keys = [] to accept unsigned catalogs)',
      );
    }
    const sig = await fetchBounded(opts.url + '.sig', { ...f, maxBytes: 4096 });
    if (sig.status !== 'ok') {
      throw new CatalogError(`${opts.url}.sig: not modified without a request for it`);
    }
    report.bytes += sig.bytes.length;
    verifyIndex(index.bytes, Buffer.from(sig.bytes).toString('latin1'), keys);
  }
  let text: string;
  try {
    text = decodeUtf8(index.bytes, opts.url);
  } catch (e) {
    throw new CatalogError((e as Error).message);
  }
  const entries = parseIndex(text, opts.url);
  const goldens = await (opts.goldens ?? bundledGoldenScreens)();
  const bundledShas = new Map<string, string>();
  for (const [file, t] of Object.entries(bundledManifestTexts())) bundledShas.set(file, sha256(t));
  for (const entry of entries) {
    const refuse = (why: string) =>
      report.refused.push({ id: entry.id, version: entry.version, why });
    if (entry.minEngine > ENGINE_VERSION) {
      refuse(`needs rule engine ${entry.minEngine}; this agentwatch has engine ${ENGINE_VERSION}`);
      continue;
    }
    // The one in force from the catalog or bundled (the person's own files override both).
    const cachedPath = join(opts.cacheDir, `${entry.id}.toml`);
    let cached: { m: Manifest; sha: string } | null = null;
    try {
      const bytes = readFileSync(cachedPath);
      // Parsed already when it is loaded here; else a few patterns at a time (a large one
      // costs tens of ms to compile).
      const known = [...opts.set.effective().values()].find((m) => m.source === cachedPath);
      const m = known ?? await loadManifestFileYielding(cachedPath);
      cached = { m, sha: sha256(bytes) };
    } catch {
      cached = null;
    }
    const bundled = opts.set.bundled.get(entry.id) ?? null;
    const bundledSha = bundled ? bundledShas.get(bundled.source.split('/').pop()!) ?? null : null;
    const current = cached && (!bundled || compareVersions(cached.m.version, bundled.version) > 0)
      ? { m: cached.m, sha: cached.sha }
      : bundled
      ? { m: bundled, sha: bundledSha }
      : null;
    if (current) {
      const cmp = compareVersions(entry.version, current.m.version);
      if (cmp === 0 && entry.sha256 === current.sha) continue; // the one in force: nothing to do
      if (cmp === 0) {
        refuse(`same version as the one in force (${current.m.version}) with other content`);
        continue;
      }
      if (cmp < 0) {
        refuse(`downgrade: ${entry.version} is older than ${current.m.version} in force`);
        continue;
      }
    }
    const url = new URL(entry.path, opts.url).href;
    try {
      const got = await fetchBounded(url, { ...f, maxBytes: Math.min(maxBytes, entry.size) });
      if (got.status !== 'ok') throw new CatalogError(`${url}: not modified without a condition`);
      report.bytes += got.bytes.length;
      const m = await vetManifest(got.bytes, entry, url, current?.m ?? null, goldens);
      await writeAtomic(opts.cacheDir, `${m.id}.toml`, got.bytes);
      opts.set.adopted(join(opts.cacheDir, `${m.id}.toml`), m);
      report.adopted.push({ id: m.id, version: m.version });
    } catch (e) {
      if (!(e instanceof CatalogError || e instanceof ManifestError)) throw e;
      refuse(e.message);
    }
  }
  state.etag = index.etag;
  state.lastModified = index.lastModified;
  report.result = report.adopted.length
    ? 'adopted'
    : report.refused.length
    ? 'refused'
    : 'up to date';
}

/**
 * Pulls at start, then whenever the cache folder's state says the next pull is due: every
 * `intervalMs` with +-10% jitter; after a failure after {@link BACKOFF_START_MS}, doubling up
 * to the interval. The schedule lives in the cache folder, so that every process on the machine
 * follows one: one fetch per interval per user, and one backoff.
 */
export class CatalogUpdater {
  #timer?: ReturnType<typeof setTimeout>;
  #stopped = false;
  /** The latest report, null before the first pull ends. */
  last: PullReport | null = null;

  constructor(readonly options: PullOptions & { intervalMs: number }) {}

  start(): void {
    this.#schedule(0);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#run(), ms);
    this.#timer.unref?.();
  }

  async #run(): Promise<void> {
    const interval = this.options.intervalMs;
    let next: number | null = null;
    try {
      this.last = await pullCatalog(this.options);
      next = this.last.next;
    } catch {
      next = null; // an unexpected error (the cache folder cannot be written): try later
    }
    const wait = next === null ? Math.min(interval, BACKOFF_START_MS) : next - Date.now();
    // A little after the due time, so that the process that pulls writes its state first.
    this.#schedule(Math.max(0, wait) + Math.random() * Math.min(1000, interval * 0.1));
  }
}
