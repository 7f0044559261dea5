/**
 * A {@link SessionHost} wired to the real parts: the manifests of every source (manifest-set.ts,
 * reloaded at each sweep) and the foreground helper (addon, else /proc, else ps).
 */
import { type Foreground, foreground, ptyMasterFd } from './foreground.ts';
import { SessionHost } from './host.ts';
import { ManifestSet, sourceLabel } from './manifest-set.ts';
import type { Session } from './session.ts';
import type { ForegroundRead } from './sweep.ts';
import { catalogCacheDir, lastGoodManifestDir, userManifestDir } from './user-dirs.ts';
import type { Config } from './config.ts';
import { CatalogUpdater } from './catalog-updater.ts';

/**
 * Starts pulling the catalog for `set` when the config names one and updates are on; null
 * otherwise. The updater's timer does not keep the process alive.
 */
export function startCatalog(
  set: ManifestSet,
  config: Config,
  env: NodeJS.ProcessEnv,
  update = true,
): CatalogUpdater | null {
  if (!update || !config.update || !config.catalogUrl) return null;
  const updater = new CatalogUpdater({
    url: config.catalogUrl,
    keys: config.catalogKeys,
    cacheDir: catalogCacheDir(env),
    set,
    intervalMs: config.updateIntervalMs,
  });
  updater.start();
  return updater;
}

/** Each session's last foreground read, so its leader is read again only when it changed. */
const lastForeground = new WeakMap<Session, Foreground | null>();

/**
 * Reads a session's foreground; null when unknown or on any error (the sweep goes on). The
 * pgid is read every time, the leader's name and argv only when the pgid changed.
 */
export function sessionForeground(session: Session): ForegroundRead | null {
  if (session.exit) return null;
  try {
    const fg = foreground({ fd: ptyMasterFd(session.pty), pid: session.pid }, {
      previous: lastForeground.get(session),
    });
    lastForeground.set(session, fg);
    return fg;
  } catch {
    return null;
  }
}

/** Sweep settings a command line chose. */
export interface SweepChoice {
  intervalMs?: number;
  adaptive?: boolean;
}

/**
 * The manifests of every source for this person: `files` (`--manifest`), their folder, the
 * catalog's cache and the bundled ones, watched for changes.
 * @throws ManifestError when one of `files` cannot be used.
 */
export function personManifests(
  files: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
  watch = true,
): ManifestSet {
  return new ManifestSet({
    files,
    userDir: userManifestDir(env),
    cacheDir: catalogCacheDir(env),
    lastGoodDir: lastGoodManifestDir(env),
    watch,
    yielding: watch,
  });
}

/**
 * A host with the person's manifests (see {@link personManifests}) and the real foreground
 * reader; `hooks: false` starts agents without the hooks their manifest declares; `agentArgs`
 * are put before the person's arguments for that agent.
 * @throws ManifestError when one of `files` cannot be used.
 */
export function createHost(
  choice: SweepChoice = {},
  env: NodeJS.ProcessEnv = process.env,
  { hooks, files, manifests, config, update = true }: {
    hooks?: boolean;
    files?: readonly string[];
    manifests?: ManifestSet;
    /** The config file's values: sweep defaults, agent args, the catalog. */
    config?: Config;
    /** False (`--no-update`): never pull the catalog. */
    update?: boolean;
  } = {},
): SessionHost {
  const set = manifests ?? personManifests(files, env);
  if (config) startCatalog(set, config, env, update);
  return new SessionHost({
    manifestSet: set,
    intervalMs: choice.intervalMs ?? config?.sweep.intervalMs,
    // run and watch (they pass the config): adaptive unless told otherwise; others choose.
    adaptive: choice.adaptive ?? (config ? config.sweep.adaptive ?? true : undefined),
    agentArgs: (id) => config?.agents[id]?.args ?? [],
    manifests: () => set.effective(),
    refresh: () => void set.refresh(),
    sourceOf: (id) => {
      const kind = set.sourceOf(id);
      return kind ? sourceLabel(kind) : null;
    },
    foreground: sessionForeground,
    hooks,
    env,
  });
}
