/**
 * The sessions of this machine: listing the live ones from the socket folder, finding one by
 * id, id prefix or name (waiting for it to appear, for scripts), and following them all as
 * they come and go ({@link SessionDirectory}: the board's and `watch --json`'s view). `ls`,
 * `wait`, `watch`, `demo` and the commands that take a SESSION all go through here.
 *
 * Only sockets in a checked socket folder are believed (`checkSocketDir`), and of its entries
 * only sockets of ours (lstat: a socket, not a symlink, owned by us); the only entries ever
 * removed are such sockets that refused a connection twice. Talking to one session's socket
 * is `control-client.ts`'s.
 *
 * Why one file just over 400 lines: listing, matching and following are one view of one
 * socket folder, with one set of rules on which entries are believed and removed.
 */
import { readdirSync, unlinkSync } from 'node:fs';
import type { Socket } from 'node:net';
import { basename, join } from 'node:path';
import { NO_ANSWER_EXIT, request, sessionInfoOf, subscribe } from './control-client.ts';
import { checkSocketDir, ownSocket, socketDir } from './paths.ts';
import type { SessionInfo } from './protocol.ts';
import type { SessionState } from '../detect/types.ts';
import { UserError } from '../errors.ts';

/** How long {@link listSessions} waits before asking a socket that refused again, ms. */
const REFUSED_RETRY_MS = 100;

/**
 * How long the board and the hosts wait for a socket's `info` by default, ms: a socket that
 * did not answer is asked again at their next look.
 */
export const LIST_ANSWER_MS = 1500;

/**
 * How long a command (`ls`, `wait`, and those that take a SESSION) waits for each socket's
 * `info`, ms. A host on a loaded machine (tester: 17 sessions, load 20-60, 17 commands at
 * once) took longer than 1.5 s; a command that gave up then called a live session "no session".
 */
export const INFO_PATIENCE_MS = 10_000;

/** What a look at the socket folder found ({@link surveySessions}). */
export interface Survey {
  /** The sessions that answered, sorted by `startedAt`. */
  infos: SessionInfo[];
  /**
   * The sockets (paths) that neither answered in time nor refused: a live session whose host
   * is busy or stopped. Never removed.
   */
  unanswered: string[];
}

/**
 * Every live session's info, from the sockets in `dir`, which is checked first
 * ({@link checkSocketDir}: none when it does not exist), each socket given `patienceMs` to
 * answer. Only our own sockets are asked ({@link ownSocket}); a socket that refuses a
 * connection twice, {@link REFUSED_RETRY_MS} apart, and still is one of ours is a dead
 * session's and is removed (a Unix socket refuses only when nothing listens on it: a busy or
 * stopped listener's queue accepts, and a full queue says EAGAIN); a socket whose answer is
 * not a session's info (see {@link sessionInfoOf}) is left out; one that did not answer in
 * time, or whose queue is full, is in `unanswered`. Each info's `socket` is the path asked,
 * whatever the session said.
 * @throws UserError when the folder fails the check or cannot be read (EACCES is an error,
 *   not "no sessions").
 */
export async function surveySessions(
  dir = socketDir(),
  patienceMs = LIST_ANSWER_MS,
): Promise<Survey> {
  if (!checkSocketDir(dir)) return { infos: [], unanswered: [] };
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.sock'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { infos: [], unanswered: [] };
    throw new UserError(`${dir}: cannot read the socket folder (${code})`);
  }
  const unanswered: string[] = [];
  const infos = await Promise.all(names.map(async (n) => {
    const path = join(dir, n);
    if (!ownSocket(path)) return null;
    for (let attempt = 1;; attempt++) {
      try {
        const a = await request<{ session?: unknown }>(path, { op: 'info' }, patienceMs);
        const info = sessionInfoOf(a.session); // a malformed answer is left out, not trusted
        return info && { ...info, socket: path };
      } catch (e) {
        const message = (e as Error).message;
        if (
          (e instanceof UserError && e.exitCode === NO_ANSWER_EXIT) || /EAGAIN/.test(message)
        ) {
          unanswered.push(path); // alive, and busy or stopped: never removed
          return null;
        }
        // A session binds its socket file a moment before it listens, and a connection in
        // between is refused as well: only a socket still refusing a little later is stale.
        if (/ECONNREFUSED/.test(message) && attempt === 1) {
          await new Promise((r) => setTimeout(r, REFUSED_RETRY_MS));
          continue;
        }
        if (/ECONNREFUSED/.test(message) && ownSocket(path)) {
          try {
            unlinkSync(path); // a stale socket of a dead session of ours
          } catch {
            // already gone
          }
        }
        return null;
      }
    }
  }));
  return {
    infos: infos.filter((i): i is SessionInfo => i !== null).sort((a, b) =>
      a.startedAt - b.startedAt
    ),
    unanswered: unanswered.sort(),
  };
}

