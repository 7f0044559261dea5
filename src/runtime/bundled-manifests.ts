/**
 * The bundled manifests' texts, read from `resources/agent-detection/` next to the sources.
 * The single-binary build replaces this module with one that returns inlined strings, so it
 * stays this small: file name -> TOML text, nothing else.
 */
import { readdirSync, readFileSync } from 'node:fs';

const DIR = new URL('../../resources/agent-detection/', import.meta.url);

/** Every `*.toml` in resources/agent-detection, by file name (e.g. 'claude.toml'), sorted. */
export function bundledManifestTexts(): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.toml')).sort()) {
    texts[file] = readFileSync(new URL(file, DIR), 'utf8');
  }
  return texts;
}
