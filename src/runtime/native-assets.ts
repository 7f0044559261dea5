/**
 * Native files of the single executable: extracted once from the executable's SEA assets to
 * a hash-named cache folder, then loaded with process.dlopen.
 *
 * A Node single-executable application (SEA; Node docs, "Single executable applications",
 * sections "Assets" and "`sea.getAsset(key[, encoding])`", Node 20.12+) carries files as
 * assets in its injected blob, but a `.node` addon can only be loaded from a real file
 * (dlopen(3)). build.ts puts these assets in the blob (see {@link NATIVE_INDEX_ASSET}):
 *
 * - `native/index.json`: a {@link NativeIndex}, naming every native file with its size,
 *   mode and sha256;
 * - `native/<file>` for each file: node-pty's `pty.node` (and on macOS its `spawn-helper`,
 *   which lib/unixTerminal.js runs from the folder pty.node was loaded from), and our
 *   foreground addon `agentwatch_foreground.node` when it was built.
 *
 * All the files go to ONE folder, `<cache root>/<first 16 hex digits of sha256(index.json)>/`,
 * so a new build never reuses an old build's files and node-pty finds `spawn-helper` beside
 * `pty.node`. Cache roots, the first usable one wins:
 *   1. `$XDG_CACHE_HOME/agentwatch` (when XDG_CACHE_HOME is an absolute path),
 *   2. `~/.cache/agentwatch`,
 *   3. `<os.tmpdir()>/agentwatch-cache-<uid>` (not `/tmp/agentwatch-<uid>`: that is the
 *      control sockets' folder of src/runtime/paths.ts).
 * A root is usable when its folders can be created (mode 0700) and the root and the
 * hash folder are real folders (not symlinks), owned by this user and not writable by
 * group or others. Each file is written to a temporary name in that folder and renamed into
 * place (rename(2) is atomic), so concurrent first runs never see half a file; a file that
 * is already there with the indexed size and mode is kept. A root on a `noexec` mount passes
 * these checks and then dlopen fails (the error names the file): point XDG_CACHE_HOME
 * elsewhere.
 *
 * Outside a SEA (from source, or the plain bundle dist/agentwatch.cjs), nothing is extracted:
 * node-pty and the addon load from node_modules and build/Release as usual.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setAddonPath } from './foreground.ts';

/** The asset key of the {@link NativeIndex}; each file's key is `native/<name>`. */
export const NATIVE_INDEX_ASSET = 'native/index.json';
/** The asset key prefix of the native files. */
export const NATIVE_ASSET_PREFIX = 'native/';
/** The foreground addon's file name (native/foreground.c, built by node-gyp). */
export const FOREGROUND_ADDON_FILE = 'agentwatch_foreground.node';

/** What build.ts writes to the `native/index.json` asset. */
export type NativeIndex = {
  /** Format version: 1. */
  version: 1;
  /** The target the files were built for, e.g. 'linux-x64', 'darwin-arm64'. */
  target: string;
  /** File name (no folder) -> its facts. */
  files: Record<string, NativeFile>;
};

/** One native file of a {@link NativeIndex}. */
export type NativeFile = {
  /** Size in bytes. */
  size: number;
  /** Permission bits to write it with: 0o755 for an executable (spawn-helper), else 0o644. */
  mode: number;
  /**
   * Lower-case hex sha256 of its bytes. Not checked at run time: it is in the index so that
   * a changed file changes the index's hash, hence the folder's name.
   */
  sha256: string;
};

/** Where the native files were extracted to, or why not. */
export type NativeAssetsStatus = {
  /** Whether this process is a single-executable application. */
  sea: boolean;
  /** The folder holding the extracted files, once extracted. */
  dir?: string;
  /** The files in the index. */
  files: string[];
  /** Each cache root that was tried and failed, with its error. */
  failures: { root: string; error: string }[];
};

type SeaModule = typeof import('node:sea');

let seaModule: SeaModule | null | undefined;
let extracted: { dir: string; index: NativeIndex } | undefined;
let lastFailures: NativeAssetsStatus['failures'] = [];

/**
 * node:sea, or null where it does not exist (Node < 20.12) or this is not a SEA. Loaded
 * with createRequire so that an older Node can still import this file.
 */
function sea(): SeaModule | null {
  if (seaModule === undefined) {
    try {
      const req = createRequire(import.meta.url);
      const m = req('node:sea') as SeaModule;
      seaModule = typeof m.isSea === 'function' && m.isSea() ? m : null;
    } catch {
      seaModule = null;
    }
  }
  return seaModule;
}

/** Whether this process runs as a Node single-executable application. */
export function isSingleExecutable(): boolean {
  return sea() !== null;
}

