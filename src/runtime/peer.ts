/**
 * Who is on the other end of a control connection, from the kernel rather than from anything
 * the peer says: its uid and pid as recorded when it connected (`SO_PEERCRED` on Linux,
 * `getpeereid` + `LOCAL_PEERPID` on macOS, through the native addon, see
 * native/foreground.c), and the chain of its parent processes (`/proc/PID/stat` on Linux,
 * `ps -o ppid=` on macOS). An environment variable is never evidence: a child can clear it.
 *
 * Without the addon the peer is unknown: the socket folder (owner us, mode 0700) still keeps
 * other users out, but `answer` is refused (fail closed), since no process can be told apart
 * from an agent's tool.
 */
import { readFileSync } from 'node:fs';
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
 * The parent pid of `pid`, or null when the process does not exist or cannot be read.
 * Linux: field 4 of /proc/PID/stat (proc(5); comm, field 2, is in parentheses and may hold
 * spaces and ')', so the fields are read after the last ')'). Elsewhere: `ps -o ppid= -p PID`.
 */
export function parentPid(pid: number): number | null {
  if (process.platform === 'linux') {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return null;
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : null;
  }
  try {
    const out = execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], {
      encoding: 'utf8',
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const ppid = Number(out.trim());
    return out.trim() && Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

/** Most parents followed from one process (a chain is far shorter; a loop cannot run on). */
const MAX_DEPTH = 1024;

/**
 * `pid` and its ancestors, nearest first, up to pid 1 (or 0); null when a link cannot be
 * read (the process exited, or another pid namespace), so a caller can fail closed.
 */
export function ancestry(pid: number): number[] | null {
  const chain: number[] = [];
  let p = pid;
  while (p > 1 && chain.length < MAX_DEPTH) {
    chain.push(p);
    const parent = parentPid(p);
    if (parent === null) return null;
    p = parent;
  }
  return chain;
}

/**
 * Why `peer` may not answer a prompt, or null when it may: it must be known, be us (same uid)
 * and not be, or descend from, any of `agents` (the pids of the sessions' agents, each the
 * leader that node-pty started). Fails closed: an unknown peer or an unreadable ancestry is
 * a reason.
 */
export function answerRefusal(peer: Peer | null, agents: ReadonlySet<number>): string | null {
  if (!peer) {
    return 'cannot tell which process asked (the native addon that reads the peer credentials ' +
      'is missing; rebuild with a C compiler: npm run install); answer in the pane itself';
  }
  if (peer.uid !== process.getuid?.()) return `the request came from uid ${peer.uid}, not from us`;
  if (peer.pid <= 0) return 'the kernel did not say which process asked';
  const chain = ancestry(peer.pid);
  if (!chain) return `cannot read the parents of process ${peer.pid}`;
  const agent = chain.find((p) => agents.has(p));
  if (agent !== undefined) {
    return `process ${peer.pid} runs inside an agentwatch session (its agent is process ${agent}); ` +
      "an agent's tools never approve a prompt: answer from a terminal outside any session";
  }
  return null;
}