/**
 * The sessions of {@link surveySessions} that answered within `patienceMs` (those whose host
 * did not are left out: for the board and the hosts, which look again).
 * @throws UserError as {@link surveySessions}.
 */
export async function listSessions(
  dir = socketDir(),
  patienceMs = LIST_ANSWER_MS,
): Promise<SessionInfo[]> {
  return (await surveySessions(dir, patienceMs)).infos;
}

/**
 * The error of a command that cannot tell whether `key` names a session because the sockets
 * `unanswered` did not answer within `patienceMs` (exit code {@link NO_ANSWER_EXIT}): it names
 * their ids (a socket's file name is its session's id).
 */
export function noAnswerError(key: string, unanswered: readonly string[], patienceMs: number) {
  const ids = unanswered.map((p) => basename(p, '.sock'));
  const n = ids.length;
  return new UserError(
    `no answer from ${n === 1 ? 'session' : `${n} sessions`} ${ids.join(', ')} within ${
      Math.round(patienceMs / 100) / 10
    } s (${n === 1 ? 'its' : 'their'} host is busy or stopped): whether '${key}' is ${
      n === 1 ? 'it' : 'one of them'
    } is not known; try again`,
    NO_ANSWER_EXIT,
  );
}

/**
 * The exit code of every command given a SESSION that names several sessions: 2, a usage
 * error (the command line does not say which one; waiting or retrying cannot fix it).
 */
export const AMBIGUOUS_SESSION_EXIT = 2;

/** The exit code of every command given a SESSION that names no live session: 4. */
export const NO_SESSION_EXIT = 4;

/**
 * The session of `infos` that `key` names: an exact id or name first, then a name that differs
 * only in case (ids are lower case: `--name L1` has the id `l1-46a7`, and `kill l1` meant it,
 * not every `l1…` id of L10, L11, L12), else the only id that starts with `key`; undefined when
 * none does.
 * @throws UserError (exit code {@link AMBIGUOUS_SESSION_EXIT}) listing the ids when several
 *   match, or when `key` is empty or blank (it would be a prefix of every id: `kill ""` from
 *   an unset variable must not end the only session): every SESSION command says the same.
 */
export function matchSession(
  key: string,
  infos: readonly SessionInfo[],
): SessionInfo | undefined {
  if (!key.trim()) {
    throw new UserError(
      'an empty SESSION names no session: give an id, an id prefix or a name',
      AMBIGUOUS_SESSION_EXIT,
    );
  }
  const exact = infos.filter((s) => s.id === key || s.name === key);
  const lower = key.toLowerCase();
  const named = exact.length ? exact : infos.filter((s) => s.name.toLowerCase() === lower);
  const found = named.length ? named : infos.filter((s) => s.id.startsWith(key));
  if (found.length > 1) {
    throw new UserError(
      `'${key}' matches ${found.length} sessions: ${
        found.map((s) => s.id).join(', ')
      } (give more of the id)`,
      AMBIGUOUS_SESSION_EXIT,
    );
  }
  return found[0];
}

/**
 * The session of `survey` that `key` names ({@link matchSession} on those that answered), as
 * far as the sockets that did not answer allow: a session found is given unless an unanswered
 * socket's id (its file name) is or starts with `key` as well (it could be the one meant, or
 * make `key` ambiguous); undefined when none is found and every socket answered. Not seen: an
 * unanswered session with the same name as one found (names are not in the file names).
 * @throws UserError as {@link matchSession}, or {@link noAnswerError} when sockets that did
 *   not answer may hold the session.
 */
export function matchSurvey(
  key: string,
  survey: Survey,
  patienceMs: number,
): SessionInfo | undefined {
  const found = matchSession(key, survey.infos);
  const maybe = survey.unanswered.filter((p) => basename(p, '.sock').startsWith(key));
  if (found && (found.id === key || !maybe.length)) return found;
  if (found || survey.unanswered.length) {
    throw noAnswerError(key, found ? maybe : survey.unanswered, patienceMs);
  }
  return undefined;
}

