/**
 * A private place for one test's agentwatch: a temporary folder and an environment whose
 * socket folder (AGENTWATCH_DIR), config, state and cache (XDG_*) are inside it, so that the
 * test's hosts, sessions and settings meet nobody else's. TERM is xterm-256color (boards and
 * `run` draw as in a person's terminal).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A test's private folder and the environment pointing into it. */
export interface Sandbox {
  /** The folder (under the system's temp folder); the test removes it. */
  dir: string;
  /** process.env (its defined values) with AGENTWATCH_DIR = DIR/s, XDG_CONFIG_HOME = DIR/config,
   * XDG_STATE_HOME = DIR/state, XDG_CACHE_HOME = DIR/cache and TERM. */
  env: Record<string, string>;
}

/** Makes a {@link Sandbox} in a new folder named `prefix` + random letters. */
export function sandbox(prefix: string): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, {
    AGENTWATCH_DIR: join(dir, 's'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    TERM: 'xterm-256color',
  });
  return { dir, env };
}
