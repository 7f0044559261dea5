/**
 * Which agent a pane runs, decided in one place: {@link matchAgent}, a pure function of the
 * agent the person forced (`--agent`), the pane's foreground, the command it was started with,
 * the agent matched before, and the manifests in force. A manifest names its agent's processes
 * (`process = ["claude"]`); a process is matched by its name, its argv[0] or, for a script run
 * by an interpreter (node, bun, python), its argv[1], each without a directory and without a
 * `.exe`, `.js`, `.mjs`, `.cjs` or `.ts` suffix.
 */
import { basename } from 'node:path';
import type { Manifest } from '../detect/manifest.ts';
import {
  type Foreground,
  type ForegroundRead,
  shellRunsScript,
  SHELLS,
  UNKNOWN_FOREGROUND,
} from './signals.ts';

/** The name a process is matched by: basename, lower case, without an executable suffix. */
function stem(path: string | undefined): string {
  if (!path) return '';
  return basename(path).replace(/\.(exe|js|mjs|cjs|ts)$/i, '').toLowerCase();
}

/**
 * The manifest whose `process` names match a process (its name, argv[0] or argv[1]), or null.
 */
export function manifestForProcess(
  manifests: ReadonlyMap<string, Manifest>,
  proc: { name: string; argv: readonly string[] },
): Manifest | null {
  const names = new Set([stem(proc.name), stem(proc.argv[0]), stem(proc.argv[1])]);
  for (const m of manifests.values()) {
    if (m.process.some((p) => names.has(p.toLowerCase()))) return m;
  }
  return null;
}

/**
 * A foreground read, classified: `agent` when a manifest names its leader, `shell` when the
 * leader is one of {@link SHELLS} at its prompt, `other` otherwise (a shell running a script,
 * {@link shellRunsScript}: `bash -c 'while :; do make; done'` runs a command, it waits for
 * none); {@link UNKNOWN_FOREGROUND} for no read.
 */
export function classifyForeground(
  read: ForegroundRead | null,
  manifests: ReadonlyMap<string, Manifest>,
): Foreground {
  if (!read) return UNKNOWN_FOREGROUND;
  const kind = manifestForProcess(manifests, read)
    ? 'agent'
    : SHELLS.has(stem(read.name)) && (stem(read.name) === 'login' || !shellRunsScript(read.argv))
    ? 'shell'
    : 'other';
  return { kind, name: read.name, argv: read.argv, pgid: read.pgid };
}

/** What decides a pane's agent. */
export interface AgentMatchInput {
  /** The manifest id the person forced (`--agent`), if any. */
  forced?: string;
  /** Who holds the pane's terminal ({@link classifyForeground}); kind `unknown` when not read. */
  foreground: Foreground;
  /** The command the pane was started with, argv[0] first. */
  command: readonly string[];
  /** The manifest id matched before, if any (it stays while a command that is no agent runs). */
  previous?: string;
}

/** Why {@link matchAgent} chose what it chose. */
export type MatchBecause = 'foreground' | 'forced' | 'previous' | 'command' | 'none';

/** A pane's agent: its manifest (null when none applies) and why. */
export interface AgentMatch {
  manifest: Manifest | null;
  because: MatchBecause;
}

/** No agent: nothing matched. */
export const NO_AGENT: AgentMatch = Object.freeze({ manifest: null, because: 'none' });

/**
 * The manifest that applies to a pane, in this order:
 * 1. a foreground read (kind not `unknown`): the agent the foreground leader is (`foreground`);
 *    else the forced one (`forced`); else, unless a shell is in front (the agent ended, its
 *    rules no longer apply), the one matched before (`previous`: the agent's own command,
 *    an editor it opened, holds the terminal);
 * 2. no foreground read: the one matched before, else the forced one;
 * 3. then the command the pane was started with (`command`), else none.
 * A forced or previous id that is not in `manifests` (it was removed) does not count.
 */
export function matchAgent(
  input: AgentMatchInput,
  manifests: ReadonlyMap<string, Manifest>,
): AgentMatch {
  const forced = input.forced ? manifests.get(input.forced) ?? null : null;
  const previous = input.previous ? manifests.get(input.previous) ?? null : null;
  const fg = input.foreground;
  if (fg.kind !== 'unknown') {
    const leader = fg.kind === 'agent' ? manifestForProcess(manifests, fg) : null;
    if (leader) return { manifest: leader, because: 'foreground' };
    if (forced) return { manifest: forced, because: 'forced' };
    if (fg.kind !== 'shell' && previous) return { manifest: previous, because: 'previous' };
  } else {
    if (previous) return { manifest: previous, because: 'previous' };
    if (forced) return { manifest: forced, because: 'forced' };
  }
  const byCommand = input.command.length
    ? manifestForProcess(manifests, { name: input.command[0], argv: input.command })
    : null;
  return byCommand ? { manifest: byCommand, because: 'command' } : NO_AGENT;
}
