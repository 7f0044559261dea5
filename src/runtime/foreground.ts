/**
 * Who holds a PTY: the terminal's foreground process group and that group's leader.
 *
 * The process table says WHO holds the terminal, not whether the agent waits (DESIGN.md
 * section 1): when the PTY's shell is back in the foreground, the agent has exited, whatever
 * its last screen still shows. A node-pty child is a session leader (node-pty calls setsid),
 * so its pid is its own process group: "the child holds the terminal" is
 * `foreground(m)?.pgid === m.pid`.
 *
 * Sources, in order (each fact says where it comes from):
 *   1. 'addon': tcgetpgrp(master fd) (POSIX.1) through native/foreground.c, and the leader's
 *      name/argv from /proc/PID/comm + cmdline (Linux) or proc_pidpath + KERN_PROCARGS2
 *      (macOS). Needs the addon and the master fd (see {@link ptyMasterFd}).
 *   2. 'proc' (Linux): field 8 `tpgid` of /proc/CHILD/stat (proc(5)), the foreground process
 *      group of the child's controlling terminal; the leader from /proc/PGID/comm + cmdline.
 *   3. 'ps' (macOS and others): `ps -o tpgid= -p CHILD`, then `ps -o comm=` and
 *      `ps -o args=` for the leader (ps(1)); args are split at blanks, so argv is approximate.
 *
 * The addon is loaded lazily, once, on the first call that needs it: first from the path
 * given to {@link setAddonPath} (the single-executable build extracts it to a cache folder),
 * then from build/Release/agentwatch_foreground.node under the repository root. A failure is
 * remembered and reported by {@link foregroundDiagnostics}, naming every path tried and its
 * error; nothing is thrown at import time. AGENTWATCH_NO_ADDON=1 (read on every call) skips
 * the addon.
 *
 * Why one file over 400 lines: the three sources answer one question with one cache (the
 * last group and its leader); apart, each would keep its own copy of when to re-read.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IPty } from 'node-pty';
import type { ForegroundAddon, ProcessInfo } from '../../native/foreground.d.ts';
import { SHELLS } from './signals.ts';

/** The foreground process group of a PTY and its leader. */
export type Foreground = {
  /** The foreground process group id. */
  pgid: number;
  /** The group's leader: always equal to pgid (a group's id is its leader's pid). */
  pid: number;
  /**
   * The leader's executable name: a basename without a `.exe` suffix (Claude Code's npm
   * package runs `bin/claude.exe`, so 'claude'). '' when the leader is gone (it exited
   * while the rest of its group still holds the terminal).
   */
  name: string;
  /** The leader's arguments, argv[0] first; [] when they cannot be read. */
  argv: string[];
  /** Which source gave pgid. */
  via: ForegroundVia;
};

export type ForegroundVia = 'addon' | 'proc' | 'ps';

/** The PTY to ask about: its master fd when known, and its child's pid. */
export type PtyMaster = { fd?: number; pid: number };

export type ForegroundOptions = {
  /**
   * Ask only this source and let its errors through (tests; diagnosis). Default: the
   * addon, then /proc on Linux, else ps, each falling through to the next on an error.
   */
  via?: ForegroundVia;
  /**
   * The answer of this PTY's previous call: when the foreground group is still the same
   * (same pgid, same source) and its leader was read less than {@link LEADER_REREAD_MS}
   * ago, the leader's name and argv are not read again (a group's leader stays while the
   * group lives; only an exec(2) renames it, seen within that time) and this object itself
   * is returned. The pgid is read every time; a leader that could not be read (name '') is
   * read again.
   */
  previous?: Foreground | null;
};

/** How long a leader's name and argv are trusted for the same foreground group, ms. */
export const LEADER_REREAD_MS = 5000;

/** When each answer's leader was read (ms since the epoch), for {@link ForegroundOptions.previous}. */
const leaderReadAt = new WeakMap<Foreground, number>();

/**
 * `previous` when it still answers for foreground group `pgid` read by `via` on the PTY whose
 * child is `child`, else null.
 */
