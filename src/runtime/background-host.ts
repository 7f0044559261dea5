/**
 * The per-user background host: one detached process (`agentwatch __host`) that hosts the
 * sessions started with `run --detach` and from the board, so that they outlive the terminal
 * and the board that started them (as tmux's server outlives its clients). It listens on its
 * own socket in the private socket folder, `host.socket` (host-protocol.ts), speaking the
 * control protocol's line format (protocol.ts; the same peer-uid check, control-server.ts)
 * with the ops of {@link HostRequest}. It ends when its last session ends, or after
 * {@link IDLE_GRACE_MS} when it never got one. A session's crash is that session's exit: the
 * host and the others go on.
 *
 * One host per socket folder, also when several clients start one at once: a host listens on
 * a socket of its own name, then, holding the claim lock ({@link CLAIM_LOCK}, a directory made
 * with mkdir(2), atomic), looks at `host.socket`: alive, it leaves (the client talks to that
 * host); a dead host's socket of ours (it refuses connections) is removed; then it hard-links
 * its socket to that name. So the name appears only once the host listens.
 *
 * Every {@link FOLDER_CHECK_MS} it looks at its socket folder: when the folder is gone or is
 * another one now (removed, and maybe made anew by a later client), its sessions cannot be
 * reached any more, and it ends them and itself as on SIGTERM, saying why in its log. When
 * only its own socket's name is gone or taken, its sessions still answer on their sockets: it
 * says so once and serves them until they end (new sessions go to the host a client starts).
 */
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  renameSync,
  rmdirSync,
  type Stats,
  unlinkSync,
} from 'node:fs';
import type { Server } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { closeControl, listenControl, socketAlive } from './control-server.ts';
import { ensureSocketDir, ownSocket, SOCKET_PATH_MAX, socketDir } from './paths.ts';
import type { SessionHost } from './host.ts';
import { createNotifier, type Notifier } from './notify.ts';
import {
  checkSpec,
  type DetachedSpec,
  HOST_ENDING_EXIT,
  type HostRequest,
  hostSocketPath,
  type Started,
} from './host-protocol.ts';
import { UserError } from '../errors.ts';
import { type EndedSession, saveEnded } from './ended-sessions.ts';

/** How long an exited session's socket stays open for the answers in flight, ms. */
const EXIT_LINGER_MS = 100;
/** How long a host that never started a session waits for one before it ends, ms. */
export const IDLE_GRACE_MS = 10_000;
/** How often the host checks that its socket folder and socket are still there, ms. */
export const FOLDER_CHECK_MS = 1000;

/**
 * Serves a {@link SessionHost} on the host socket and ends when it has nothing left to host.
 * {@link claim} first; {@link ended} resolves once the host closed.
 */
