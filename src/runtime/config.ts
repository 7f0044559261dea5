/**
 * The config file, `$XDG_CONFIG_HOME/agentwatch/config.toml` (else `~/.config/...`), read with
 * smol-toml. Every key is optional; an unknown key or a mistyped value is an error that names
 * the file and line (a typo must not silently turn a setting off).
 *
 * ```toml
 * catalog_url = "https://example.org/agentwatch/index.toml"   # http(s):// or file://
 * catalog_keys = ["MCowBQYDK2VwAyEA..."]   # ed25519 public keys (base64 SPKI DER, from keygen);
 *                                          # [] written explicitly: unsigned catalogs accepted
 * update = true                            # false: never fetch the catalog
 * update_interval = "30m"                  # 90s, 30m, 2h or seconds; at least 1 s
 *
 * [sweep]
 * interval = 700                           # ms, 50-10000
 * adaptive = true
 *
 * [agents.claude]
 * args = ["--permission-mode", "manual"]   # put before your arguments when run starts claude
 *
 * [notify]                                 # the notification channels: passed through as is
 * ```
 * `AGENTWATCH_MANIFEST_URL` in the environment overrides `catalog_url` (empty: no catalog).
 * The `[notify]` table's schema belongs to the notifications module; here it is an opaque
 * table the lead wires to it.
 */
import { parse, TomlError } from 'smol-toml';
import { UserError } from '../errors.ts';
import { FileReadError, readBoundedText } from './read-bounded.ts';
import { configFile } from './user-dirs.ts';

/** The largest config file read, in bytes. */
export const CONFIG_MAX_BYTES = 64 * 1024;
/** The catalog's default update interval: 30 min. */
export const DEFAULT_UPDATE_INTERVAL_MS = 30 * 60_000;
/** The shortest update interval accepted: 1 s (a local test catalog; a public one wants minutes). */
export const MIN_UPDATE_INTERVAL_MS = 1000;

/** The effective configuration: the file's values over the defaults, the environment over both. */
export interface Config {
  /** The catalog index's URL; null: no catalog. */
  catalogUrl: string | null;
  /** Public keys the catalog's signature may verify with (besides the pinned ones); null: not set. */
  catalogKeys: string[] | null;
  /** False: the catalog is never fetched. */
  update: boolean;
  /** Time between two fetches, ms (jitter and backoff apply). */
  updateIntervalMs: number;
  sweep: { intervalMs?: number; adaptive?: boolean };
  /** Arguments put before the person's, per agent id. */
  agents: Record<string, { args: string[] }>;
  /** The `[notify]` table as written, or null; its schema is the notifications module's. */
  notify: Record<string, unknown> | null;
}

/** A configuration and where each value came from ('default', 'config.toml:3', an env name). */
export interface LoadedConfig {
  config: Config;
  /** Key (as written, `sweep.interval`) -> its origin. */
  origins: Map<string, string>;
  /** The file read (it may not exist). */
  path: string;
}

const TOP = [
  'catalog_url',
  'catalog_keys',
  'update',
  'update_interval',
  'sweep',
  'agents',
  'notify',
];
const SWEEP = ['interval', 'adaptive'];
const AGENT = ['args'];

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/**
 * The 1-based line of key `path` in a config document: `a` at the top, `[t]` then `b` for
 * `t.b`, `[agents.claude]` then `args` for `agents.claude.args`; else the table's header line;
 * null when neither is found. The config's tables are plain `[name]` headers, so a line scan
 * is enough (strings spanning lines are not expected here).
 */
export function lineOf(text: string, path: readonly string[]): number | null {
  const lines = text.split(/\r?\n/);
  const table = path.slice(0, -1).join('.');
  const key = path[path.length - 1];
  const norm = (h: string) => h.split('.').map((x) => x.trim().replace(/^"|"$/g, '')).join('.');
  let current = '';
  let header: number | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    const h = /^\[\s*([^\[\]]+?)\s*\]/.exec(l);
    if (h) {
      current = norm(h[1]);
      if (current === path.join('.')) header = i + 1;
      continue;
    }
    const k = /^("[^"]*"|[A-Za-z0-9_-]+)\s*=/.exec(l);
    if (k && current === table && k[1].replace(/^"|"$/g, '') === key) return i + 1;
  }
  return header;
}

/** Parses '30m', '90s', '2h', '500ms' or a number of seconds into ms; NaN when not one. */
export function parseDuration(v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v * 1000;
  if (typeof v !== 'string') return NaN;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?$/.exec(v.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'h' ? 3_600_000 : 60_000);
}

/**
 * Parses a config document (pure apart from `env`); `source` names it in errors.
 * @throws UserError naming `source:line: key: problem` for a TOML error, an unknown key or a
 *   bad value.
 */