/**
 * Finds a live session by id, id prefix or name (see {@link matchSession}), giving each socket
 * `patienceMs` to answer: a live session whose host is slow is a slower answer, never "no
 * session".
 * @throws UserError when none matches (exit code {@link NO_SESSION_EXIT}), several do
 *   ({@link AMBIGUOUS_SESSION_EXIT}), or sockets that did not answer in time may hold it
 *   ({@link NO_ANSWER_EXIT}, see {@link matchSurvey}).
 */
export async function findSession(
  key: string,
  dir = socketDir(),
  patienceMs = INFO_PATIENCE_MS,
): Promise<SessionInfo> {
  const found = matchSurvey(key, await surveySessions(dir, patienceMs), patienceMs);
  if (!found) throw new UserError(`no session '${key}' (see 'agentwatch ls')`, NO_SESSION_EXIT);
  return found;
}

/** How often {@link awaitSessions} looks at the socket folder again, ms. */
export const APPEAR_POLL_MS = 250;

/**
 * Resolves each key (id, id prefix or name) to a session, looking again every
 * {@link APPEAR_POLL_MS} until `deadline` (ms since the epoch; Infinity waits for ever) for
 * those not there yet: a script starts an agent, then waits for it. Each look gives the
 * sockets up to {@link INFO_PATIENCE_MS} to answer, never past `deadline` (the last look ends
 * by then, give or take a moment). A key keeps the session it first named: one seen that is
 * gone by a later look (its socket closed or removed) is given as {@link closedInfo} (its
 * process is gone, {@link processGone}); one whose socket did not answer that look is still
 * there. `onWaiting` is called once, with the keys missing, when the first look misses some.
 * `ended`, when given, names a session that ended for a key no live session matches
 * (ended-sessions.ts: `kill NAME`, then `wait NAME --until exited`), given as
 * {@link closedInfo} of it. Returns the sessions in the keys' order, or the first key that
 * never appeared.
 * @throws UserError with exit code {@link AMBIGUOUS_SESSION_EXIT} when a key matches several
 *   sessions; {@link noAnswerError} ({@link NO_ANSWER_EXIT}) when at the deadline a key is
 *   missing and sockets that did not answer may hold it (see {@link matchSurvey}).
 */
export async function awaitSessions(
  keys: readonly string[],
  deadline: number,
  dir = socketDir(),
  onWaiting?: (missing: string[]) => void,
  ended?: (key: string) => SessionInfo | undefined,
): Promise<SessionInfo[] | string> {
  const seen = new Map<string, SessionInfo>();
  let told = false;
  for (;;) {
    const patience = Math.max(
      APPEAR_POLL_MS,
      Math.min(INFO_PATIENCE_MS, deadline - Date.now()),
    );
    const survey = await surveySessions(dir, patience);
    const live = survey.infos;
    const last = Date.now() + APPEAR_POLL_MS > deadline;
    const out: SessionInfo[] = [];
    const missing: string[] = [];
    for (const key of keys) {
      const was = seen.get(key);
      const silent = was && survey.unanswered.includes(was.socket);
      let found = was ? live.find((s) => s.id === was.id) ?? (silent ? was : undefined) : undefined;
      if (!was) {
        try {
          found = matchSurvey(key, survey, patience);
        } catch (e) {
          // Not known yet while the deadline is ahead: look again (not an ended one's either).
          if (last || !(e instanceof UserError && e.exitCode === NO_ANSWER_EXIT)) throw e;
          missing.push(key);
          continue;
        }
      }
      if (found) seen.set(key, found);
      const gone = found ? undefined : ended?.(key);
      if (found || was) out.push(found ?? closedInfo(was!));
      else if (gone) out.push(closedInfo(gone));
      else missing.push(key);
    }
    if (!missing.length) return out;
    if (last) return missing[0];
    if (!told) onWaiting?.(missing);
    told = true;
    await new Promise((r) => setTimeout(r, APPEAR_POLL_MS));
  }
}

/**
 * `by` of the info the directory makes up for a session hosted elsewhere whose control socket
 * closed without its exit being told: its host is gone, and the process with it.
 */
export const SOCKET_CLOSED_BY = 'socket';

/**
 * `info` of a session hosted elsewhere whose control socket closed without its exit being
 * told: `exited` (since `now`, or since it read `exited` already), by {@link SOCKET_CLOSED_BY},
 * its prompt fields cleared.
 */
export function closedInfo(info: SessionInfo, now = Date.now()): SessionInfo {
  return {
    ...info,
    state: 'exited',
    since: info.state === 'exited' ? info.since : now,
    reason: 'its control socket closed',
    by: SOCKET_CLOSED_BY,
    question: undefined,
    options: undefined,
    details: undefined,
  };
}

