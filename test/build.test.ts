/**
 * The single executable (build.ts, src/runtime/native-assets.ts), with real processes.
 *
 * dist/agentwatch is built once (`node --import tsx build.ts`, about 10 s), or reused when
 * it is newer than every file it is made from. A copy of it then runs in an empty temporary
 * folder, with an environment whose PATH holds bash alone (no node, no node_modules in
 * sight) and whose HOME is empty, so the native files are extracted afresh from the SEA
 * assets into HOME/.cache/agentwatch/<hash>/.
 *
 * The extraction itself (roots, modes, reuse, unsafe folders) and the Mach-O signature
 * removal are also tested as functions, without building.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { machOLoadCommands, removeMachOSignature } from '../build.ts';
import {
  cacheRoots,
  extractNativeFiles,
  FOREGROUND_ADDON_FILE,
  lazyModule,
  type NativeIndex,
  parseIndex,
} from '../src/runtime/native-assets.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const EXE = path.join(ROOT, 'dist', 'agentwatch');
const BUILD_TIMEOUT_MS = 300_000;
const RUN_TIMEOUT_MS = 30_000;
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

/** The newest mtime (ms) of the files dist/agentwatch is made from. */
function newestInput(): number {
  let newest = 0;
  const visit = (p: string): void => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) visit(path.join(p, name));
    } else {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  for (const p of ['src', 'resources', 'native', 'build.ts', 'package.json', 'package-lock.json']) {
    visit(path.join(ROOT, p));
  }
  visit(path.join(ROOT, 'node_modules', 'node-pty', 'build', 'Release', 'pty.node'));
  visit(path.join(ROOT, 'build', 'Release', FOREGROUND_ADDON_FILE));
  return newest;
}

let built = false;
/** dist/agentwatch, built now unless it is newer than all its inputs. */
function executable(): string {
  if (built) return EXE;
  if (!existsSync(EXE) || statSync(EXE).mtimeMs <= newestInput()) {
    execFileSync(process.execPath, ['--import', 'tsx', 'build.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: BUILD_TIMEOUT_MS,
    });
  }
  built = true;
  return EXE;
}

/** A temporary folder with a copy of the executable, an empty HOME, and bin/ with bash only. */
type Sandbox = { dir: string; exe: string; home: string; env: NodeJS.ProcessEnv };
let sandbox: Sandbox | undefined;

function theSandbox(): Sandbox {
  if (sandbox !== undefined) return sandbox;
  const dir = mkdtempSync(path.join(tmpdir(), 'agentwatch-sea-'));
  const exe = path.join(dir, 'agentwatch');
  copyFileSync(executable(), exe);
  chmodSync(exe, 0o755);
  const bin = path.join(dir, 'bin');
  const home = path.join(dir, 'home');
  mkdirSync(bin);
  mkdirSync(home);
  const bash = ['/bin/bash', '/usr/bin/bash'].find((p) => existsSync(p)) ?? '/bin/bash';
  symlinkSync(bash, path.join(bin, 'bash'));
  // its sessions' sockets and ended records in the sandbox, not in the person's default
  // folder (tester10 saw this test's `bash -c 'exit 3'` in their `ls`)
  const env = {
    PATH: bin,
    HOME: home,
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    AGENTWATCH_DIR: path.join(dir, 'sockets'),
  };
  sandbox = { dir, exe, home, env };
  return sandbox;
}

/** Runs the sandboxed executable in the sandbox folder with `args`; stdin is empty. */
function runExe(args: string[]): SpawnSyncReturns<string> {
  const s = theSandbox();
  const r = spawnSync(s.exe, args, {
    cwd: s.dir,
    env: s.env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: RUN_TIMEOUT_MS,
  });
  if (r.error) throw r.error;
  return r;
}

