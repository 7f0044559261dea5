/**
 * The per-user registry of every agentwatch host's sessions: each process that hosts sessions
 * (`run`, the background host, `watch`, `demo`) writes its sessions' agent pids and PTY slave
 * paths to `/tmp/agentwatch-registry-UID/PID.json`, so `answer` refuses the agents and PTYs of
 * every host, whatever socket folder (`AGENTWATCH_DIR`) each one uses. The folder is a literal
 * path (not `os.tmpdir()`, not any environment variable): a tool cannot point a host of its
 * own somewhere `answer` does not look. The folder must be ours, mode 0700, not a symlink;
 * files are written atomically (temp + rename) and removed when their process ends (kept
 * while a process it adopted runs: {@link registerAdopted}); a file whose process is dead (or
 * whose pid now names a process started at another time) is stale: ignored but for its
 * adopted processes, and removed by the next reader once none of those runs.
 */
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';

/** The registry folder of this user: a literal path under /tmp, never from the environment. */
export const REGISTRY_DIR = `/tmp/agentwatch-registry-${process.getuid?.() ?? 'user'}`;

/** Sessions as the registry holds them: agent pids and PTY slave paths (`/dev/pts/5`). */
export interface RegisteredSessions {
  agents: number[];
  ttys: string[];
}

/**
 * What {@link registeredSessions} reads: every host's sessions, and the pids of the notify
 * commands the hosts started (each leads its own session and process group, so these pids
 * are also the session ids its descendants carry: {@link registerNotifier}); the live hosts
 * that adopt orphans (`hosts`: prctl PR_SET_CHILD_SUBREAPER, adoption.ts) and the orphans
 * they adopted (`adopted`, also once their host ended: {@link registerAdopted}).
 */
export interface Registered extends RegisteredSessions {
  notifiers: number[];
  hosts: number[];
  adopted: number[];
}

/** The most notify commands one process keeps registered (the latest). */
const MAX_NOTIFIERS = 256;

/** Notify commands this process started: pid and start time ({@link startOf}). */
const notifiers: { pid: number; start: string }[] = [];

/**
 * Registers `pid`, a notify command this process just started in a session of its own
 * (`spawn` with `detached`), and rewrites this process's file: `answer` and `attach` then
 * refuse it and every process of its session or process group ({@link Registered}), in every
 * host, for as long as this process lives. A notify command runs what a session's
 * `--notify-cmd` says, and a session can be started by an agent's tool (tester9: a tool
 * started `run --detach --notify-cmd '... agentwatch answer --yes ...'` and approved its
 * agent's next prompt). Keeps the latest {@link MAX_NOTIFIERS}. Never throws.
 */
export function registerNotifier(pid: number): void {
  const start = startOf(pid);
  if (start === undefined) return; // gone already; its children carry its session id still
  notifiers.push({ pid, start });
  if (notifiers.length > MAX_NOTIFIERS) notifiers.splice(0, notifiers.length - MAX_NOTIFIERS);
  write();
}

/** The most adopted processes one process keeps registered (the latest). */
const MAX_ADOPTED = 1024;

/** Whether this process adopts orphans ({@link markSubreaper}). */
let subreaper = false;

/** The orphans this process adopted: pid and start time ({@link startOf}). */
let adopted: { pid: number; start: string }[] = [];

/**
 * Says that this process is a subreaper (adoption.ts): every process it adopted or started
 * descends from it, so `answer` and `attach` refuse every process whose parent chain leads
 * here while it lives. Rewrites this process's file. Never throws.
 */
export function markSubreaper(): void {
  subreaper = true;
  write();
}

/**
 * Registers `pids`, the processes this subreaper adopted (orphans of its sessions' processes
 * and of its notify commands, re-parented to it) that run now, replacing the last list, and
 * rewrites this process's file. They and their descendants (by parent chain, and by session
 * or process group where one of them leads it) stay refused after this process ended: its
 * file is then kept while one of them runs (tester10: Codex CLI 0.171.0's app-server daemon,
 * left running when its session ended, ran the tools of the next Codex session, one of which
 * approved another session's prompt). Keeps the latest {@link MAX_ADOPTED}. Never throws.
 */