/**
 * Whether `info`'s process is gone: its PTY child ended (`exit` set), or its control socket
 * closed. Not the same as the `exited` state, which only means that no agent is in the
 * foreground: a shell left after the agent (`run -- bash`, `watch -- bash`) is alive, can be
 * attached to, and ends with the watch that hosts it.
 */
export function processGone(info: SessionInfo): boolean {
  return info.exit != null || info.by === SOCKET_CLOSED_BY;
}

/** How often the socket folder is read for new sessions, ms. */
export const POLL_MS = 1000;

/**
 * The little of a host a {@link SessionDirectory} needs for the sessions this process hosts
 * (`SessionHost` has it): their transitions, their infos, forgetting one, classifying one now.
 */
export interface LocalSessions {
  onTransition(
    listener: (t: { info: SessionInfo; prev: { state: SessionState } }) => void,
  ): () => void;
  /** @throws when the host does not know `id` (any more). */
  info(id: string): SessionInfo;
  forget(id: string): Promise<void>;
  /** Classifies session `id` afresh (its agent is named before the first sweep tick). */
  classifyNow(id: string): void;
}

/** One session a {@link SessionDirectory} follows. */
export interface Followed {
  info: SessionInfo;
  /** Hosted by this process. */
  local: boolean;
  /** True once `onChange` was called for it. */
  announced: boolean;
  /** The subscription of a session hosted elsewhere, while open. */
  socket?: Socket;
  /** When the directory first saw its process gone ({@link processGone}), ms since the epoch. */
  goneAt?: number;
}

/** How a {@link SessionDirectory} is set up. */
export interface DirectoryOptions {
  /** The host of this process's own sessions. */
  host: LocalSessions;
  /** The socket folder to read (default: {@link socketDir}). */
  dir?: string;
  /** Called for every state change, and once per session when first seen (`prev` null). */
  onChange: (info: SessionInfo, prev: SessionState | null) => void;
  /**
   * Called for every info a session hosted elsewhere pushes, state change or not (its agent,
   * reason, question or details changed): what the board shows must be redrawn.
   */
  onUpdate?: (info: SessionInfo) => void;
  /** Also follow sessions hosted elsewhere (default true). */
  remote?: boolean;
  /** Tell the hosts of sessions followed that this board announces them (default false). */
  alerts?: boolean;
}

/**
 * Every session of this machine, followed: those hosted by this process (from the host's
 * transitions) and those hosted elsewhere (found in the socket folder every {@link POLL_MS},
 * followed by `subscribe`). A session seen once stays, as `exited` when its socket closes
 * without saying so, until {@link SessionDirectory.clearGone} clears it.
 */
export class SessionDirectory {
  readonly followed = new Map<string, Followed>();
  readonly dir: string;
  /** Ids of sessions cleared: not followed again (another watch may still list them). */
  readonly #cleared = new Set<string>();
  #timer?: ReturnType<typeof setInterval>;
  #polling = false;
  #closed = false;
  #offTransition: () => void;