function stillLeader(
  previous: Foreground | null | undefined,
  pgid: number,
  via: ForegroundVia,
  child: number,
): Foreground | null {
  if (!previous || previous.pgid !== pgid || previous.via !== via || !previous.name) return null;
  if (runsCommandString(previous)) return null;
  // A shell leading a group of its own under the PTY's child is, most often, the child shell's
  // fork for a command (`sleep 30`) read before it exec'd: read it again until it has.
  if (pgid !== child && SHELLS.has(previous.name.toLowerCase())) return null;
  const at = leaderReadAt.get(previous);
  return at !== undefined && Date.now() - at < LEADER_REREAD_MS ? previous : null;
}

/**
 * True when `fg`'s leader is a shell given a command string (`bash -c 'a; b'`, `sh -ec ...`):
 * such a shell runs its commands in its own group and execs the last one in its place (bash,
 * dash), so the group and leader stay while the name changes. Its name is read every time:
 * one such pane's leader, not every idle shell's.
 */
function runsCommandString(fg: Foreground): boolean {
  return SHELLS.has(fg.name.toLowerCase()) &&
    fg.argv.slice(1).some((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === '--command');
}

/** What happened when the addon was (or was not) loaded. */
export type ForegroundDiagnostics = {
  /** 'disabled': AGENTWATCH_NO_ADDON=1; 'failed': every path failed to load. */
  addon: 'loaded' | 'failed' | 'disabled';
  /** The path it was loaded from, when loaded. */
  loadedFrom?: string;
  /** Every path tried, in order, with its load error ('' for the one that loaded). */
  tried: { path: string; error: string }[];
  /** The source used when the addon is missing or has no fd: 'proc' on Linux, else 'ps'. */
  fallback: 'proc' | 'ps';
  /** One line for people: what is used and why. */
  summary: string;
};

/** The result of {@link loadForegroundAddon}. */
export type AddonLoad = {
  addon: ForegroundAddon | undefined;
  loadedFrom?: string;
  tried: { path: string; error: string }[];
};

const ADDON_FILE = 'agentwatch_foreground.node';
/** ps is a fallback that blocks the event loop; never for long. */
const PS_TIMEOUT_MS = 1000;

let explicitAddonPath: string | undefined;
let addonLoad: AddonLoad | undefined;

/**
 * Where to load the addon from before the repository's build folder (the single-executable
 * build sets the extracted asset's path). Forgets an earlier load or failure, so the next
 * call tries again; `undefined` removes the explicit path.
 */
export function setAddonPath(addonPath: string | undefined): void {
  explicitAddonPath = addonPath;
  addonLoad = undefined;
}

/**
 * Loads the addon from the first of `candidates` that loads (with process.dlopen) and has
 * all three functions. Never throws: each failure is recorded in `tried`.
 */
export function loadForegroundAddon(candidates: readonly string[]): AddonLoad {
  const tried: AddonLoad['tried'] = [];
  for (const candidate of candidates) {
    try {
      const module = { exports: {} as Partial<ForegroundAddon> };
      process.dlopen(module, candidate);
      const {
        foregroundPgid,
        processInfo,
        peerCredentials,
        inputQueued,
        childSubreaper,
        reapChild,
        setCloexec,
      } = module.exports;
      if (
        typeof foregroundPgid !== 'function' || typeof processInfo !== 'function' ||
        typeof peerCredentials !== 'function'
      ) {
        throw new Error(
          'loaded, but it does not export foregroundPgid, processInfo and peerCredentials',
        );
      }
      tried.push({ path: candidate, error: '' });
      return {
        addon: {
          foregroundPgid,
          processInfo,
          peerCredentials,
          ...(typeof inputQueued === 'function' ? { inputQueued } : {}),
          ...(typeof childSubreaper === 'function' && typeof reapChild === 'function'
            ? { childSubreaper, reapChild }
            : {}),
          ...(typeof setCloexec === 'function' ? { setCloexec } : {}),
        },
        loadedFrom: candidate,
        tried,
      };
    } catch (e) {
      tried.push({ path: candidate, error: errorText(e) });
    }
  }
  return { addon: undefined, tried };
}

/** The default candidates: the explicit path, then build/Release under the repository root. */
function addonCandidates(): string[] {
  const candidates = explicitAddonPath === undefined ? [] : [explicitAddonPath];
  // import.meta.url is this file (src/runtime/foreground.ts) when run from source; a bundle
  // may have none, and then only the explicit path is tried.
  const here = import.meta.url;
  if (typeof here === 'string' && here.startsWith('file:')) {
    const root = path.resolve(path.dirname(fileURLToPath(here)), '..', '..');
    candidates.push(path.join(root, 'build', 'Release', ADDON_FILE));
  }
  return candidates;
}

function addonDisabled(): boolean {
  return process.env.AGENTWATCH_NO_ADDON === '1';
}

/**
 * The native addon (loaded on first use), or undefined when it is disabled
 * (`AGENTWATCH_NO_ADDON=1`) or did not load; {@link foregroundDiagnostics} says why.
 */
export function nativeAddon(): ForegroundAddon | undefined {
  return addonDisabled() ? undefined : loadedAddon().addon;
}

function loadedAddon(): AddonLoad {
  if (addonLoad === undefined) {
    const candidates = addonCandidates();
    addonLoad = candidates.length > 0
      ? loadForegroundAddon(candidates)
      : { addon: undefined, tried: [{ path: '(none)', error: 'no addon path is known' }] };
  }
  return addonLoad;
}

/**
 * How foreground() finds its answers here, loading the addon if that was not tried yet
 * (unless AGENTWATCH_NO_ADDON=1). Never throws.
 */
export function foregroundDiagnostics(): ForegroundDiagnostics {
  const fallback = defaultFallback();
  if (addonDisabled()) {
    return {
      addon: 'disabled',
      tried: [],
      fallback,
      summary: `foreground addon disabled by AGENTWATCH_NO_ADDON=1; using ${fallback}`,
    };
  }
  const load = loadedAddon();
  const tried = load.tried.map((t) => ({ ...t }));
  if (load.addon !== undefined) {
    return {
      addon: 'loaded',
      loadedFrom: load.loadedFrom,
      tried,
      fallback,
      summary: `foreground addon loaded from ${load.loadedFrom}`,
    };
  }
  const list = tried.map((t) => `${t.path}: ${t.error}`).join('; ');
  return {
    addon: 'failed',
    tried,
    fallback,
    summary: `foreground addon not loaded (tried ${list}); using ${fallback}`,
  };
}

/**
 * The master fd of a node-pty terminal, or undefined (Windows; a node-pty without it).
 * Source: node-pty 1.1.0 lib/unixTerminal.js keeps it in the non-public field `_fd`
 * (`_this._fd = term.fd` in the constructor, `self._fd = term.master` in open()); its `fd`
 * getter is not in the typings. Re-check this when node-pty is upgraded.
 */
export function ptyMasterFd(pty: IPty): number | undefined {
  const fd = (pty as unknown as { _fd?: unknown })._fd;
  return typeof fd === 'number' && Number.isInteger(fd) && fd >= 0 ? fd : undefined;
}

/**
 * Who holds the PTY's terminal now.
 *
 * Returns null when nobody does: the child `master.pid` is gone (it exited; a zombie
 * counts as gone), or the terminal has no foreground process group. Throws a RangeError for
 * a pid that is not a positive integer; otherwise throws only when every source failed (or
 * the one forced with `options.via` failed), naming each failure: "can't tell" is not
 * "nobody".
 *
 * Synchronous: the addon and /proc cost microseconds; the ps fallback runs up to three
 * short `ps` processes (timeout 1 s each). With the addon and `options.previous` answering
 * for the same group, a call is one system call (tcgetpgrp); kill(pid, 0) and /proc are read
 * only when the group changed, and the leader's name when {@link LEADER_REREAD_MS} passed.
 */
export function foreground(master: PtyMaster, options: ForegroundOptions = {}): Foreground | null {
  const { pid, fd } = master;
  if (!Number.isInteger(pid) || pid < 1) {
    throw new RangeError(`foreground: pid must be a positive integer, got ${pid}`);
  }
  const useAddon = fd !== undefined && !addonDisabled() && loadedAddon().addon !== undefined;
  if (useAddon && (options.via === undefined || options.via === 'addon')) {
    const same = sameGroupViaAddon(fd, pid, options.previous);
    if (same) return same;
  }
  if (!signalable(pid)) return null;

  const sources: ForegroundVia[] = options.via !== undefined
    ? [options.via]
    : [...(useAddon ? ['addon' as const] : []), defaultFallback()];
  const failures: string[] = [];
  for (const source of sources) {
    try {
      switch (source) {
        case 'addon':
          return viaAddon(fd, pid, options.previous);
        case 'proc':
          return viaProc(pid, options.previous);
        case 'ps':
          return isZombie(pid) ? null : viaPs(pid);
      }
    } catch (e) {
      if (options.via !== undefined) throw e;
      failures.push(`${source}: ${errorText(e)}`);
    }
  }
  // the addon failed (say EBADF after the PTY closed) and the fallback failed too
  throw new Error(`foreground(pid ${pid}): no source answered (${failures.join('; ')})`);
}

function defaultFallback(): 'proc' | 'ps' {
  return process.platform === 'linux' ? 'proc' : 'ps';
}

/** kill(pid, 0): ESRCH means gone; EPERM means alive but not ours. A zombie still counts. */
function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return true;
}