export function registerAdopted(pids: readonly number[]): void {
  const next: { pid: number; start: string }[] = [];
  for (const pid of pids.slice(-MAX_ADOPTED)) {
    const start = startOf(pid);
    if (start !== undefined) next.push({ pid, start });
  }
  adopted = next;
  write();
}

/** The agent pids of every host of this process (adoption.ts leaves them to node-pty). */
export function ownAgents(): Set<number> {
  const out = new Set<number>();
  for (const s of hosts.values()) for (const p of s.agents) out.add(p);
  return out;
}

/** Largest registry file read, bytes (a host with thousands of sessions stays far below). */
const MAX_FILE = 1 << 20;

/**
 * Checks the registry folder: a real directory (not a symlink) owned by us with no group or
 * other bits. Changes nothing.
 * @returns false when it does not exist.
 * @throws UserError naming the folder and what is wrong.
 */
export function checkRegistryDir(dir = REGISTRY_DIR): boolean {
  let st;
  try {
    st = lstatSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    throw new UserError(`${dir}: cannot read agentwatch's host registry (${code})`);
  }
  const uid = process.getuid?.();
  const why = st.isSymbolicLink()
    ? 'is a symbolic link'
    : !st.isDirectory()
    ? 'is not a directory'
    : uid !== undefined && st.uid !== uid
    ? `belongs to uid ${st.uid}, not to us (${uid})`
    : (st.mode & 0o077) !== 0
    ? `has mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}, open to other users`
    : null;
  if (why) {
    throw new UserError(
      `${dir}: agentwatch's host registry ${why}; refusing to trust it (remove it if it is ` +
        'yours; if another user made it, ask them or an administrator to remove it)',
    );
  }
  return true;
}

/** What each host of this process has registered. */
const hosts = new Map<object, RegisteredSessions>();
let exitHook = false;

function fileOf(pid = process.pid): string {
  return join(REGISTRY_DIR, `${pid}.json`);
}

/**
 * At exit: removes this process's file (no error when it is gone or the folder is not ours),
 * unless it lists adopted processes, which readers go on refusing while one runs.
 */
function removeOwn(): void {
  if (adopted.length) return;
  try {
    unlinkSync(fileOf());
  } catch {
    // already gone
  }
}

/**
 * Registers (or, with empty lists, keeps registering) `sessions` for `host`, one of this
 * process's hosts, and rewrites this process's file with every host's sessions. Never
 * throws: a folder that fails {@link checkRegistryDir} is left alone (and `answer` refuses
 * while it does).
 */
export function registerSessions(host: object, sessions: RegisteredSessions): void {
  hosts.set(host, sessions);
  write();
}

/** Forgets `host`; removes this process's file when no host of it is left. Never throws. */
export function unregisterHost(host: object): void {
  hosts.delete(host);
  if (hosts.size || adopted.length) write();
  else removeOwn();
}

