/**
 * The manifests in force, from four sources, highest first:
 *   1. `--manifest FILE` (repeatable) on run, watch, classify, explain;
 *   2. the person's folder, `$XDG_CONFIG_HOME/agentwatch/agent-detection/*.toml`;
 *   3. the catalog's cache (`$XDG_CACHE_HOME/agentwatch/manifests/<id>.toml`, written by
 *      catalog-updater.ts after every adoption check), when newer than the bundled one;
 *   4. bundled.
 * Files are reloaded while sessions run: the folders are watched (node:fs watch) and, as a
 * fallback for file systems without events, {@link ManifestSet.refresh} (called by the sweep
 * at each tick) compares every file's and folder's stat. A file that fails a check (bounded
 * read, parse, validation, limits, its own `[[examples]]`) never replaces the last good
 * manifest from that file; the error is kept and shown. Ids unknown to the bundled set are
 * accepted from sources 1-3. A copy of each file of the person's folder that passed every
 * check is kept in `lastGoodDir` (written atomically), so that a process started while the
 * file is broken uses that last good copy too, as the processes already running do.
 *
 * Why one file over 400 lines: the class is one state, the slots of the four sources and the
 * effective set recomputed from them, changed by scans, watch events, reloads and adoptions
 * that must see each other's results; the checks a file passes and its last good copies are
 * in manifest-files.ts.
 */