/**
 * Linux: true when /proc says `pid` is a zombie (state Z) or is gone (a zombie still takes
 * signals); false elsewhere, where the sources see it themselves.
 */
function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  const stat = readProc(`/proc/${pid}/stat`);
  return stat === undefined || statFields(stat)?.[0] === 'Z';
}

/**
 * The answer for the foreground group of the addon's `previous` answer when tcgetpgrp(fd) still
 * gives that group, without kill(pid, 0) or /proc: a PTY child leads its session, and a session
 * leader's exit clears its terminal's foreground group (see {@link viaAddon}), so a group
 * still in front means the child is alive. Its leader is read again as {@link stillLeader}
 * says. undefined when there is no such previous answer, the group changed or the addon
 * failed (the full path then decides).
 */
function sameGroupViaAddon(
  fd: number | undefined,
  child: number,
  previous: Foreground | null | undefined,
): Foreground | undefined {
  if (fd === undefined || !previous || previous.via !== 'addon') return undefined;
  const addon = loadedAddon().addon!;
  let pgid: number;
  try {
    pgid = addon.foregroundPgid(fd);
  } catch {
    return undefined;
  }
  if (pgid <= 0 || pgid !== previous.pgid) return undefined;
  return stillLeader(previous, pgid, 'addon', child) ??
    withLeader(pgid, leaderOrGone(() => addon.processInfo(pgid)), 'addon');
}