/**
 * Start-up hook of the bundle (the entry that build.ts generates calls it before
 * src/cli/main.ts is evaluated): in a SEA, extracts the native files and tells foreground.ts
 * where the addon is; in the plain bundle dist/agentwatch.cjs, points foreground.ts at
 * `../build/Release/` beside the bundle's folder when the addon is there. Never throws: a
 * failure is kept for {@link nativeAssetsStatus}, and foreground.ts then falls back to
 * /proc or ps.
 */
export function initNativeAssets(): void {
  const m = sea();
  if (m === null) {
    // The plain bundle (dist/agentwatch.cjs): foreground.ts looks two folders up from
    // import.meta.url (right for src/runtime/, one too many for dist/), so name the addon.
    const here = import.meta.url;
    if (typeof here === 'string' && here.startsWith('file:')) {
      const addon = path.join(
        path.dirname(fileURLToPath(here)),
        '..',
        'build',
        'Release',
        FOREGROUND_ADDON_FILE,
      );
      if (existsSync(addon)) setAddonPath(addon);
    }
    return;
  }
  try {
    const { dir, index } = extractedAssets(m);
    if (index.files[FOREGROUND_ADDON_FILE] !== undefined) {
      setAddonPath(path.join(dir, FOREGROUND_ADDON_FILE));
    }
  } catch {
    // kept in lastFailures; node-pty's loader throws with the reason when it is needed
  }
}

/** Where the native files are, or why they are not; extracts nothing. */
export function nativeAssetsStatus(): NativeAssetsStatus {
  return {
    sea: sea() !== null,
    dir: extracted?.dir,
    files: extracted === undefined ? [] : Object.keys(extracted.index.files),
    failures: lastFailures.map((f) => ({ ...f })),
  };
}

/**
 * node-pty's native loader inside the bundle: build.ts rewrites node-pty 1.1.0's
 * `lib/utils.js` so that its `loadNativeModule(name)` asks this first.
 *
 * Returns what node-pty's own loader returns, `{ dir, module }`: `dir` is the folder that
 * holds `<name>.node` (lib/unixTerminal.js looks for `spawn-helper` there; an absolute
 * `dir` survives its `path.resolve(__dirname, dir + '/spawn-helper')`), `module` the
 * addon's exports.
 *   - In a SEA: from the extracted assets, loaded LAZILY: `module` is a proxy that
 *     dlopens `<name>.node` on first use (node-pty calls it only to open a PTY), so commands
 *     that never open one (`--version`, `classify`) run even where the native file cannot
 *     be extracted or loaded (say, a Linux whose glibc is older than the one pty.node was
 *     built against). That first use throws when `<name>.node` is not among the assets or
 *     cannot be extracted (the message names the cache roots tried) or loaded.
 *   - Outside a SEA (the plain bundle): from node-pty's package folder as node-pty itself
 *     would (build/Release, build/Debug, prebuilds/<platform>-<arch>), found with
 *     require.resolve from this file; undefined when node-pty is not installed there, and
 *     node-pty's own loader then runs.
 */
export function loadPtyNativeModule(name: string): { dir: string; module: unknown } | undefined {
  const m = sea();
  if (m === null) return loadFromNodeModules(name);
  const file = `${name}.node`;
  let dir: string;
  try {
    dir = extractedAssets(m).dir;
  } catch {
    // not extracted: the proxy throws the reason on first use
    dir = path.join(cacheRoots()[0], 'not-extracted');
  }
  return {
    dir,
    module: lazyModule(() => {
      const { dir, index } = extractedAssets(m);
      if (index.files[file] === undefined) {
        throw new Error(
          `agentwatch: this executable carries no ${file} for node-pty (it has: ` +
            `${Object.keys(index.files).join(', ') || 'none'})`,
        );
      }
      return dlopen(path.join(dir, file)) as object;
    }),
  };
}

/**
 * A stand-in for a module's exports that calls `load` on first use (a property read, `in`,
 * or listing the keys) and forwards to what it returned from then on. A failed load throws
 * at that use and is tried again at the next.
 */
export function lazyModule(load: () => object): object {
  let real: object | undefined;
  const target = (): object => (real ??= load());
  return new Proxy({}, {
    get: (_t, key) => Reflect.get(target(), key),
    has: (_t, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(target(), key);
      // the proxy's own target has no such property: it must be reported configurable
      return d === undefined ? undefined : { ...d, configurable: true };
    },
  });
}

/** node-pty's search (lib/utils.js), with absolute folders under its package folder. */
function loadFromNodeModules(name: string): { dir: string; module: unknown } | undefined {
  let pkgDir: string;
  try {
    pkgDir = path.dirname(createRequire(import.meta.url).resolve('node-pty/package.json'));
  } catch {
    return undefined;
  }
  const dirs = ['build/Release', 'build/Debug', `prebuilds/${process.platform}-${process.arch}`];
  const errors: string[] = [];
  for (const d of dirs) {
    const dir = path.join(pkgDir, d);
    try {
      return { dir, module: dlopen(path.join(dir, `${name}.node`)) };
    } catch (e) {
      errors.push(`${dir}: ${errorText(e)}`);
    }
  }
  throw new Error(`agentwatch: cannot load node-pty's ${name}.node (${errors.join('; ')})`);
}

