/**
 * Picks the manifest for a capture file: `--manifest FILE`, else `--agent ID`, else the file
 * name's prefix (`claude.blocked.raw` -> claude, `gemini-cli.idle.raw` -> gemini,
 * `qwen-code.working.raw` -> qwen).
 */
import { basename } from 'node:path';
import type { Manifest } from '../detect/manifest.ts';
import { UserError } from './command.ts';

/**
 * The manifest id a capture's file name names, or null. The prefix is the part before the
 * first '.'; it names an agent when it equals a manifest id or starts with `ID-`.
 */
export function agentFromFileName(path: string, ids: Iterable<string>): string | null {
  const prefix = basename(path).split('.')[0].toLowerCase();
  for (const id of ids) if (prefix === id || prefix.startsWith(id + '-')) return id;
  return null;
}

/**
 * The manifest to classify `path` with.
 * @throws UserError when `agent` is not a known id, or no agent is given and the file name
 *   does not name one.
 */
export function manifestForFile(
  path: string,
  manifests: ReadonlyMap<string, Manifest>,
  agent?: string,
  explicit?: Manifest,
): Manifest {
  if (explicit) return explicit;
  const known = [...manifests.keys()].join(', ');
  if (agent) {
    const m = manifests.get(agent);
    // exit 2: a usage error, as `run --agent` and every other bad command line
    if (!m) throw new UserError(`--agent ${agent}: no such agent (known: ${known})`, 2);
    return m;
  }
  const id = agentFromFileName(path, manifests.keys());
  if (!id) {
    throw new UserError(
      `${path}: cannot tell the agent from the file name; pass --agent ID (one of ${known}) or --manifest FILE`,
    );
  }
  return manifests.get(id)!;
}