function viaAddon(
  fd: number | undefined,
  pid: number,
  previous?: Foreground | null,
): Foreground | null {
  if (addonDisabled()) throw new Error('the addon is disabled by AGENTWATCH_NO_ADDON=1');
  if (fd === undefined) throw new Error(`no master fd is known for pid ${pid}`);
  const { addon } = loadedAddon();
  if (addon === undefined) throw new Error(foregroundDiagnostics().summary);
  const pgid = addon.foregroundPgid(fd);
  if (pgid <= 0) return null;
  // The same group as the last answer: the child is not a zombie, as a PTY child is its
  // session's leader and a session leader's exit disassociates its controlling terminal
  // (POSIX.1 "controlling process"; Linux `disassociate_ctty` clears the terminal's group, so
  // tcgetpgrp gives 0). Else /proc tells a zombie.
  const same = stillLeader(previous, pgid, 'addon', pid);
  if (same) return same;
  if (isZombie(pid)) return null;
  return withLeader(pgid, leaderOrGone(() => addon.processInfo(pgid)), 'addon');
}

/**
 * proc(5): /proc/PID/stat is "pid (comm) state ppid pgrp session tty_nr tpgid ...". comm may
 * hold spaces and parentheses, so fields are counted from the LAST ')': field 3 (state) is
 * the first after it, field 8 (tpgid) the sixth.
 */
