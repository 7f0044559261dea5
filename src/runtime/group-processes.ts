/**
 * The processes of one process group, read from Linux's /proc (proc(5): /proc/PID/stat fields
 * 4 `ppid`, 5 `pgrp`, 6 `session` and 22 `starttime`, /proc/PID/cmdline), and whether a
 * process group has any process left (kill(2) with signal 0 on `-pgid`, any POSIX system; its
 * zombies left out where /proc tells).
 *
 * For the typing guard: an agent that restarts itself after reading an answer's key (Gemini
 * CLI 0.61.0 after its folder-trust dialog: its launcher `node .../bin/gemini` runs the CLI as
 * a child process, `node --max-old-space-size=N .../bin/gemini`, in its own process group, and
 * runs it again with the same arguments when the child exits with code 199; see
 * {@link GroupWatch}). For `kill`: a session reads exited once its process groups are empty
 * ({@link groupAlive}, session.ts `end`). Elsewhere than Linux the processes cannot be read this
 * way: {@link groupProcesses} returns null and the guard does without.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** One process of a group as /proc tells it. */
export interface GroupProcess {
  pid: number;
  ppid: number;
  /** Its session's id (/proc/PID/stat field 6): the PTY child's pid for what runs in its PTY. */
  sid: number;
  /** Its arguments, argv[0] first ([] for a zombie or when unreadable). */
  argv: string[];
  /** When it started, in clock ticks since boot (/proc/PID/stat field 22). */
  start: number;
}

/**
 * Linux's clock ticks per second for /proc/PID/stat times (USER_HZ: 100 on every Linux
 * architecture node runs on; sysconf(_SC_CLK_TCK) is not reachable from node).
 */
const TICKS_PER_SECOND = 100;

/** Fields 3 onwards of /proc/PID/stat (after the `(comm)`), or null when it is gone. */
function statFields(pid: number): string[] | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // comm may hold spaces and parentheses: the fields start after the last ')'
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function argvOf(pid: number): string[] {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw ? raw.replace(/\0$/, '').split('\0') : [];
  } catch {
    return [];
  }
}

/**
 * The living (not zombie) processes of process group `pgid`, in pid order; null where /proc
 * cannot be read (not Linux). Reads /proc/PID/stat of every process of the machine that we
 * may read (a few ms for a few hundred processes): call it now and then, not in a loop.
 */
export function groupProcesses(pgid: number): GroupProcess[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const found: GroupProcess[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const f = statFields(pid);
    // f[0] state, f[1] ppid, f[2] pgrp, f[3] session, f[19] starttime (fields 3-6 and 22)
    if (!f || Number(f[2]) !== pgid || f[0] === 'Z' || f[0] === 'X') continue;
    const sid = Number(f[3]);
    found.push({ pid, ppid: Number(f[1]), sid, argv: argvOf(pid), start: Number(f[19]) });
  }
  return found.sort((a, b) => a.pid - b.pid);
}

/** True while `p` runs: its pid names the same process (same start) and it is no zombie. */
export function stillRuns(p: GroupProcess): boolean {
  const f = statFields(p.pid);
  return !!f && Number(f[19]) === p.start && f[0] !== 'Z' && f[0] !== 'X';
}

/** When the process `p` started, ms since the epoch (from /proc/uptime); null when unknown. */
export function startedAt(p: GroupProcess, now = Date.now()): number | null {
  let uptime: number;
  try {
    uptime = Number(readFileSync('/proc/uptime', 'latin1').split(' ')[0]);
  } catch {
    return null;
  }
  if (!Number.isFinite(uptime)) return null;
  return now - uptime * 1000 + (p.start / TICKS_PER_SECOND) * 1000;
}

/**
 * True while process group `pgid` has a process that runs: kill(2) with signal 0 to `-pgid`
 * succeeds (or fails with EPERM: a process of another user joined it) and, where /proc tells,
 * one of its processes is no zombie (a zombie whose parent does not reap it would otherwise
 * keep the group alive for ever). A group's id is never given to a new process while the
 * group has one (Linux keeps the pid in use), so a group found empty stays so.
 */
export function groupAlive(pgid: number): boolean {
  if (!(pgid > 0)) return false;
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const procs = groupProcesses(pgid);
  return procs === null || procs.length > 0;
}

/**
 * True when process group `pgid` has a process in session `sid` (the PTY child's pid: a
 * group of its terminal), or when that cannot be read (not Linux).
 */
export function groupInSession(pgid: number, sid: number): boolean {
  const procs = groupProcesses(pgid);
  return procs === null || procs.some((p) => p.sid === sid);
}

/**
 * The processes of a pane's foreground process group that showed a dialog, watched after an
 * answer's key for the agent restarting itself: one of them ended and a process with the
 * same arguments (a new pid, started since) runs in the group in its place. The screen the
 * ended process drew stays on the terminal until the new one draws over it, so what it shows
 * is no longer anyone's dialog.
 */
export class GroupWatch {
  #lastScan = 0;

  private constructor(readonly pgid: number, readonly holders: GroupProcess[]) {}

  /**
   * The processes of group `pgid` that already ran at `since` (ms since the epoch: when the
   * dialog was first seen, so none started after it showed); null where they cannot be read
   * or there are none.
   */
  static of(pgid: number, since: number): GroupWatch | null {
    const all = groupProcesses(pgid);
    if (!all) return null;
    const now = Date.now();
    const holders = all.filter((p) => (startedAt(p, now) ?? Infinity) <= since);
    return holders.length ? new GroupWatch(pgid, holders) : null;
  }

  /** The processes that held the dialog and have ended since (or became zombies). */
  gone(): GroupProcess[] {
    return this.holders.filter((p) => !stillRuns(p));
  }

  /**
   * A process that replaced an ended holder (the same arguments, not a holder, in the group),
   * once one runs; undefined until then. Reads the group at most every `everyMs`.
   */
  restarted(everyMs = 200): GroupProcess | undefined {
    const gone = this.gone().filter((g) => g.argv.length);
    if (!gone.length) return undefined;
    const now = Date.now();
    if (now - this.#lastScan < everyMs) return undefined;
    this.#lastScan = now;
    const isHolder = (p: GroupProcess) =>
      this.holders.some((h) => h.pid === p.pid && h.start === p.start);
    return groupProcesses(this.pgid)?.find((p) =>
      !isHolder(p) &&
      gone.some((g) => p.start >= g.start && p.argv.join('\0') === g.argv.join('\0'))
    );
  }
}