import { type FSWatcher, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import { ManifestError } from '../detect/errors.ts';
import type { Manifest } from '../detect/manifest.ts';
import { compareVersions } from '../detect/version.ts';
import {
  loadBundledManifests,
  loadManifestFile,
  loadManifestFileYielding,
} from './manifest-sources.ts';
import { checkExamples, LastGoodCopies, statSig, unsafeDir } from './manifest-files.ts';

/** Where a manifest came from: `--manifest`, the person's folder, the catalog cache, bundled. */
export type SourceKind = 'option' | 'user' | 'catalog' | 'bundled';

/** What the person reads about one source file (or one bundled manifest). */
export interface SourceStatus {
  kind: SourceKind;
  /** The manifest id of the last good version, null when the file never loaded. */
  id: string | null;
  /** The file's path, or the bundled resource label. */
  path: string;
  /** Version of the last good manifest from this file, null when none. */
  version: string | null;
  /** True when this file's manifest is the one in force for its id. */
  inForce: boolean;
  /** When it was last read, ms since the epoch; null for bundled. */
  lastCheck: number | null;
  /** 'loaded', 'unchanged', 'refused' (the last good one stays), or 'bundled'. */
  lastResult: 'loaded' | 'refused' | 'bundled';
  /** The error of the last read, null when it was good. */
  lastError: string | null;
}

/** A line for the person: a manifest adopted, or one refused and why. */
export interface Notice {
  at: number;
  ok: boolean;
  /** e.g. 'rules updated: qwen 2026.12.02 (your folder)' or the refusal. */
  text: string;
}

/** What {@link ManifestSet} reads. */
export interface ManifestSetOptions {
  /** `--manifest` files, in the order given (a later one wins for the same id). */
  files?: readonly string[];
  /** The person's folder; null for none. */
  userDir?: string | null;
  /** The catalog's cache folder; null for none. */
  cacheDir?: string | null;
  /**
   * Where the last good copy of each file of the person's folder is kept (`NAME.toml`); null
   * for none. Read only when it is ours and not writable by every user (see {@link unsafeDir}).
   */
  lastGoodDir?: string | null;
  /** The bundled set (default: parsed from resources/agent-detection). */
  bundled?: ReadonlyMap<string, Manifest>;
  /** Watch the folders with node:fs watch (default false: stat checks at refresh only). */
  watch?: boolean;
  /**
   * Reload changed files over {@link YIELD_ABOVE_BYTES} after the start without holding the
   * event loop (patterns compiled a few at a time; the result is in force at the refresh after
   * it is ready, normally the next sweep). Default false: refresh reloads synchronously.
   */
  yielding?: boolean;
  now?: () => number;
}

interface Slot {
  kind: Exclude<SourceKind, 'bundled'>;
  path: string;
  /** ino, size, mtime and ctime at the last read; null before the first. */
  sig: string | null;
  /** A yielding reload under way. */
  pending?: boolean;
  good: Manifest | null;
  error: string | null;
  lastCheck: number | null;
  /** True when `good` is the last good copy kept in `lastGoodDir`, not read from `path`. */
  fromCopy?: boolean;
}

/** Files over this size are reloaded a few patterns at a time (see `yielding`), bytes. */
export const YIELD_ABOVE_BYTES = 32 * 1024;

const KIND_LABEL: Record<SourceKind, string> = {
  option: '--manifest',
  user: 'your folder',
  catalog: 'catalog',
  bundled: 'bundled',
};

/** The layered, reloading set of manifests; see the module's docs. */
export class ManifestSet {
  readonly bundled: ReadonlyMap<string, Manifest>;
  readonly #options: ManifestSetOptions;
  /** The last good copies of the person's files; null without `lastGoodDir`. */
  readonly #copies: LastGoodCopies | null;
  readonly #now: () => number;
  readonly #option: Slot[];
  readonly #dirs: Array<{ dir: string; kind: 'user' | 'catalog'; slots: Map<string, Slot> }> = [];
  readonly #dirSig = new Map<string, string | null>();
  readonly #dirty = new Set<string>();
  /** Why a folder is not read (another user may write it), by folder. */
  readonly #dirError = new Map<string, string>();
  readonly #watchers = new Map<string, FSWatcher>();
  #effective = new Map<string, Manifest>();
  #kinds = new Map<string, SourceKind>();
  readonly #listeners = new Set<(n: Notice) => void>();
  /**
   * What the notices last said is in force, by id ('qwen 2026.12.02 (catalog)'; null: none),
   * so that a change they did not tell (a file removed, a catalog copy not newer than
   * bundled) gets a notice of what is in force now.
   */
  readonly #told = new Map<string, string | null>();
  /** The latest notices, newest last (at most 20). */
  readonly notices: Notice[] = [];
  #started = false;

  /**
   * Loads every source.
   * @throws ManifestError when a `--manifest` file cannot be used at start (the person named
   *   it: it must work); a broken file in a folder is only reported.
   */
  constructor(options: ManifestSetOptions = {}) {
    this.#options = options;
    this.#copies = options.lastGoodDir ? new LastGoodCopies(options.lastGoodDir) : null;
    this.#now = options.now ?? Date.now;
    this.bundled = options.bundled ?? loadBundledManifests();
    this.#option = (options.files ?? []).map((path) => ({
      kind: 'option',
      path,
      sig: null,
      good: null,
      error: null,
      lastCheck: null,
    }));
    for (const slot of this.#option) {
      this.#load(slot);
      if (!slot.good) throw new ManifestError(slot.path, null, '', slot.error ?? 'cannot load');
    }
    if (options.userDir) this.#dirs.push({ dir: options.userDir, kind: 'user', slots: new Map() });
    if (options.cacheDir) {
      this.#dirs.push({ dir: options.cacheDir, kind: 'catalog', slots: new Map() });
    }
    this.refresh();
    this.#started = true;
  }

  /** The manifests in force by id; the same Map object until something changes. */
  effective(): ReadonlyMap<string, Manifest> {
    return this.#effective;
  }

  /** Which source the manifest in force for `id` came from; null when none. */
  sourceOf(id: string): SourceKind | null {
    return this.#kinds.get(id) ?? null;
  }

  /** Calls `listener` with every notice from now on; returns a function that stops it. */
  onNotice(listener: (n: Notice) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Re-reads what changed: `--manifest` files, the folders (new, changed, removed files).
   * Cheap when nothing changed: one stat per file and per folder.
   * @returns true when the manifests in force changed.
   */
  refresh(): boolean {
    for (const slot of this.#option) this.#load(slot);
    for (const d of this.#dirs) this.#scan(d);
    return this.#recompute();
  }

  /** Marks folder `dir` as changed (as a watch event does) so the next refresh rescans it. */
  touch(dir: string): void {
    this.#dirty.add(dir);
  }

  #scan(d: { dir: string; kind: 'user' | 'catalog'; slots: Map<string, Slot> }): void {
    const sig = statSig(d.dir);
    const known = this.#dirSig.has(d.dir);
    if (!known || sig !== this.#dirSig.get(d.dir) || this.#dirty.has(d.dir)) {
      this.#dirSig.set(d.dir, sig);
      this.#dirty.delete(d.dir);
      let names: string[] = [];
      const unsafe = sig === null ? null : unsafeDir(d.dir);
      if (unsafe) {
        if (this.#dirError.get(d.dir) !== unsafe) this.#notice(false, `rules refused: ${unsafe}`);
        this.#dirError.set(d.dir, unsafe);
      } else this.#dirError.delete(d.dir);
      if (sig !== null && !unsafe) {
        try {
          names = readdirSync(d.dir).filter((n) => n.endsWith('.toml') && !n.startsWith('.'))
            .sort();
        } catch {
          names = [];
        }
        this.#watch(d.dir);
      }
      const paths = new Set(names.map((n) => join(d.dir, n)));
      for (const p of d.slots.keys()) if (!paths.has(p)) d.slots.delete(p);
      for (const p of paths) {
        if (!d.slots.has(p)) {
          d.slots.set(p, {
            kind: d.kind,
            path: p,
            sig: null,
            good: null,
            error: null,
            lastCheck: null,
          });
        }
      }
    }
    if (this.#dirError.has(d.dir)) return;
    for (const slot of d.slots.values()) this.#load(slot);
  }

  #watch(dir: string): void {
    if (!this.#options.watch || this.#watchers.has(dir)) return;
    try {
      const w = watch(dir, { persistent: false }, () => this.#dirty.add(dir));
      w.on('error', () => {
        w.close();
        this.#watchers.delete(dir); // the stat check at each refresh still sees changes
      });
      this.#watchers.set(dir, w);
    } catch {
      // no events here: the stat check at each refresh is the fallback
    }
  }

  /** Reads `slot` again when its stat changed; keeps the last good manifest on any failure. */
  #load(slot: Slot): void {
    if (slot.pending) return;
    const sig = statSig(slot.path);
    if (sig === slot.sig && slot.lastCheck !== null) return;
    slot.sig = sig;
    slot.lastCheck = this.#now();
    // A small file (most are a few KB) costs a few ms: read at once, in force at this refresh.
    const size = Number(sig?.split(':')[1] ?? 0);
    if (this.#started && this.#options.yielding && size > YIELD_ABOVE_BYTES) {
      slot.pending = true;
      loadManifestFileYielding(slot.path).then(
        (m) => this.#loaded(slot, () => m),
        (e) =>
          this.#loaded(slot, () => {
            throw e;
          }),
      ).finally(() => {
        slot.pending = false;
        this.#recompute();
      });
      return;
    }
    this.#loaded(slot, () => loadManifestFile(slot.path));
  }

  /** Applies a read of `slot` (`read` returns the manifest or throws why not). */
  #loaded(slot: Slot, read: () => Manifest): void {
    try {
      const m = read();
      checkExamples(m);
      slot.good = m;
      slot.error = null;
      slot.fromCopy = false;
      if (slot.kind === 'user') this.#keepCopy(slot);
      if (this.#started) {
        const label = `${m.id} ${m.version} (${KIND_LABEL[slot.kind]})`;
        this.#told.set(m.id, label);
        this.#notice(true, `rules updated: ${label}`);
      }
    } catch (e) {
      if (!(e instanceof ManifestError)) {
        if (!slot.pending) throw e;
        slot.error = `${slot.path}: ${(e as Error).message}`;
        return;
      }
      const was = slot.error;
      slot.error = e.message;
      if (!slot.good && slot.kind === 'user') this.#useCopy(slot);
      if (was !== e.message) {
        const kept = slot.good
          ? `; ${slot.good.id} ${slot.good.version}${
            slot.fromCopy ? ' (its last good copy)' : ''
          } stays in force`
          : '';
        this.#notice(false, `rules refused: ${e.message}${kept}`);
      }
    }
  }

  /**
   * Keeps the file of `slot`, which has just passed every check, as its last good copy (see
   * {@link LastGoodCopies.keep}); a failure is only reported.
   */
  #keepCopy(slot: Slot): void {
    const error = this.#copies?.keep(slot.path, slot.sig);
    if (error) this.#notice(false, error);
  }

  /** Puts the last good copy of `slot`'s file in force (its own read failed), when one is kept. */
  #useCopy(slot: Slot): void {
    const m = this.#copies?.read(slot.path);
    if (m) {
      slot.good = m;
      slot.fromCopy = true;
    }
  }

  /**
   * Takes a catalog manifest this process has just checked and written to `path` in the cache
   * folder, without parsing it again (a large one costs tens of ms to compile).
   */
  adopted(path: string, m: Manifest): void {
    const d = this.#dirs.find((x) => x.kind === 'catalog');
    if (!d) return;
    d.slots.set(path, {
      kind: 'catalog',
      path,
      sig: statSig(path),
      good: m,
      error: null,
      lastCheck: this.#now(),
    });
    this.#dirSig.set(d.dir, statSig(d.dir));
    this.#told.set(m.id, `${m.id} ${m.version} (catalog)`);
    this.#notice(true, `rules updated: ${m.id} ${m.version} (catalog)`);
    this.#recompute();
  }

  /**
   * The board's status line about the manifests: the latest notice of the last `maxAgeMs`
   * (default 10 min: 'rules updated: qwen 2026.12.02 (catalog)', 'rules in force: claude
   * 2.1.332 (bundled)' once that copy is gone, or a refusal), then, for as long as it is so,
   * how many source files are refused ('5 manifest files refused: see agentwatch manifests
   * list'); undefined when there is nothing to say.
   */
  status(now = this.#now(), maxAgeMs = 10 * 60_000): string | undefined {
    const n = this.notices.at(-1);
    const parts = n && now - n.at <= maxAgeMs ? [n.text] : [];
    const refused = this.refusedFiles();
    if (refused) {
      parts.push(
        `${refused} manifest file${
          refused === 1 ? '' : 's'
        } refused: see agentwatch manifests list`,
      );
    }
    return parts.length ? parts.join(' · ') : undefined;
  }

  /** How many source files (`--manifest`, the folders) failed their last read. */
  refusedFiles(): number {
    let k = this.#option.filter((s) => s.error !== null).length;
    for (const d of this.#dirs) for (const s of d.slots.values()) if (s.error !== null) k++;
    return k;
  }

  /** Tells listeners (the board's status line) `text`; `ok` false for a refusal or error. */
  notice(ok: boolean, text: string): void {
    this.#notice(ok, text);
  }

  #notice(ok: boolean, text: string): void {
    const n = { at: this.#now(), ok, text };
    this.notices.push(n);
    if (this.notices.length > 20) this.notices.shift();
    for (const l of this.#listeners) {
      try {
        l(n);
      } catch {
        // a listener's failure never disturbs the reload
      }
    }
  }

  /** The winning slot per id, by precedence, with the catalog only when newer than bundled. */
  #recompute(): boolean {
    const next = new Map<string, Manifest>(this.bundled);
    const kinds = new Map<string, SourceKind>([...this.bundled.keys()].map((k) => [k, 'bundled']));
    const catalog = this.#dirs.find((d) => d.kind === 'catalog');
    for (const slot of catalog?.slots.values() ?? []) {
      const m = slot.good;
      if (!m) continue;
      const b = this.bundled.get(m.id);
      if (b && compareVersions(m.version, b.version) <= 0) continue;
      next.set(m.id, m);
      kinds.set(m.id, 'catalog');
    }
    const user = this.#dirs.find((d) => d.kind === 'user');
    const seen = new Map<string, string>();
    for (const slot of user?.slots.values() ?? []) {
      const m = slot.good;
      if (!m) continue;
      const first = seen.get(m.id);
      if (first !== undefined) continue; // two files with one id: the first by name wins
      seen.set(m.id, slot.path);
      next.set(m.id, m);
      kinds.set(m.id, 'user');
    }
    for (const slot of this.#option) {
      if (!slot.good) continue;
      next.set(slot.good.id, slot.good);
      kinds.set(slot.good.id, 'option');
    }
    if (this.#started) this.#tellInForce(next, kinds);
    this.#kinds = kinds;
    const same = next.size === this.#effective.size &&
      [...next].every(([id, m]) => this.#effective.get(id) === m);
    if (same) return false;
    this.#effective = next;
    return true;
  }

  /**
   * A notice 'rules in force: ID VERSION (SOURCE)' (or 'rules removed: ID') for every id
   * whose manifest in force is not what the notices last said, nor what was in force before
   * (`next`, `kinds`: the set about to be in force): a removed file or catalog copy, a
   * catalog copy read but not newer than bundled.
   */
  #tellInForce(next: ReadonlyMap<string, Manifest>, kinds: ReadonlyMap<string, SourceKind>) {
    const label = (m: Manifest | undefined, k: SourceKind | undefined) =>
      m ? `${m.id} ${m.version} (${KIND_LABEL[k ?? 'bundled']})` : null;
    const ids = new Set([...this.#effective.keys(), ...next.keys(), ...this.#told.keys()]);
    for (const id of ids) {
      const now = label(next.get(id), kinds.get(id));
      const said = this.#told.has(id)
        ? this.#told.get(id) ?? null
        : label(this.#effective.get(id), this.#kinds.get(id));
      if (now === said) continue;
      this.#told.set(id, now);
      this.#notice(true, now ? `rules in force: ${now}` : `rules removed: ${id}`);
    }
  }

  /** Every source file and bundled manifest, with what happened at its last read. */
  statuses(): SourceStatus[] {
    const out: SourceStatus[] = [];
    const slots = [
      ...this.#option,
      ...this.#dirs.filter((d) => d.kind === 'user').flatMap((d) => [...d.slots.values()]),
      ...this.#dirs.filter((d) => d.kind === 'catalog').flatMap((d) => [...d.slots.values()]),
    ];
    for (const s of slots) {
      out.push({
        kind: s.kind,
        id: s.good?.id ?? null,
        path: s.path,
        version: s.good?.version ?? null,
        inForce: s.good !== null && this.#effective.get(s.good.id) === s.good,
        lastCheck: s.lastCheck,
        lastResult: s.error ? 'refused' : 'loaded',
        lastError: s.error,
      });
    }
    for (const m of this.bundled.values()) {
      out.push({
        kind: 'bundled',
        id: m.id,
        path: m.source,
        version: m.version,
        inForce: this.#effective.get(m.id) === m,
        lastCheck: null,
        lastResult: 'bundled',
        lastError: null,
      });
    }
    return out;
  }

  /** Stops watching the folders. */
  close(): void {
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
  }
}

/** How a source is named to the person: '--manifest', 'your folder', 'catalog', 'bundled'. */
export function sourceLabel(kind: SourceKind): string {
  return KIND_LABEL[kind];
}
