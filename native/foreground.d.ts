/**
 * Types of build/Release/agentwatch_foreground.node, built from native/foreground.c by
 * node-gyp (binding.gyp). Loaded only by src/runtime/foreground.ts, lazily, with
 * process.dlopen.
 */

/** One process as the kernel names it. */
export interface ProcessInfo {
  readonly pid: number;
  /**
   * Linux: /proc/PID/comm (at most 15 bytes; the exec'd file's basename or a name set by
   * prctl(PR_SET_NAME)). macOS: basename of proc_pidpath(), else proc_name().
   */
  readonly name: string;
  /**
   * Linux: /proc/PID/cmdline split at NUL; macOS: sysctl KERN_PROCARGS2. [] when it cannot
   * be read (a zombie; another user's process on macOS). Cut at 256 KiB.
   */
  readonly argv: string[];
}

/** Who is on the other end of a connected Unix socket, as the kernel recorded it. */
export interface PeerCredentials {
  /** The peer's pid when it connected (0 when the kernel gives none). */
  readonly pid: number;
  /** Its effective uid and gid. */
  readonly uid: number;
  readonly gid: number;
}

export interface ForegroundAddon {
  /**
   * Linux: getsockopt(SO_PEERCRED) (unix(7)); macOS: getpeereid(3) and
   * getsockopt(SOL_LOCAL, LOCAL_PEERPID). `fd` is a connected Unix socket (for a node
   * net.Socket: `socket._handle.fd`). Throws an Error with code (ENOTSOCK, EBADF,
   * ENOTCONN), errno and syscall when the call fails.
   */
  peerCredentials(fd: number): PeerCredentials;
  /**
   * tcgetpgrp(fd) (POSIX.1) on a PTY master: the foreground process group of its terminal,
   * 0 when it has none. Throws an Error with code (e.g. 'EBADF', 'ENOTTY'), errno and
   * syscall 'tcgetpgrp' when the call fails; TypeError/RangeError for a bad fd argument.
   */
  foregroundPgid(fd: number): number;
  /**
   * The process's name and argv, or null when it does not exist. Throws an Error with
   * code/errno/syscall on any other failure; RangeError when pid < 1.
   */
  processInfo(pid: number): ProcessInfo | null;
  /**
   * How many bytes written to the PTY master `fd` the program on its slave side has not read
   * yet (FIONREAD on the slave, opened for the call: Linux TIOCGPTPEER, else
   * open(ptsname(fd)); after a poll(2) that moves bytes still in Linux's flip buffer into the
   * line discipline). In canonical mode only complete lines count. Throws an Error with
   * code, errno and syscall when a call fails. Absent from an addon built before it.
   */
  inputQueued?(fd: number): number;
  /**
   * Linux: prctl(PR_SET_CHILD_SUBREAPER, 1) (prctl(2), Linux 3.4): from now on this
   * process's orphaned descendants are re-parented to it instead of to init (their parent
   * chain then still leads here). true when set; false elsewhere or when the kernel refuses.
   * Absent from an addon built before it.
   */
  childSubreaper?(): boolean;
  /**
   * waitpid(pid, WNOHANG) (POSIX.1) on one child of this process: true when it had exited
   * and is reaped now; false when it still runs, is not our child (ECHILD) or the call
   * failed. RangeError when pid < 1. Absent from an addon built before it.
   */
  reapChild?(pid: number): boolean;
  /**
   * fcntl(fd, F_SETFD, FD_CLOEXEC) (POSIX.1): `fd` is closed in every program this process's
   * children exec (node-pty leaves its PTY masters inheritable). Throws an Error with code,
   * errno and syscall 'fcntl' when it fails. Absent from an addon built before it.
   */
  setCloexec?(fd: number): void;
}