export function parseConfig(
  text: string,
  source: string,
  env: NodeJS.ProcessEnv = {},
): LoadedConfig {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof TomlError) {
      const first = e.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
      throw new UserError(`${source}:${e.line}: TOML syntax error: ${first}`);
    }
    throw e;
  }
  const origins = new Map<string, string>();
  const at = (path: (string | number)[]) => {
    const line = lineOf(text, path.map(String));
    return line === null ? source : `${source}:${line}`;
  };
  const fail = (path: (string | number)[], detail: string): never => {
    throw new UserError(`${at(path)}: ${path.join('.')}: ${detail}`);
  };
  const known = (t: Record<string, unknown>, keys: string[], path: string[]) => {
    for (const k of Object.keys(t)) {
      if (!keys.includes(k)) {
        fail([...path, k], `unknown key '${k}' (expected one of ${keys.join(', ')})`);
      }
    }
  };
  const set = (path: (string | number)[]) => origins.set(path.join('.'), at(path));
  known(doc, TOP, []);
  const config: Config = {
    catalogUrl: null,
    catalogKeys: null,
    update: true,
    updateIntervalMs: DEFAULT_UPDATE_INTERVAL_MS,
    sweep: {},
    agents: {},
    notify: null,
  };
  for (const k of ['catalog_url', 'catalog_keys', 'update', 'update_interval']) {
    origins.set(k, 'default');
  }
  if (doc.catalog_url !== undefined) {
    const v = doc.catalog_url;
    if (typeof v !== 'string' || !/^(https?|file):\/\/./.test(v)) {
      fail(
        ['catalog_url'],
        `expected an http://, https:// or file:// URL, got ${JSON.stringify(v)}`,
      );
    }
    config.catalogUrl = v as string;
    set(['catalog_url']);
  }
  if (doc.catalog_keys !== undefined) {
    const v = doc.catalog_keys;
    if (!Array.isArray(v) || v.some((k) => typeof k !== 'string' || !k)) {
      fail(
        ['catalog_keys'],
        'expected an array of public keys (base64 strings, from manifests keygen)',
      );
    }
    config.catalogKeys = v as string[];
    set(['catalog_keys']);
  }
  if (doc.update !== undefined) {
    if (typeof doc.update !== 'boolean') fail(['update'], 'expected true or false');
    config.update = doc.update as boolean;
    set(['update']);
  }
  if (doc.update_interval !== undefined) {
    const ms = parseDuration(doc.update_interval);
    if (!(ms >= MIN_UPDATE_INTERVAL_MS)) {
      fail(
        ['update_interval'],
        `expected a duration of at least 1 s like "30m", "90s", "2h" or seconds, got ${
          JSON.stringify(doc.update_interval)
        }`,
      );
    }
    config.updateIntervalMs = ms;
    set(['update_interval']);
  }
  if (doc.sweep !== undefined) {
    if (!isTable(doc.sweep)) fail(['sweep'], 'expected a table [sweep]');
    const t = doc.sweep as Record<string, unknown>;
    known(t, SWEEP, ['sweep']);
    if (t.interval !== undefined) {
      const v = t.interval;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 50 || v > 10000) {
        fail(['sweep', 'interval'], `expected whole ms from 50 to 10000, got ${JSON.stringify(v)}`);
      }
      config.sweep.intervalMs = v as number;
      set(['sweep', 'interval']);
    }
    if (t.adaptive !== undefined) {
      if (typeof t.adaptive !== 'boolean') fail(['sweep', 'adaptive'], 'expected true or false');
      config.sweep.adaptive = t.adaptive as boolean;
      set(['sweep', 'adaptive']);
    }
  }
  if (doc.agents !== undefined) {
    if (!isTable(doc.agents)) fail(['agents'], 'expected tables like [agents.claude]');
    for (const [id, t] of Object.entries(doc.agents as Record<string, unknown>)) {
      if (!isTable(t)) fail(['agents', id], 'expected a table');
      known(t as Record<string, unknown>, AGENT, ['agents', id]);
      const args = (t as Record<string, unknown>).args;
      if (args !== undefined) {
        if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) {
          fail(['agents', id, 'args'], 'expected an array of strings');
        }
        config.agents[id] = { args: args as string[] };
        set(['agents', id, 'args']);
      }
    }
  }
  if (doc.notify !== undefined) {
    if (!isTable(doc.notify)) fail(['notify'], 'expected a table [notify]');
    config.notify = doc.notify as Record<string, unknown>;
    set(['notify']);
  }
  const override = env.AGENTWATCH_MANIFEST_URL;
  if (override !== undefined) {
    if (override !== '' && !/^(https?|file):\/\/./.test(override)) {
      throw new UserError(
        `AGENTWATCH_MANIFEST_URL: expected an http://, https:// or file:// URL, got ${
          JSON.stringify(override)
        }`,
      );
    }
    config.catalogUrl = override || null;
    origins.set('catalog_url', 'AGENTWATCH_MANIFEST_URL');
  }
  return { config, origins, path: source };
}

/**
 * Reads the person's config file (a missing file gives the defaults).
 * @throws UserError naming the file (and line) when it cannot be read or is invalid.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const path = configFile(env);
  let text = '';
  try {
    text = readBoundedText(path, CONFIG_MAX_BYTES);
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e;
    if (!/cannot read: no such file/.test(e.detail)) throw new UserError(e.message);
  }
  return parseConfig(text, path, env);
}