function write(): void {
  const all: RegisteredSessions & {
    notifiers: typeof notifiers;
    subreaper: boolean;
    adopted: typeof adopted;
  } = {
    agents: [],
    ttys: [],
    notifiers,
    subreaper,
    adopted,
  };
  for (const s of hosts.values()) {
    all.agents.push(...s.agents);
    all.ttys.push(...s.ttys);
  }
  try {
    if (!checkRegistryDir()) {
      try {
        mkdirSync(REGISTRY_DIR, { mode: 0o700 });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      checkRegistryDir();
    }
    const tmp = join(REGISTRY_DIR, `.${process.pid}.tmp`);
    const start = startOf(process.pid) ?? '';
    writeFileSync(tmp, JSON.stringify({ pid: process.pid, start, ...all }), { mode: 0o600 });
    renameSync(tmp, fileOf());
    if (!exitHook) {
      exitHook = true;
      process.once('exit', removeOwn);
    }
  } catch {
    // not registered: answer refuses while the folder fails its check
  }
}

/**
 * When process `pid` started (Linux: /proc/PID/stat's starttime, field 22, clock ticks since
 * boot, proc(5)), so a file whose pid was reused by another process is known stale; '' where
 * it cannot be read (macOS: liveness alone), undefined when the process does not exist.
 */
function startOf(pid: number): string | undefined {
  if (process.platform !== 'linux') {
    try {
      process.kill(pid, 0);
      return '';
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM' ? '' : undefined;
    }
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return undefined;
  }
}

/**
 * A registered process (`{pid, start}`) whose pid may be refused: it runs and started when
 * registered, or no process has its pid now (it ended, and its descendants may carry its pid
 * as their session or group id: Linux gives no new process a pid still in use as one); a
 * live process of that pid started at another time got the number anew and is not it.
 */
function stillRefused(n: unknown): number | undefined {
  const { pid, start: began } = (n ?? {}) as { pid?: unknown; start?: unknown };
  if (!Number.isInteger(pid) || (pid as number) <= 1) return undefined;
  const now = startOf(pid as number);
  if (now !== undefined && now !== '' && now !== began) return undefined;
  return pid as number;
}

/** True when the registered `{pid, start}` runs now (same start). */
function runsNow(n: unknown): boolean {
  const { pid, start: began } = (n ?? {}) as { pid?: unknown; start?: unknown };
  if (!Number.isInteger(pid) || (pid as number) <= 1) return false;
  const now = startOf(pid as number);
  return now !== undefined && (now === '' || now === began);
}

/**
 * Every live host's registered sessions, notify commands and adopted processes, and the
 * adopted processes of hosts that ended while one of those still runs: files `PID.json` of
 * the registry folder that are regular files owned by us, whose process is alive and started
 * when the file says; others (foreign, malformed, over {@link MAX_FILE} bytes) are ignored,
 * stale ones (their process ended, and none of their adopted runs) also removed. An absent
 * folder is no sessions.
 * @throws UserError when the folder fails {@link checkRegistryDir} or cannot be listed.
 */
export function registeredSessions(dir = REGISTRY_DIR): Registered {
  const out: Registered = { agents: [], ttys: [], notifiers: [], hosts: [], adopted: [] };
  if (!checkRegistryDir(dir)) return out;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    throw new UserError(
      `${dir}: cannot list agentwatch's host registry (${(e as NodeJS.ErrnoException).code})`,
    );
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const m = /^(\d+)\.json$/.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (!st.isFile() || (uid !== undefined && st.uid !== uid) || st.size > MAX_FILE) continue;
      const data = JSON.parse(readFileSync(path, 'utf8')) as
        & Partial<RegisteredSessions>
        & { start?: unknown; subreaper?: unknown; adopted?: unknown; notifiers?: unknown };
      const listedAdopted = Array.isArray(data.adopted) ? data.adopted : [];
      const start = startOf(Number(m[1]));
      if (start === undefined || (start && data.start !== start)) {
        // its host ended (without removing it: SIGKILL; or leaving its adopted behind): its
        // adopted processes stay refused while one of them runs; else stale, removed
        if (listedAdopted.some(runsNow)) {
          for (const n of listedAdopted) {
            const pid = stillRefused(n);
            if (pid !== undefined) out.adopted.push(pid);
          }
        } else unlinkSync(path);
        continue;
      }
      for (const p of Array.isArray(data.agents) ? data.agents : []) {
        if (Number.isInteger(p) && p > 0) out.agents.push(p);
      }
      for (const t of Array.isArray(data.ttys) ? data.ttys : []) {
        if (typeof t === 'string' && t.startsWith('/dev/')) out.ttys.push(t);
      }
      if (data.subreaper === true) out.hosts.push(Number(m[1]));
      // A notify command that ended leaves its session id to its descendants (see stillRefused)
      for (const n of Array.isArray(data.notifiers) ? data.notifiers : []) {
        const pid = stillRefused(n);
        if (pid !== undefined) out.notifiers.push(pid);
      }
      for (const n of listedAdopted) {
        const pid = stillRefused(n);
        if (pid !== undefined) out.adopted.push(pid);
      }
    } catch {
      // removed meanwhile, or malformed: ignored
    }
  }
  return out;
}
