/**
 * The golden screens: every labelled fixture (`fixtures/<folder>/labels.json`: capture file ->
 * blocked | working | idle, or `{ "state", "size": "ROWSxCOLS" }`) rendered on its screen
 * (default 32x120), with its label. A catalog manifest
 * is adopted only if the screens of its agent that the manifest in force reads right are still
 * read right. From source they are rendered from the captures (once per process, streamed in
 * 64 KB chunks, yielding between them); the single-binary build replaces this module with one
 * that returns the rendered screens inlined (build.ts), so the executable needs no fixtures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { RuleState } from '../detect/types.ts';
import { renderFile } from './render-file.ts';

/** One labelled screen as the rules read it. */
export interface GoldenScreen {
  /** The capture's name prefix ('qwen-code', 'claude'): a manifest id or `ID-...`. */
  prefix: string;
  /** The capture file, relative to fixtures/ ('qwen-code/qwen-code.blocked.raw'). */
  file: string;
  label: RuleState;
  rows: string[];
  wrapped: boolean[];
  title: string;
  /** OSC payloads by number. */
  osc: Array<[number, string]>;
}

const DIR = new URL('../../fixtures/', import.meta.url);
let cached: Promise<GoldenScreen[]> | undefined;

/** Every golden screen (rendered once per process). */
export function bundledGoldenScreens(): Promise<GoldenScreen[]> {
  cached ??= render();
  return cached;
}

async function render(): Promise<GoldenScreen[]> {
  const out: GoldenScreen[] = [];
  let folders: string[] = [];
  try {
    folders = readdirSync(DIR).sort();
  } catch {
    return out; // no fixtures beside the sources: no golden screens
  }
  for (const folder of folders) {
    let labels: Record<string, unknown>;
    try {
      labels = JSON.parse(readFileSync(new URL(`${folder}/labels.json`, DIR), 'utf8'));
    } catch {
      continue;
    }
    for (const [name, entry] of Object.entries(labels).sort()) {
      // "FILE": "blocked", or "FILE": { "state": "blocked", "size": "24x80" }
      const e = typeof entry === 'object' && entry !== null
        ? entry as { state?: unknown; size?: unknown }
        : { state: entry };
      const label = e.state;
      if (label !== 'blocked' && label !== 'working' && label !== 'idle') continue;
      const size = typeof e.size === 'string' ? /^(\d{1,4})x(\d{1,4})$/.exec(e.size) : null;
      const [rows, cols] = size ? [Number(size[1]), Number(size[2])] : [32, 120];
      const path = new URL(`${folder}/${name}`, DIR).pathname;
      let terminal;
      try {
        ({ terminal } = await renderFile(path, rows, cols));
      } catch {
        continue; // a label without its capture: nothing to check against
      }
      const snap = terminal.snapshot();
      out.push({
        prefix: name.split('.')[0].toLowerCase(),
        file: `${folder}/${name}`,
        label,
        rows: [...snap.rows],
        wrapped: [...snap.wrapped],
        title: snap.title,
        osc: [...snap.osc],
      });
    }
  }
  return out;
}