function describe(r: SpawnSyncReturns<string>): string {
  return `status ${r.status} signal ${r.signal}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
}

test.after(() => {
  if (sandbox !== undefined) rmSync(sandbox.dir, { recursive: true, force: true });
});

test('dist/agentwatch is a single executable on Node 26 (LTS; 20 is end of life): --version with no node on PATH, elsewhere', () => {
  const s = theSandbox();
  assert.not.ok(existsSync(path.join(s.dir, 'bin', 'node')));
  assert.not.ok(existsSync(path.join(s.dir, 'node_modules')));
  const r = runExe(['--version']);
  assert.is(r.status, 0, describe(r));
  const version = pkg.version.replaceAll('.', '\\.');
  assert.match(r.stdout, new RegExp(`^agentwatch ${version} \\(Node v26\\.\\d+\\.\\d+\\)\n$`));
  assert.is(r.stderr, '', 'no ExperimentalWarning or other noise');
});

test('the native files are extracted once to HOME/.cache/agentwatch/<hash>/, mode 0700', () => {
  const s = theSandbox();
  runExe(['--version']);
  const cache = path.join(s.home, '.cache', 'agentwatch');
  const dirs = readdirSync(cache);
  assert.is(dirs.length, 1, dirs.join(', '));
  assert.match(dirs[0], /^[0-9a-f]{16}$/);
  const dir = path.join(cache, dirs[0]);
  assert.is(statSync(dir).mode & 0o777, 0o700);
  const files = readdirSync(dir).sort();
  assert.ok(files.includes('pty.node'), files.join(', '));
  assert.not.ok(files.some((f) => f.endsWith('.tmp')), files.join(', '));
  if (existsSync(path.join(ROOT, 'build', 'Release', FOREGROUND_ADDON_FILE))) {
    assert.ok(files.includes(FOREGROUND_ADDON_FILE), files.join(', '));
  }
  const before = statSync(path.join(dir, 'pty.node')).mtimeMs;
  runExe(['--version']);
  assert.is(statSync(path.join(dir, 'pty.node')).mtimeMs, before, 'kept, not rewritten');
});

test('dist/agentwatch classify says blocked for the Claude Code permission prompt', () => {
  const r = runExe(['classify', path.join(ROOT, 'fixtures', 'claude-code', 'claude.blocked.raw')]);
  assert.is(r.status, 0, describe(r));
  assert.match(r.stdout, /\bblocked\b/);
});

test("dist/agentwatch run -- bash -c 'exit 3' exits 3 (node-pty from the extracted pty.node)", () => {
  const r = runExe(['run', '--', 'bash', '-c', 'exit 3']);
  assert.is(r.status, 3, describe(r));
  // its ended record in the sandbox's socket folder
  assert.ok(existsSync(path.join(theSandbox().dir, 'sockets', 'ended')), 'the ended record');
});

// ---- native-assets.ts without a SEA ----

function indexOf(files: Record<string, Uint8Array>, modes: Record<string, number> = {}): {
  text: string;
  index: NativeIndex;
} {
  const index: NativeIndex = { version: 1, target: 'test', files: {} };
  for (const [name, bytes] of Object.entries(files)) {
    index.files[name] = { size: bytes.length, mode: modes[name] ?? 0o644, sha256: 'x' };
  }
  const text = JSON.stringify(index);
  return { text, index: parseIndex(text) };
}

test('extractNativeFiles: writes with the modes, reuses, rewrites a wrong file', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'agentwatch-extract-'));
  try {
    const files = { 'a.node': new Uint8Array([1, 2, 3]), 'helper': new Uint8Array([4, 5]) };
    const { text, index } = indexOf(files, { helper: 0o755 });
    const reads: string[] = [];
    const read = (name: string) => {
      reads.push(name);
      return files[name as keyof typeof files];
    };
    const root = path.join(tmp, 'cache', 'agentwatch');
    const dir = extractNativeFiles(text, index, read, [root]);
    assert.is(path.dirname(dir), root);
    assert.match(path.basename(dir), /^[0-9a-f]{16}$/);
    assert.is(statSync(dir).mode & 0o777, 0o700);
    assert.is(statSync(root).mode & 0o777, 0o700);
    assert.equal([...readFileSync(path.join(dir, 'a.node'))], [1, 2, 3]);
    assert.is(statSync(path.join(dir, 'a.node')).mode & 0o777, 0o644);
    assert.is(statSync(path.join(dir, 'helper')).mode & 0o777, 0o755);
    assert.equal(reads.sort(), ['a.node', 'helper']);

    reads.length = 0;
    assert.is(extractNativeFiles(text, index, read, [root]), dir);
    assert.equal(reads, [], 'nothing read again');

    writeFileSync(path.join(dir, 'a.node'), 'truncated!');
    extractNativeFiles(text, index, read, [root]);
    assert.equal(reads, ['a.node']);
    assert.equal([...readFileSync(path.join(dir, 'a.node'))], [1, 2, 3]);
    assert.equal(readdirSync(dir).sort(), ['a.node', 'helper'], 'no temporary files left');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('extractNativeFiles: skips roots that are unsafe or unusable, names them all on failure', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'agentwatch-extract-'));
  try {
    const files = { 'a.node': new Uint8Array([7]) };
    const { text, index } = indexOf(files);
    const read = () => files['a.node'];
    const open = path.join(tmp, 'open');
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777); // group- and world-writable: another user could swap files
    const file = path.join(tmp, 'file');
    writeFileSync(file, '');
    const link = path.join(tmp, 'link');
    const real = path.join(tmp, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, link);
    const good = path.join(tmp, 'good');
    const dir = extractNativeFiles(text, index, read, [open, path.join(file, 'x'), link, good]);
    assert.is(path.dirname(dir), good);

    const err = (() => {
      try {
        extractNativeFiles(text, index, read, [open, link]);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    assert.match(err, /cannot extract/);
    assert.match(err, /writable by others/);
    assert.match(err, /symlink/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('cacheRoots: XDG_CACHE_HOME (absolute only), ~/.cache, then the temp folder per uid', () => {
  const roots = cacheRoots({ XDG_CACHE_HOME: '/x/cache' });
  assert.is(roots[0], '/x/cache/agentwatch');
  assert.ok(roots.some((r) => r.endsWith(path.join('.cache', 'agentwatch'))));
  assert.ok(roots[roots.length - 1].startsWith(tmpdir()));
  assert.not.ok(cacheRoots({ XDG_CACHE_HOME: 'relative' }).some((r) => r.startsWith('relative')));
});

test('lazyModule: loads on first use only, forwards, retries after a failed load', () => {
  let loads = 0;
  let fail = true;
  const m = lazyModule(() => {
    loads++;
    if (fail) throw new Error('no pty.node here');
    return { fork: (a: number) => a + 1, version: 7 };
  }) as { fork(a: number): number; version: number };
  assert.is(loads, 0, 'nothing loaded yet');
  assert.throws(() => m.fork(1), /no pty.node here/);
  fail = false;
  assert.is(m.fork(1), 2);
  assert.is(m.version, 7);
  assert.ok('fork' in m);
  assert.equal(Object.keys(m).sort(), ['fork', 'version']);
  assert.is(loads, 2);
});

// ---- Mach-O signature removal (build.ts), on a synthetic file ----

/**
 * A minimal arm64 Mach-O: header, LC_SEGMENT_64 __LINKEDIT (no sections), LC_CODE_SIGNATURE,
 * LC_SEGMENT_64 __AFTER; __LINKEDIT holds 0x100 bytes of data then a 0x40-byte signature at
 * the end of the file.
 */
function syntheticMachO(): Buffer {
  const linkeditOff = 0x1000;
  const buf = Buffer.alloc(linkeditOff + 0x140, 0);
  buf.writeUInt32LE(0xfeedfacf, 0);
  buf.writeUInt32LE(0x0100000c, 4); // CPU_TYPE_ARM64
  buf.writeUInt32LE(2, 12); // MH_EXECUTE
  buf.writeUInt32LE(3, 16); // ncmds
  buf.writeUInt32LE(72 + 16 + 72, 20); // sizeofcmds
  let off = 32;
  const segment = (name: string, fileoff: number, filesize: number) => {
    buf.writeUInt32LE(0x19, off);
    buf.writeUInt32LE(72, off + 4);
    buf.write(name, off + 8, 'latin1');
    buf.writeBigUInt64LE(0x4000n, off + 32);
    buf.writeBigUInt64LE(BigInt(fileoff), off + 40);
    buf.writeBigUInt64LE(BigInt(filesize), off + 48);
    off += 72;
  };
  segment('__LINKEDIT', linkeditOff, 0x140);
  buf.writeUInt32LE(0x1d, off);
  buf.writeUInt32LE(16, off + 4);
  buf.writeUInt32LE(linkeditOff + 0x100, off + 8);
  buf.writeUInt32LE(0x40, off + 12);
  off += 16;
  segment('__AFTER', 0, 0);
  buf.fill(0xab, linkeditOff, linkeditOff + 0x100);
  buf.fill(0xcd, linkeditOff + 0x100);
  return buf;
}

test('removeMachOSignature: drops LC_CODE_SIGNATURE and the signature, shrinks __LINKEDIT', () => {
  const before = syntheticMachO();
  assert.ok(machOLoadCommands(before).codeSignature !== undefined);
  const after = removeMachOSignature(before);
  assert.is(after.length, 0x1100);
  const m = machOLoadCommands(after);
  assert.is(m.codeSignature, undefined);
  assert.is(m.ncmds, 2);
  assert.is(m.sizeofcmds, 144);
  assert.equal(m.segments.map((s) => s.name), ['__LINKEDIT', '__AFTER']);
  assert.is(m.segments[0].filesize, 0x100);
  assert.is(m.segments[0].vmsize, 0x4000);
  assert.ok(after.subarray(32 + 144, 32 + 160).every((b) => b === 0), 'freed bytes zeroed');
  assert.ok(after.subarray(0x1000).every((b) => b === 0xab), 'the rest of __LINKEDIT kept');
  assert.is(removeMachOSignature(after), after, 'an unsigned file is returned as is');
});

test('darwin executables, when built (--target darwin-*): Mach-O, blob in NODE_SEA, signature', () => {
  for (const arch of ['x64', 'arm64']) {
    const file = path.join(ROOT, 'dist', `agentwatch-darwin-${arch}`);
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    const m = machOLoadCommands(bytes);
    assert.is(m.cputype, arch === 'arm64' ? 0x0100000c : 0x01000007);
    const sea = m.segments.find((s) => s.name === 'NODE_SEA');
    assert.ok(sea?.sections.some((s) => s.name === '__NODE_SEA_BLOB' && s.size > 0), file);
    // signed ad hoc when built on a Mac; elsewhere unsigned (the signature removed)
    assert.is(m.codeSignature !== undefined, process.platform === 'darwin', file);
    assert.ok(bytes.includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1'), file);
  }
});

test.run();
