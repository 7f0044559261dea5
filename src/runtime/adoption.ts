/**
 * The orphans a host adopts. A process that hosts sessions (`run`, the background host, the
 * board, `acp`) makes itself a child subreaper (Linux prctl(2) PR_SET_CHILD_SUBREAPER, 3.4+):
 * a process its sessions' agents or its notify commands started, whose parent then exited
 * (`nohup ... &`, a double fork, `setsid`, a daemon such as Codex CLI 0.171.0's
 * `codex app-server`), is re-parented to the host instead of to init, so its parent chain
 * still leads to an agentwatch host and `answer` refuses it (peer.ts). Before, such a process
 * opened a PTY of its own (`script`) and, to the kernel, looked like a person's terminal
 * (tester10: a notify command that double-forked approved its own session's prompt 4/4; a
 * Claude Code tool backgrounded with `nohup` approved another session's 4/4; a Codex tool run
 * by the app-server its ended first session left behind approved another session's 2/2).
 *
 * Every {@link SCAN_MS}, and once more as the host exits, the host lists its children (/proc/PID/task/PID/children, proc(5):
 * Linux puts adopted orphans under the subreaper's first live thread, its main thread),
 * registers those that are not its sessions' agents as adopted (host-registry.ts
 * `registerAdopted`: refused also after the host ended, while they run) and reaps the ones
 * that stayed zombies for a whole scan: node-pty and libuv reap the children they started at
 * once (their SIGCHLD), so a zombie left that long is an orphan nobody else waits for.
 * Elsewhere than Linux, or with an addon built before `childSubreaper`, nothing is done.
 */
import { readFileSync } from 'node:fs';
import { nativeAddon } from './foreground.ts';
import { markSubreaper, ownAgents, registerAdopted } from './host-registry.ts';

/** How often the children are listed, ms. */
export const SCAN_MS = 1000;

/** The most children listed in one scan (bounded memory; a host's are far fewer). */
const MAX_CHILDREN = 65_536;

/** This process's children (pids), from proc(5); [] when they cannot be read. */
function children(): number[] {
  try {
    const text = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'latin1');
    return text.split(' ').slice(0, MAX_CHILDREN).map(Number).filter((n) => n > 1);
  } catch {
    return [];
  }
}

/** Whether `pid` is a zombie (/proc/PID/stat's state, field 3: `Z`), false when unreadable. */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat[stat.lastIndexOf(')') + 2] === 'Z';
  } catch {
    return false;
  }
}

let started = false;

/**
 * Makes this process a child subreaper and starts watching its children (an unref'd timer:
 * it never keeps the process alive), once per process; later calls do nothing.
 * @returns true when this process adopts orphans now; false where it cannot (not Linux, or
 *   the native addon is missing or older).
 */
export function adoptOrphans(): boolean {
  if (started) return true;
  const addon = nativeAddon();
  if (process.platform !== 'linux' || !addon?.childSubreaper || !addon.reapChild) return false;
  if (!addon.childSubreaper()) return false;
  started = true;
  const reap = addon.reapChild.bind(addon);
  /** Children seen as zombies at the last scan. */
  let zombies = new Set<number>();
  let registered = '';
  const scan = () => {
    const agents = ownAgents();
    const adopted: number[] = [];
    const nextZombies = new Set<number>();
    for (const pid of children()) {
      if (agents.has(pid)) continue;
      if (zombie(pid)) {
        if (!zombies.has(pid) || !reap(pid)) nextZombies.add(pid);
        continue;
      }
      adopted.push(pid);
    }
    zombies = nextZombies;
    const key = adopted.join(',');
    if (key !== registered) {
      registered = key;
      registerAdopted(adopted);
    }
  };
  // a last look as this process ends: what its last session left running a moment ago (the
  // agent that started it ended, so did the session and this process) is registered still;
  // before markSubreaper, whose first write adds the registry's own exit hook after this one
  process.once('exit', scan);
  markSubreaper();
  setInterval(scan, SCAN_MS).unref();
  return true;
}
