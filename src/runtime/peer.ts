/**
 * Who is on the other end of a control connection, from the kernel rather than from anything
 * the peer says: its uid and pid as recorded when it connected (`SO_PEERCRED` on Linux,
 * `getpeereid` + `LOCAL_PEERPID` on macOS, through the native addon, see
 * native/foreground.c), and the chain of its parent processes with their process groups,
 * sessions and controlling terminals (`/proc/PID/stat` on Linux, `ps` on macOS). An
 * environment variable is never evidence: a child can clear it.
 *
 * Without the addon the peer is unknown: the socket folder (owner us, mode 0700) still keeps
 * other users out, but `answer` is refused (fail closed), since no process can be told apart
 * from an agent's tool.
 */
import { readFileSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import type { Socket } from 'node:net';
import { nativeAddon } from './foreground.ts';

/** A peer as the kernel recorded it when it connected. */
export interface Peer {
  /** Its pid (0 when the kernel gives none, e.g. a peer in another pid namespace). */
  pid: number;
  /** Its effective uid. */
  uid: number;
}

/**
 * The file descriptor of a connected node `net.Socket`: `socket._handle.fd` on Unix (libuv's
 * pipe handle exposes it; undocumented but stable since Node 0.x, and what node-pty and
 * others read). undefined when the handle has no fd (closed, or not Unix).
 */
export function socketFd(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * The peer of `socket` from the kernel, or null when it cannot be known (no native addon,
 * no fd, or the call failed). Never throws.
 */
export function peerOf(socket: Socket): Peer | null {
  const addon = nativeAddon();
  const fd = socketFd(socket);
  if (!addon || fd === undefined) return null;
  try {
    const c = addon.peerCredentials(fd);
    return { pid: c.pid, uid: c.uid };
  } catch {
    return null;
  }
}

/**
 * What the kernel says of one process: its parent, process group, session and controlling
 * terminal. `tty` is null when it has no controlling terminal, else a key that
 * {@link ttyKey} gives for the same device.
 */
export interface ProcessFacts {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** Session id (-1 where it cannot be read: macOS). */
  sid: number;
  tty: string | null;
}

/**
 * `major:minor` of a Linux device number as the kernel encodes it in `/proc/PID/stat`'s
 * tty_nr and as glibc's `makedev` encodes `st_rdev` (both: minor bits 0-7 and 20-31, major
 * bits 8-19; major and minor of a PTY fit there).
 */
function devKey(dev: number): string {
  return `${(dev >>> 8) & 0xfff}:${(dev & 0xff) | ((dev >>> 12) & 0xfff00)}`;
}

/**
 * The kernel's facts about `pid`, or null when the process does not exist or cannot be read.
 * Linux: /proc/PID/stat (proc(5): after comm, which is in parentheses and may hold spaces and
 * ')', come state, ppid, pgrp, session, tty_nr; tty_nr 0 is no controlling terminal).
 * Elsewhere (macOS): `ps -o ppid=,pgid=,tty= -p PID` (tty `??` is none).
 */
export function processFacts(pid: number): ProcessFacts | null {
  if (process.platform === 'linux') {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return null;
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    const [ppid, pgid, sid, ttyNr] = [f[1], f[2], f[3], f[4]];
    if (![ppid, pgid, sid, ttyNr].every(Number.isInteger)) return null;
    return { pid, ppid, pgid, sid, tty: ttyNr === 0 ? null : devKey(ttyNr) };
  }
  try {
    const out = execFileSync('ps', ['-o', 'ppid=,pgid=,tty=', '-p', String(pid)], {
      encoding: 'utf8',
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim().split(/\s+/);
    if (out.length !== 3) return null;
    const [ppid, pgid] = [Number(out[0]), Number(out[1])];
    if (!Number.isInteger(ppid) || !Number.isInteger(pgid)) return null;
    const tty = out[2] === '??' || out[2] === '-' ? null : `/dev/${out[2]}`;
    return { pid, ppid, pgid, sid: -1, tty };
  } catch {
    return null;
  }
}

/**
 * The key {@link processFacts} gives as `tty` for the terminal device at `path` (a PTY's
 * slave, `/dev/pts/5`, macOS `/dev/ttys003`), or null when it is not a character device or
 * cannot be read. Linux: its `st_rdev` as `major:minor`; elsewhere the path itself.
 */
export function ttyKey(path: string): string | null {
  if (process.platform !== 'linux') return path;
  try {
    const st = statSync(path);
    return st.isCharacterDevice() ? devKey(st.rdev) : null;
  } catch {
    return null;
  }
}

/** The parent pid of `pid`, or null when the process does not exist or cannot be read. */
export function parentPid(pid: number): number | null {
  return processFacts(pid)?.ppid ?? null;
}

/** Most parents followed from one process (a chain is far shorter; a loop cannot run on). */
const MAX_DEPTH = 1024;

/**
 * The facts of `pid` and of its ancestors, nearest first, up to pid 1 (or 0); null when a
 * link cannot be read (the process exited, or another pid namespace), so a caller can fail
 * closed.
 */
export function lineage(pid: number): ProcessFacts[] | null {
  const chain: ProcessFacts[] = [];
  let p = pid;
  while (p > 1 && chain.length < MAX_DEPTH) {
    const facts = processFacts(p);
    if (!facts) return null;
    chain.push(facts);
    p = facts.ppid;
  }
  return chain;
}

/** `pid` and its ancestors' pids, nearest first ({@link lineage}); null when unreadable. */
export function ancestry(pid: number): number[] | null {
  return lineage(pid)?.map((f) => f.pid) ?? null;
}

/** What {@link answerRefusal} knows of the sessions on this machine. */
export interface SessionFacts {
  /** The pids of the sessions' agents (a PTY session's is its session leader). */
  agents: ReadonlySet<number>;
  /** The slave paths of the sessions' PTYs (`/dev/pts/5`). */
  ttys?: Iterable<string>;
  /**
   * The pids of the notify commands hosts started, each the leader of its own session and
   * process group (host-registry.ts `registerNotifier`).
   */
  notifiers?: ReadonlySet<number>;
  /** The pids of the hosts that adopt orphans (adoption.ts), while they run. */
  hosts?: ReadonlySet<number>;
  /**
   * The pids of the processes those hosts adopted (host-registry.ts `registerAdopted`), also
   * once their host ended.
   */
  adopted?: ReadonlySet<number>;
}

const ELSEWHERE = 'answer from your own terminal outside any session, or on the board';

/**
 * Why `peer` may not answer a prompt, or null when it may. Every check is a kernel fact,
 * never an environment variable, and an unknown fact is a refusal (fail closed):
 * 1. the peer is known and is us (same uid);
 * 2. neither it nor any ancestor is one of `agents` (ancestry);
 * 3. it has a controlling terminal: a person's `answer` runs in one (the board answers from
 *    its own process, which has one); a tool that detached itself (setsid, daemon) has none;
 * 4. neither it nor any ancestor has a session's PTY as its controlling terminal, or is in
 *    the process group or session of an agent (a PTY agent leads its session), so a process
 *    that double-forked out of the parent chain still is seen by its terminal;
 * 5. neither it nor any ancestor is, or is in the session or process group of, a notify
 *    command a host started (`notifiers`): a session's `--notify-cmd` may have been written
 *    by an agent's tool that started the session;
 * 6. no ancestor is a host that adopts orphans (`hosts`; the peer may be one: a board
 *    answers from its own process), and neither it nor any ancestor is, or is in the
 *    session or process group of, a process such a host adopted (`adopted`): what a session's
 *    processes or a notify command left behind (`nohup`, a double fork, `setsid`, a daemon)
 *    is re-parented to its host, not to init (adoption.ts), and stays refused after the host
 *    ended.
 * What this cannot see: a process that left every host (a host that does not adopt: not
 * Linux, an old addon; one that ended before its adoption was registered; one started by an
 * adopted process after its host ended, when its parent chain leads to init), or a daemon already running outside every session (tmux server, ssh, systemd
 * --user) that runs `answer` for it: to the kernel those look like a person's terminal.
 */
export function answerRefusal(
  peer: Peer | null,
  facts: SessionFacts,
): string | null {
  return peerRefusal(peer, facts, 'answer');
}

/**
 * Why `peer` may not attach to a session (its keys go to the agent as typed, a dialog's
 * answer among them), or null when it may: every check of {@link answerRefusal}, so a board
 * that an agent's tool runs inside a session (`run --detach -- agentwatch watch`, then `send`
 * to it: its Enter attached to a blocked session and `1` approved the dialog, tester7), or a
 * client a tool detached from its terminal, is refused. An unknown peer (no native addon to
 * read the peer credentials: the cross-built executables) may attach, as before: there the
 * board's Enter is the only way into a detached session.
 */
export function attachRefusal(peer: Peer | null, facts: SessionFacts): string | null {
  return peer ? peerRefusal(peer, facts, 'attach') : null;
}

/**
 * The first pid of `listed` that a process of `chain` (nearest first) is, or leads as its
 * session or process group (a listed process that ended leaves its pid to its descendants as
 * their session or group id); undefined when none.
 */
function listedRoot(
  chain: readonly ProcessFacts[],
  listed: ReadonlySet<number>,
): number | undefined {
  for (const p of chain) {
    for (const id of [p.pid, p.sid, p.pgid]) if (listed.has(id)) return id;
  }
  return undefined;
}

/** {@link answerRefusal} (`answer`) or {@link attachRefusal} (`attach`). */
function peerRefusal(
  peer: Peer | null,
  { agents, ttys = [], notifiers = new Set(), hosts = new Set(), adopted = new Set() }:
    SessionFacts,
  op: 'answer' | 'attach',
): string | null {
  const never = op === 'answer'
    ? `an agent's tools never approve a prompt: ${ELSEWHERE}`
    : "an agent's tools never type into a session as a person: attach from your own terminal " +
      'outside any session';
  if (!peer) {
    return 'cannot tell which process asked (the native addon that reads the peer credentials ' +
      'is missing; rebuild with a C compiler: npm run install); answer in the pane itself';
  }
  if (peer.uid !== process.getuid?.()) return `the request came from uid ${peer.uid}, not from us`;
  if (peer.pid <= 0) return 'the kernel did not say which process asked';
  const chain = lineage(peer.pid);
  if (!chain || !chain.length) return `cannot read the parents of process ${peer.pid}`;
  const agent = chain.find((p) => agents.has(p.pid));
  if (agent !== undefined) {
    return `process ${peer.pid} runs inside an agentwatch session (its agent is process ${agent.pid}); ` +
      never;
  }
  // before the terminal checks: a notify command can give itself a terminal (`script`)
  const leader = listedRoot(chain, notifiers);
  if (leader !== undefined) {
    return `process ${peer.pid} was started by an agentwatch notify command (process ${leader}), ` +
      `which runs what a session's --notify-cmd says; ${never}`;
  }
  // not the peer itself: a board (a host) answers from its own process
  const host = chain.slice(1).find((p) => hosts.has(p.pid));
  if (host !== undefined) {
    return `process ${peer.pid} descends from an agentwatch host (process ${host.pid}), which ` +
      `adopts what its sessions' processes and notify commands leave running; ${never}`;
  }
  const root = listedRoot(chain, adopted);
  if (root !== undefined) {
    return `process ${peer.pid} descends from process ${root}, which an agentwatch host ` +
      `adopted when the session process or notify command that started it left it running; ` +
      never;
  }
  if (chain[0].tty === null) {
    return `process ${peer.pid} has no controlling terminal (as a process detached from a ` +
      `session's terminal has none); ${
        op === 'answer' ? `a person answers from a terminal: ${ELSEWHERE}` : never
      }`;
  }
  const sessionTtys = new Map<string, string>();
  for (const path of ttys) {
    const key = ttyKey(path);
    if (key) sessionTtys.set(key, path);
  }
  for (const p of chain) {
    const who = p.pid === peer.pid
      ? `process ${p.pid}`
      : `process ${p.pid}, a parent of ${peer.pid},`;
    const tty = p.tty === null ? undefined : sessionTtys.get(p.tty);
    if (tty !== undefined) {
      return `${who} has the terminal of an agentwatch session (${tty}) as its controlling ` +
        `terminal; ${never}`;
    }
    const leader = agents.has(p.sid) ? p.sid : agents.has(p.pgid) ? p.pgid : undefined;
    if (leader !== undefined) {
      return `${who} is in the process group or session of an agentwatch session's agent ` +
        `(process ${leader}); ${never}`;
    }
  }
  return null;
}