  constructor(readonly options: DirectoryOptions) {
    this.dir = options.dir ?? socketDir();
    this.#offTransition = options.host.onTransition(({ info, prev }) => {
      if (this.#cleared.has(info.id)) return;
      let f = this.followed.get(info.id);
      if (f) f.info = info;
      else this.followed.set(info.id, f = { info, local: true, announced: true });
      this.#noteGone(f);
      this.options.onChange(info, prev.state);
    });
  }

  /** Starts reading the socket folder (now, then every {@link POLL_MS}). */
  start(): void {
    if (this.options.remote === false) return;
    void this.poll();
    this.#timer = setInterval(() => void this.poll(), POLL_MS);
    this.#timer.unref?.();
  }

  /** Registers a session this process just started on its host; returns its info. */
  addLocal(id: string): SessionInfo {
    // Classify afresh now: the first line then names the agent (the manifest is chosen on the
    // first evaluation) instead of waiting for the first sweep.
    this.options.host.classifyNow(id);
    const known = this.followed.get(id);
    if (known) return known.info; // a transition came first and announced it
    const info = this.options.host.info(id);
    this.followed.set(id, { info, local: true, announced: true });
    this.options.onChange(info, null);
    return info;
  }

  /** Whether session `id` is hosted by this process. */
  isLocal(id: string): boolean {
    return this.followed.get(id)?.local === true;
  }

  /** The sessions now, hosted ones read afresh from the host. Take them once per frame. */
  infos(): SessionInfo[] {
    const out: SessionInfo[] = [];
    for (const [id, f] of this.followed) {
      if (f.local) {
        try {
          f.info = this.options.host.info(id);
        } catch {
          // forgotten by the host: keep the last info
        }
      }
      this.#noteGone(f);
      out.push(f.info);
    }
    return out;
  }

  /** Notes when `f`'s process was first seen gone. */
  #noteGone(f: Followed, now = Date.now()): void {
    if (f.goneAt === undefined && processGone(f.info)) f.goneAt = now;
  }

  /**
   * Forgets the sessions whose process is gone (all of them, or those gone at or before
   * `goneBy`, ms since the epoch); a hosted one's socket is closed as well. Sessions alive,
   * live shells included, stay. Returns the infos cleared. `infos`: this directory's
   * {@link infos} when the caller has just taken them (read once per frame).
   */
  clearGone(goneBy = Infinity, infos: readonly SessionInfo[] = this.infos()): SessionInfo[] {
    const cleared: SessionInfo[] = [];
    for (const i of infos) {
      const f = this.followed.get(i.id);
      if (!f || f.goneAt === undefined || f.goneAt > goneBy) continue;
      this.followed.delete(i.id);
      this.#cleared.add(i.id);
      f.socket?.destroy();
      if (f.local) this.options.host.forget(i.id).catch(() => {});
      cleared.push(f.info);
    }
    return cleared;
  }

  /**
   * Hosted sessions whose process still runs, whatever their state: a shell left after the
   * agent reads `exited` and still ends with the watch. `infos` as for {@link clearGone}.
   */
  liveLocal(infos: readonly SessionInfo[] = this.infos()): SessionInfo[] {
    return infos.filter((i) => this.followed.get(i.id)?.local && !processGone(i));
  }

  /**
   * Looks for sessions hosted elsewhere that are not followed yet. Never rejects: a socket
   * that answers nonsense, or a session that cannot be followed, is skipped (and tried again
   * at the next poll), the others are followed.
   */
  async poll(): Promise<void> {
    if (this.#polling || this.#closed) return;
    this.#polling = true;
    try {
      let names: string[];
      try {
        names = readdirSync(this.dir).filter((n) => n.endsWith('.sock'));
      } catch {
        return; // no folder yet: nobody has started a session
      }
      const known = new Set<string>();
      for (const f of this.followed.values()) if (f.local || f.socket) known.add(f.info.socket);
      if (names.every((n) => known.has(join(this.dir, n)))) return;
      for (const info of await listSessions(this.dir)) {
        if (this.#closed) return;
        if (info.host === process.pid || known.has(info.socket) || this.#cleared.has(info.id)) {
          continue;
        }
        try {
          this.#follow(info);
        } catch {
          // this one cannot be followed now; the others can
        }
      }
    } catch {
      // the folder changed under us: the next poll reads it again
    } finally {
      this.#polling = false;
    }
  }

  #follow(first: SessionInfo): void {
    const known = this.followed.get(first.id);
    if (known?.local) return;
    const e: Followed = known ?? { info: first, local: false, announced: false };
    // A throw here (an unusable socket path) leaves nothing half-registered.
    e.socket = subscribe(
      first.socket,
      (info) => {
        if (info.id !== first.id) return; // a push about another session is not this one's
        const prev = e.announced ? e.info.state : null;
        e.info = info;
        this.#noteGone(e);
        this.options.onUpdate?.(info);
        if (prev === info.state) return; // a change of its details only, or the first push
        e.announced = true;
        this.options.onChange(info, prev);
      },
      () => {
        e.socket = undefined;
        // Told of its exit: nothing more to say. Otherwise its host is gone (a shell in the
        // foreground read `exited` while it lived: it is gone now as well).
        if (this.#closed || (e.announced && e.info.exit)) return;
        const prev = e.announced ? e.info.state : null;
        e.announced = true;
        e.info = closedInfo(e.info);
        this.#noteGone(e);
        this.options.onUpdate?.(e.info);
        if (prev !== 'exited') this.options.onChange(e.info, prev);
      },
      { alerts: this.options.alerts === true },
    );
    if (!known) this.followed.set(first.id, e);
  }

  /** Stops reading the folder and closes every subscription. */
  close(): void {
    this.#closed = true;
    this.#offTransition();
    if (this.#timer) clearInterval(this.#timer);
    for (const f of this.followed.values()) f.socket?.destroy();
  }
}
