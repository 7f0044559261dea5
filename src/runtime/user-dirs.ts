/**
 * The person's folders, by the XDG Base Directory rules (freedesktop.org; agentwatch follows
 * them on macOS too): `$XDG_CONFIG_HOME` (else `~/.config`) for the config file and the
 * person's manifests, `$XDG_CACHE_HOME` (else `~/.cache`) for the catalog's cache. A relative
 * XDG value is ignored, as the specification says. Nothing here is created.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

function base(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const v = env[name];
  if (v && isAbsolute(v)) return v;
  return join(env.HOME || homedir(), fallback);
}

/** `$XDG_CONFIG_HOME/agentwatch` (else `~/.config/agentwatch`). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(base(env, 'XDG_CONFIG_HOME', '.config'), 'agentwatch');
}

/** The config file: `configDir()/config.toml`. */
export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'config.toml');
}

/** The person's manifests: `configDir()/agent-detection/` (every `*.toml` in it). */
export function userManifestDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'agent-detection');
}

/** The catalog's cache: `$XDG_CACHE_HOME/agentwatch/manifests` (else `~/.cache/...`). */
export function catalogCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(base(env, 'XDG_CACHE_HOME', '.cache'), 'agentwatch', 'manifests');
}

/**
 * The last good copy of each of the person's manifests: `$XDG_STATE_HOME/agentwatch/
 * last-good-manifests` (else `~/.local/state/...`), state that must outlive a restart.
 */
export function lastGoodManifestDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(
    base(env, 'XDG_STATE_HOME', join('.local', 'state')),
    'agentwatch',
    'last-good-manifests',
  );
}
