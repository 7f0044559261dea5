/**
 * Where manifests come from: the bundled ones (resources/agent-detection, inlined in the
 * single binary) and user files. Reads files and hands their text to the pure parser in
 * src/detect. Hot reload from a URL comes later and will live here too.
 */
import { readFileSync, statSync } from 'node:fs';
import { ManifestError } from '../detect/errors.ts';
import { type Manifest, parseManifest } from '../detect/manifest.ts';
import { bundledManifestTexts } from './bundled-manifests.ts';

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

/**
 * Reads and parses a manifest file; errors name `path`.
 * @throws ManifestError when the file is missing, is a directory, cannot be read, is not
 *   UTF-8, or does not parse and validate.
 */
export function loadManifestFile(path: string): Manifest {
  let bytes: Buffer;
  try {
    if (statSync(path).isDirectory()) {
      throw new ManifestError(
        path,
        null,
        '',
        'is a directory, not a manifest file (give a .toml file)',
      );
    }
    bytes = readFileSync(path);
  } catch (e) {
    if (e instanceof ManifestError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT'
      ? 'no such file'
      : code === 'EACCES'
      ? 'permission denied'
      : (e as Error).message;
    throw new ManifestError(path, null, '', `cannot read: ${why}`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw new ManifestError(
      path,
      at.line,
      '',
      `not UTF-8 text (invalid byte 0x${
        at.byte.toString(16).padStart(2, '0')
      } at offset ${at.offset})`,
    );
  }
  return parseManifest(text.replace(/^\uFEFF/, ''), path);
}

/** The first byte where `bytes` stops being UTF-8 (lead and continuation bytes), with its line. */
function firstInvalidUtf8(bytes: Uint8Array): { offset: number; line: number; byte: number } {
  let line = 1;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const len = b < 0x80
      ? 1
      : b >= 0xc2 && b <= 0xdf
      ? 2
      : b >= 0xe0 && b <= 0xef
      ? 3
      : b >= 0xf0 && b <= 0xf4
      ? 4
      : 0;
    let ok = len > 0 && i + len <= bytes.length;
    for (let k = 1; ok && k < len; k++) ok = (bytes[i + k] & 0xc0) === 0x80;
    if (!ok) return { offset: i, line, byte: b };
    if (b === 0x0a) line++;
    i += len;
  }
  // Valid by this check but rejected by the decoder (overlong or surrogate forms): point at the end.
  return { offset: bytes.length, line, byte: 0 };
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