/** Loads a Node addon from a file (process.dlopen, like require of a `.node` file). */
function dlopen(file: string): unknown {
  const module = { exports: {} as unknown };
  process.dlopen(module, file);
  return module.exports;
}

/** The extracted folder and index, extracting on the first call. */
function extractedAssets(m: SeaModule): { dir: string; index: NativeIndex } {
  if (extracted === undefined) {
    const indexText = m.getAsset(NATIVE_INDEX_ASSET, 'utf8');
    const index = parseIndex(indexText);
    const dir = extractNativeFiles(
      indexText,
      index,
      (name) => new Uint8Array(m.getAsset(NATIVE_ASSET_PREFIX + name)),
      cacheRoots(),
    );
    extracted = { dir, index };
  }
  return extracted;
}

/** Parses and checks a `native/index.json` text; throws naming what is wrong. */
export function parseIndex(text: string): NativeIndex {
  const index = JSON.parse(text) as Partial<NativeIndex>;
  if (index.version !== 1 || typeof index.files !== 'object' || index.files === null) {
    throw new Error(`agentwatch: ${NATIVE_INDEX_ASSET} is not a version 1 index`);
  }
  for (const [name, f] of Object.entries(index.files)) {
    if (name.includes('/') || name.startsWith('.') || !Number.isInteger(f?.size)) {
      throw new Error(`agentwatch: ${NATIVE_INDEX_ASSET}: bad entry '${name}'`);
    }
  }
  return index as NativeIndex;
}

/**
 * The cache roots to try, in order: `$XDG_CACHE_HOME/agentwatch` (absolute XDG_CACHE_HOME
 * only, as the XDG Base Directory spec says), `~/.cache/agentwatch`,
 * `<tmpdir>/agentwatch-cache-<uid>`.
 */
export function cacheRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const roots: string[] = [];
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && path.isAbsolute(xdg)) roots.push(path.join(xdg, 'agentwatch'));
  let home = '';
  try {
    home = os.homedir();
  } catch {
    // no home folder (a uid without a passwd entry)
  }
  if (home !== '') roots.push(path.join(home, '.cache', 'agentwatch'));
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  roots.push(path.join(os.tmpdir(), `agentwatch-cache-${uid}`));
  return [...new Set(roots)];
}

/**
 * Writes the files of `index` into `<root>/<hash>/` under the first usable root and returns
 * that folder. `hash` is the first 16 hex digits of sha256(`indexText`). `read(name)` gives
 * a file's bytes; it is called only for files that are missing or differ in size or mode.
 * Throws when no root is usable, naming each root and its error.
 */
export function extractNativeFiles(
  indexText: string,
  index: NativeIndex,
  read: (name: string) => Uint8Array,
  roots: readonly string[],
): string {
  const hash = createHash('sha256').update(indexText).digest('hex').slice(0, 16);
  const failures: NativeAssetsStatus['failures'] = [];
  for (const root of roots) {
    try {
      const dir = path.join(root, hash);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      checkPrivateDir(root);
      checkPrivateDir(dir);
      for (const [name, file] of Object.entries(index.files)) {
        writeIfNeeded(dir, name, file, read);
      }
      lastFailures = failures;
      return dir;
    } catch (e) {
      failures.push({ root, error: errorText(e) });
    }
  }
  lastFailures = failures;
  const list = failures.map((f) => `${f.root}: ${f.error}`).join('; ');
  throw new Error(`agentwatch: cannot extract the native files (${list})`);
}

/** Throws unless `dir` is a real folder owned by this user and not group/other-writable. */
function checkPrivateDir(dir: string): void {
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder (or is a symlink)`);
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) {
    throw new Error(`${dir} belongs to uid ${st.uid}, not ${uid}`);
  }
  if ((st.mode & 0o022) !== 0) {
    throw new Error(`${dir} is writable by others (mode ${(st.mode & 0o777).toString(8)})`);
  }
}

/** Keeps `dir/name` when it has the right size and mode; else writes it atomically. */
function writeIfNeeded(
  dir: string,
  name: string,
  file: NativeFile,
  read: (name: string) => Uint8Array,
): void {
  const target = path.join(dir, name);
  let st: Stats | undefined;
  try {
    st = lstatSync(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (st?.isFile() && st.size === file.size && (st.mode & 0o777) === file.mode) return;
  const bytes = read(name);
  if (bytes.byteLength !== file.size) {
    throw new Error(`asset ${name} has ${bytes.byteLength} bytes, the index says ${file.size}`);
  }
  const tmp = path.join(dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, bytes, { mode: file.mode, flag: 'wx' });
    chmodSync(tmp, file.mode); // the umask may have taken bits away
    renameSync(tmp, target);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // it was never created, or was renamed
    }
    throw e;
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
