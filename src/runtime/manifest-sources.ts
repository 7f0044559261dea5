/**
 * Where manifests come from: the bundled ones (resources/agent-detection, inlined in the
 * single binary) and files (`--manifest`, the person's folder, the catalog's cache). Reads
 * files in bounded memory and hands their text to the pure parser in src/detect; the layered,
 * reloading set is {@link ManifestSet} in manifest-set.ts.
 */
import { ManifestError } from '../detect/errors.ts';
import {
  type Manifest,
  MAX_PATTERN_CHARS,
  parseManifest,
  type Pattern,
} from '../detect/manifest.ts';
import { compilePattern } from '../detect/patterns.ts';
import { parse } from 'smol-toml';
import { bundledManifestTexts } from './bundled-manifests.ts';
import { FileReadError, readBoundedText } from './read-bounded.ts';

/** The label bundled manifests carry as their source: `resources/agent-detection/claude.toml`. */
export const BUNDLED_PREFIX = 'resources/agent-detection/';

/** True when `manifest` is one of the bundled ones (by its source label). */
export function isBundled(manifest: Manifest): boolean {
  return manifest.source.startsWith(BUNDLED_PREFIX);
}

/**
 * Parses every bundled manifest, keyed by id, in file-name order.
 * @throws ManifestError when a bundled file is broken or two files use the same id (a build
 *   defect: the tests parse every bundled file).
 */
export function loadBundledManifests(): Map<string, Manifest> {
  const out = new Map<string, Manifest>();
  for (const [file, text] of Object.entries(bundledManifestTexts())) {
    const manifest = parseManifest(text, BUNDLED_PREFIX + file);
    const other = out.get(manifest.id);
    if (other) {
      throw new ManifestError(
        manifest.source,
        null,
        'id',
        `id '${manifest.id}' is also used by ${other.source}`,
      );
    }
    out.set(manifest.id, manifest);
  }
  return out;
}

/** The largest manifest file read, in bytes (the catalog's per-file cap too). */
export const MANIFEST_MAX_BYTES = 256 * 1024;

/**
 * Reads and parses a manifest file in bounded time and memory (see {@link readBoundedText});
 * errors name `path`.
 * @throws ManifestError when the file is missing, unreadable, a symlink loop, a directory, a
 *   FIFO or device, over {@link MANIFEST_MAX_BYTES}, not UTF-8, or does not parse and validate.
 */
export function loadManifestFile(path: string): Manifest {
  let text: string;
  try {
    text = readBoundedText(path, MANIFEST_MAX_BYTES);
  } catch (e) {
    if (e instanceof FileReadError) throw new ManifestError(path, e.line, '', e.detail);
    throw e;
  }
  return parseManifest(text, path);
}

const yieldNow = () => new Promise<void>((r) => setImmediate(r));

/**
 * Compiles every pattern string of a manifest's text beforehand, yielding to the event loop
 * every few ms, so that a manifest of hundreds of long patterns does not hold a running sweep;
 * returns the lookup {@link parseManifest} then uses. A pattern that does not compile is left
 * to parseManifest, which names it.
 */
export async function compileYielding(text: string): Promise<(p: string) => Pattern> {
  const done = new Map<string, Pattern>();
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch {
    return compilePattern; // parseManifest reports the syntax error
  }
  const lists: unknown[] = [];
  for (const r of Array.isArray(doc.rules) ? doc.rules : []) {
    if (r && typeof r === 'object') {
      const t = r as Record<string, unknown>;
      lists.push(t.any, t.all, t.none);
    }
  }
  if (doc.input && typeof doc.input === 'object') {
    lists.push((doc.input as Record<string, unknown>).empty);
  }
  let slice = performance.now();
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const p of list) {
      if (typeof p !== 'string' || p.length > MAX_PATTERN_CHARS || done.has(p)) continue;
      try {
        done.set(p, compilePattern(p));
      } catch {
        // named by parseManifest
      }
      if (performance.now() - slice > 5) {
        await yieldNow();
        slice = performance.now();
      }
    }
  }
  return (p) => done.get(p) ?? compilePattern(p);
}

/**
 * {@link loadManifestFile} without holding the event loop more than a few ms at a time: the
 * file is read at once (at most 256 KiB), its patterns compiled a few at a time.
 * @throws ManifestError as loadManifestFile does.
 */
export async function loadManifestFileYielding(path: string): Promise<Manifest> {
  let text: string;
  try {
    text = readBoundedText(path, MANIFEST_MAX_BYTES);
  } catch (e) {
    if (e instanceof FileReadError) throw new ManifestError(path, e.line, '', e.detail);
    throw e;
  }
  const compile = await compileYielding(text);
  return parseManifest(text, path, compile);
}

let bundled: Map<string, Manifest> | undefined;

/**
 * The bundled manifest for an agent: by id (`claude`), else by a process name it lists
 * (`claude.exe`); null when none. The bundled set is parsed once and never changes.
 */
export function manifestFor(agent: string): Manifest | null {
  bundled ??= loadBundledManifests();
  const key = agent.toLowerCase();
  const byId = bundled.get(key);
  if (byId) return byId;
  for (const m of bundled.values()) if (m.process.some((p) => p.toLowerCase() === key)) return m;
  return null;
}