export class BackgroundHost {
  #server: Server | null = null;
  /** The host socket's device and inode once claimed, to remove only our own at the end. */
  #dev = -1;
  #ino = -1;
  #path: string;
  #ending = false;
  #startsInFlight = 0;
  #startedAny = false;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #checkTimer: ReturnType<typeof setInterval> | undefined;
  /** The socket folder claimed in, as lstat saw it then (`dev`, `ino`). */
  #dir?: { path: string; dev: number; ino: number };
  /** True once the host socket's name was found gone or taken (said once). */
  #nameLost = false;
  readonly #notifiers = new Map<string, Notifier>();
  /** Sessions that exited and are being let go ({@link #ended}): awaited before the host ends. */
  readonly #endings = new Set<Promise<void>>();
  readonly #env: NodeJS.ProcessEnv;
  readonly #idleMs: number;
  readonly #log: (line: string) => void;
  #resolveEnded!: () => void;
  /** Resolves once the host closed (its last session ended, idle, or {@link end}). */
  readonly ended: Promise<void> = new Promise((r) => (this.#resolveEnded = r));

  constructor(
    readonly host: SessionHost,
    opts: { env?: NodeJS.ProcessEnv; idleMs?: number; log?: (line: string) => void } = {},
  ) {
    this.#env = opts.env ?? process.env;
    this.#idleMs = opts.idleMs ?? IDLE_GRACE_MS;
    this.#log = opts.log ?? (() => {});
    this.#path = hostSocketPath(this.#env);
    host.notifyFailures = () => {
      const all: Partial<Record<string, string>> = {};
      for (const n of this.#notifiers.values()) Object.assign(all, n.failures());
      return all;
    };
    host.onPublish((info) => this.#notifiers.get(info.id)?.observe(info));
  }

  /**
   * Binds the host socket. Returns false when another host already serves this folder (this
   * one has then nothing to do).
   * @throws UserError when the folder fails its checks or something that is not a socket of
   *   ours holds the name.
   */
  async claim(): Promise<boolean> {
    const dir = ensureSocketDir(this.#env);
    const own = join(dir, `host-${process.pid}-${randomBytes(3).toString('hex')}.tmp`);
    if (Buffer.byteLength(own) > SOCKET_PATH_MAX) {
      throw new UserError(`${own}: socket path too long; use a shorter AGENTWATCH_DIR`);
    }
    const server = await listenControl(own, (req) => this.#handle(req as unknown as HostRequest));
    let won = false;
    try {
      won = await withClaimLock(dir, async () => {
        if (await socketAlive(this.#path)) return false; // another host serves
        if (existsSync(this.#path) || isSymlink(this.#path)) {
          if (!ownSocket(this.#path)) {
            throw new UserError(
              `${this.#path}: exists and is not a socket of ours; refusing to replace it`,
            );
          }
          unlinkSync(this.#path); // a dead host's (it refused the connection)
        }
        linkSync(own, this.#path);
        return true;
      });
    } catch (e) {
      await closeControl(server);
      throw e instanceof UserError
        ? e
        : new UserError(`${this.#path}: cannot claim (${(e as Error).message})`);
    } finally {
      try {
        unlinkSync(own); // the server goes on listening: the host socket names the same inode
      } catch {
        // closeControl removed it
      }
    }
    if (!won) {
      await closeControl(server);
      return false;
    }
    this.#server = server;
    const sock = lstatSync(this.#path);
    this.#dev = sock.dev;
    this.#ino = sock.ino;
    const st = lstatSync(dir);
    this.#dir = { path: dir, dev: st.dev, ino: st.ino };
    this.#checkTimer = setInterval(() => this.#checkFolder(), FOLDER_CHECK_MS);
    this.#checkTimer.unref();
    this.#log(`host ${process.pid} listening on ${this.#path}`);
    this.#checkIdle();
    return true;
  }

  /**
   * Checks that the socket folder claimed in is still there (the same directory) and the
   * host socket still ours; run every {@link FOLDER_CHECK_MS}. A folder gone or replaced
   * ends the host ({@link end}); a host socket gone or taken is logged once.
   */
  #checkFolder(): void {
    if (this.#ending || !this.#dir) return;
    const { path, dev, ino } = this.#dir;
    let st;
    try {
      st = lstatSync(path);
    } catch {
      // gone (or unreadable: then it cannot be used either)
    }
    if (!st || !st.isDirectory() || st.dev !== dev || st.ino !== ino) {
      void this.end(
        `its socket folder ${path} was ${st ? 'replaced' : 'removed'}: its sessions can no ` +
          'longer be reached',
      );
      return;
    }
    if (this.#nameLost) return;
    let ours = false;
    try {
      const sock = lstatSync(this.#path);
      ours = this.#isOurs(sock);
    } catch {
      // removed
    }
    if (ours) return;
    this.#nameLost = true;
    this.#log(
      `${this.#path} was removed or replaced: new sessions go to another host; serving ` +
        `${this.host.sessions.size} session(s) until they end`,
    );
  }

  /** True when `st` (an lstat) is the host socket this host claimed. */
  #isOurs(st: Stats): boolean {
    return st.isSocket() && st.dev === this.#dev && st.ino === this.#ino;
  }

  #handle(req: HostRequest): Promise<Record<string, unknown>> | Record<string, unknown> {
    if (this.#ending) {
      throw new UserError('the background host is ending; ask again', HOST_ENDING_EXIT);
    }
    switch (req.op) {
      case 'status':
        return { pid: process.pid, sessions: [...this.host.sessions.keys()] };
      case 'start':
        return this.#start(checkSpec(req as unknown as Record<string, unknown>));
      default:
        throw new UserError(`unknown op '${(req as { op: string }).op}' (host: start, status)`);
    }
  }

  async #start(spec: DetachedSpec): Promise<Record<string, unknown>> {
    clearTimeout(this.#idleTimer);
    this.#startsInFlight++;
    try {
      const { notify: settings, ...options } = spec;
      const notifier = settings &&
        createNotifier(settings, {
          focused: (sid) => this.host.focused(sid, settings.focusMs),
          onFailure: (channel, error) => this.#log(`${channel}: ${error}`),
        });
      const session = await this.host.start({
        ...options,
        // The client's environment, not this host's (the first client's): a variable the
        // person unset, or one an agent's tool had when it started the host, stays unset.
        fullEnv: spec.env !== undefined,
        headless: true,
      });
      this.#startedAny = true;
      const id = session.id;
      if (notifier) {
        notifier.observe(this.host.info(id)); // its first state is not news
        this.#notifiers.set(id, notifier);
      }
      this.#log(`started ${id} (pid ${session.pid}): ${[spec.command, ...spec.args].join(' ')}`);
      session.onExit((exit) => {
        const ending = this.#ended(id, exit).finally(() => this.#endings.delete(ending));
        this.#endings.add(ending);
      });
      const started: Started = {
        id,
        socket: session.spec.socket,
        pid: session.pid,
        host: process.pid,
      };
      return { ...started };
    } finally {
      this.#startsInFlight--;
      this.#checkIdle();
    }
  }

  /** A session's command exited: its `exited` is published (the sweep), then it is let go. */
  async #ended(id: string, exit: { code: number; signal?: number }): Promise<void> {
    this.#log(`ended ${id} (${exit.signal ? `signal ${exit.signal}` : `exit ${exit.code}`})`);
    this.host.classifyNow(id);
    this.#notifiers.get(id)?.close();
    this.#notifiers.delete(id);
    // Its last screen and how it ended stay for ls, explain and the board (nobody saw it end);
    // read now, while its pane is there (a host that is ending lets its panes go at once).
    let last: Omit<EndedSession, 'endedAt'> | undefined;
    try {
      const pane = this.host.pane(id);
      if (pane) {
        last = { info: this.host.info(id), screen: pane.screen().text, events: pane.events() };
      }
    } catch (e) {
      this.#log(`${id}: its last screen was not kept: ${(e as Error).message}`);
    }
    // Answers in flight (the `kill` that ended it answers once it exited) leave first.
    await new Promise((r) => setTimeout(r, EXIT_LINGER_MS));
    try {
      if (last) saveEnded({ ...last, endedAt: Date.now() }, socketDir(this.#env));
    } catch (e) {
      this.#log(`${id}: its last screen was not kept: ${(e as Error).message}`);
    }
    try {
      await this.host.forget(id);
    } catch (e) {
      this.#log(`${id}: ${(e as Error).message}`);
    }
    this.#checkIdle();
  }

  /** Ends now when the last session ended; a host that never had one waits for the grace. */
  #checkIdle(): void {
    if (this.#ending || !this.#server) return;
    if (this.host.sessions.size || this.#startsInFlight) return;
    clearTimeout(this.#idleTimer);
    if (this.#startedAny) void this.end('its last session ended');
    else this.#idleTimer = setTimeout(() => void this.end('no session to host'), this.#idleMs);
  }

  /**
   * Stops taking requests, removes the host socket (only ours), ends every session still
   * running (SIGHUP, then SIGKILL after a grace: {@link SessionHost.close}), keeps how each
   * ended (its record in `ended/`, as for any session that ends) and resolves {@link ended}.
   */
  async end(why: string): Promise<void> {
    if (this.#ending) return this.ended;
    this.#ending = true;
    clearTimeout(this.#idleTimer);
    clearInterval(this.#checkTimer);
    this.#log(`host ${process.pid} ending: ${why}`);
    try {
      if (this.#isOurs(lstatSync(this.#path))) unlinkSync(this.#path);
    } catch {
      // already gone
    }
    if (this.#server) await closeControl(this.#server);
    for (const n of this.#notifiers.values()) n.close();
    await this.host.close();
    // Sessions it ended (or that ended meanwhile) keep their last screen, as any that ends.
    await Promise.allSettled([...this.#endings]);
    this.#resolveEnded();
    return this.ended;
  }
}

/** The claim lock's name in the socket folder: a directory, made with mkdir(2) (atomic). */
export const CLAIM_LOCK = 'host.lock';
/** A claim lock older than this was left by a host that died while claiming, ms. */
const LOCK_STALE_MS = 10_000;
/** How long a host waits for the claim lock before giving up, ms. */
const LOCK_WAIT_MS = 15_000;

/**
 * Runs `f` holding the claim lock of socket folder `dir`, so that one host at a time checks
 * and takes the host socket's name (without it, two hosts that each found a dead host's
 * socket could both replace it). The lock is held for the few ms of a claim; one older than
 * {@link LOCK_STALE_MS} is a dead claimer's and is removed (moved aside first, atomically).
 * @throws UserError when the lock is not a directory of ours, or stays held for
 *   {@link LOCK_WAIT_MS}.
 */
async function withClaimLock<T>(dir: string, f: () => Promise<T>): Promise<T> {
  const lock = join(dir, CLAIM_LOCK);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock, { mode: 0o700 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    try {
      const st = lstatSync(lock);
      if (!st.isDirectory() || st.uid !== process.getuid?.()) {
        throw new UserError(`${lock}: exists and is not our claim lock; refusing to use it`);
      }
      if (Date.now() - st.mtimeMs > LOCK_STALE_MS) {
        const aside = `${lock}-${process.pid}-${randomBytes(3).toString('hex')}`;
        renameSync(lock, aside);
        rmdirSync(aside);
        continue;
      }
    } catch (e) {
      if (e instanceof UserError) throw e;
      continue; // released (or removed) meanwhile: try again
    }
    if (Date.now() > deadline) {
      throw new UserError(`${lock}: held for ${LOCK_WAIT_MS / 1000} s; remove it if no host runs`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  try {
    return await f();
  } finally {
    rmdirSync(lock);
  }
}

/** True when `path` is a symbolic link (dangling or not). */
function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