function viaProc(pid: number, previous?: Foreground | null): Foreground | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === undefined) {
    if (!existsSync('/proc/self/stat')) throw new Error('/proc is not mounted');
    return null;
  }
  const fields = statFields(stat);
  if (fields?.[0] === 'Z') return null; // a zombie still takes signals
  const tpgid = fields === undefined ? NaN : Number(fields[5]);
  if (!Number.isInteger(tpgid)) throw new Error(`cannot parse /proc/${pid}/stat: ${stat}`);
  if (tpgid <= 0) return null; // -1: no controlling terminal
  return stillLeader(previous, tpgid, 'proc', pid) ??
    withLeader(tpgid, leaderOrGone(() => procInfo(tpgid)), 'proc');
}

/** Fields 3.. of a /proc/PID/stat line (index 0 is field 3, state), or undefined. */
function statFields(stat: string): string[] | undefined {
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  return stat.slice(close + 1).trim().split(/\s+/);
}

/** Linux: the same facts the addon reads, from JS: /proc/PID/comm and /proc/PID/cmdline. */
function procInfo(pid: number): ProcessInfo | null {
  const comm = readProc(`/proc/${pid}/comm`);
  if (comm === undefined) return null;
  const cmdline = readProc(`/proc/${pid}/cmdline`) ?? '';
  const argv = cmdline === '' ? [] : cmdline.replace(/\0$/, '').split('\0');
  return { pid, name: comm.replace(/\n$/, ''), argv };
}

/** ps(1): the controlling terminal's foreground group, then its leader's comm and args. */
function viaPs(pid: number): Foreground | null {
  const tpgidText = ps(['-o', 'tpgid=', '-p', String(pid)]);
  if (tpgidText === undefined) return null; // ps exits 1 when no process matched
  const tpgid = Number(tpgidText.trim());
  if (!Number.isInteger(tpgid)) throw new Error(`cannot parse ps tpgid output: ${tpgidText}`);
  if (tpgid <= 0) return null;
  return withLeader(
    tpgid,
    leaderOrGone(() => {
      const comm = ps(['-o', 'comm=', '-p', String(tpgid)]);
      const args = ps(['-o', 'args=', '-p', String(tpgid)]);
      if (comm === undefined) return null;
      const argv = (args ?? '').trim().split(/\s+/).filter((a) => a !== '');
      return { pid: tpgid, name: comm.trim(), argv };
    }),
    'ps',
  );
}

/** Runs ps; its stdout, or undefined when it exits with status 1 (no such process). */
function ps(args: string[]): string | undefined {
  try {
    return execFileSync('ps', args, {
      encoding: 'utf8',
      timeout: PS_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (e) {
    if ((e as { status?: unknown }).status === 1) return undefined;
    throw e;
  }
}

/** The leader's info; null when it vanished (or its info cannot be read at all). */
function leaderOrGone(read: () => ProcessInfo | null): ProcessInfo | null {
  try {
    return read();
  } catch {
    return null;
  }
}

function withLeader(pgid: number, info: ProcessInfo | null, via: ForegroundVia): Foreground {
  const argv = info === null ? [] : [...info.argv];
  const fg = {
    pgid,
    pid: pgid,
    name: info === null ? '' : executableName(info.name, argv),
    argv,
    via,
  };
  leaderReadAt.set(fg, Date.now());
  return fg;
}

/** Linux caps comm at 15 bytes (TASK_COMM_LEN 16). */
const COMM_MAX = 15;

/**
 * The executable's name from the kernel's name for it and argv: the basename, without a
 * `.exe` suffix. The kernel's name wins (argv[0] can be anything: '-bash' for a login
 * shell, `exec -a`), except that a 15-byte Linux comm which begins argv[0]'s basename was
 * cut, and then argv[0]'s basename is the full name.
 */
export function executableName(kernelName: string, argv: readonly string[]): string {
  let name = path.basename(kernelName);
  const arg0 = argv[0] === undefined ? '' : path.basename(argv[0]);
  if (name === '') name = arg0;
  else if (Buffer.byteLength(name) === COMM_MAX && arg0.startsWith(name)) name = arg0;
  return name.replace(/\.exe$/i, '');
}

/** A /proc file's text, or undefined when it (or its process) does not exist. */
function readProc(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return undefined;
    throw e;
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
