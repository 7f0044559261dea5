/**
 * A session: one agent process in a PTY (node-pty), our emulated screen of it and the time of
 * its last output (its raw bytes go to the output listeners: a recording, an attached
 * terminal). The child gets `AGENTWATCH_SESSION` and
 * `AGENTWATCH_SOCKET` in its environment, so its hooks can reach the session.
 *
 * When no real terminal is attached (`headless`), the session answers terminal queries (DSR,
 * DA, OSC 10/11, `CSI ? u`, DECRQM) with the VT core's replies: Codex, opencode and Gemini CLI
 * wait for them at start-up. When a real terminal is attached, that terminal answers, and our
 * replies are dropped.
 */
import * as pty from 'node-pty';
import { Terminal } from '../vt/terminal.ts';
import type { Report } from './signals.ts';
import { accessSync, constants, readSync, statSync, writeSync } from 'node:fs';
import { nativeAddon, ptyMasterFd } from './foreground.ts';
import { delimiter, join } from 'node:path';
import { UserError } from '../errors.ts';
import { EventLog } from './event-log.ts';
import { SIZE_LIMITS } from './protocol.ts';
import { type InputHold, InputHolder } from './input-hold.ts';
import { groupAlive, groupInSession } from './group-processes.ts';

/**
 * How long `end` lets the processes left in a session's process groups finish once its child
 * exited, before SIGKILL, ms (Qwen Code 0.24.4's CLI writes ~/.qwen for a second or more after
 * its launcher exited on SIGHUP; see {@link Session.end}).
 */
export const GROUP_GRACE_MS = 5000;

/**
 * Finds `command` the way execvp(3) would (a name with a '/' as a path, else each PATH entry).
 * @throws UserError (exit code 127, as a shell says) when it is not found or not executable.
 */
export function resolveCommand(
  command: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const candidates = command.includes('/')
    ? [command]
    : (env.PATH ?? '/usr/bin:/bin').split(delimiter).filter(Boolean).map((d) => join(d, command));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (statSync(c).isFile()) return c;
    } catch {
      // try the next one
    }
  }
  throw new UserError(
    `${command}: command not found${command.includes('/') ? ' or not executable' : ' in PATH'}`,
    127,
  );
}

/** Where {@link Session.onPiece} cuts a chunk: before a sequence that erases or moves the cursor. */
const CUT_BEFORE = /\x1b(?:\[[0-9;]*[JKXPMLSTHfABCD]|\[\?(?:1049|1047|47)l|c)/g;
/** Most cuts {@link Session.onPiece} makes in one chunk. */
const MAX_PIECES = 64;

/** The buffer {@link Session.readPending} reads into (synchronously, so one is enough). */
const READ_BUFFER = Buffer.alloc(64 * 1024);

/** What to start. */
export interface SessionSpec {
  /** Unique id, also the socket's file name. */
  id: string;
  /** Display name (default: the command's basename). */
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  /** Extra environment over process.env (with `fullEnv`: the whole environment). */
  env?: Record<string, string>;
  /** True: `env` is the child's whole environment (a background host's client's). */
  fullEnv?: boolean;
  /** Size in cells. */
  rows: number;
  cols: number;
  /** A manifest id forced with --agent, else detected from the foreground process. */
  agent?: string;
  /** True when no real terminal shows this session: the session answers terminal queries. */
  headless: boolean;
  /** The control socket's path, put in the child's environment. */
  socket: string;
}

/** How the PTY child ended. */
export interface ExitInfo {
  code: number;
  signal?: number;
}

/** One agent in a PTY, with its screen. */
export class Session {
  readonly terminal: Terminal;
  readonly pty: pty.IPty;
  readonly startedAt = Date.now();
  /** Time of the last output, ms since the epoch. */
  lastOutput = 0;
  /** Time of the last resize that changed the size, ms since the epoch; 0 when never. */
  resizedAt = 0;
  /** The terminal's version right after that resize: the screen unchanged since while equal. */
  resizedVersion = -1;
  /** Output bytes so far. */
  bytesOut = 0;
  /** Output chunks so far (reads of the PTY master that returned bytes). */
  chunksOut = 0;
  /** Input bytes handed to the PTY so far (write(2) on the master, or node-pty's write), by every writer. */
  bytesIn = 0;
  exit: ExitInfo | null = null;
  /** The latest report from the agent's hooks (`agentwatch report` / `notify`), null when none came. */
  report: Report | null = null;
  /** Bumped when an input other than the screen changes (a report, a resize): the sweep re-evaluates. */
  inputsVersion = 0;
  /** False once a real terminal answers queries instead of us. */
  headless: boolean;
  readonly #outputListeners = new Set<(data: Uint8Array) => void>();
  readonly #inputListeners = new Set<(data: Uint8Array) => void>();
  readonly #exitListeners = new Set<(exit: ExitInfo) => void>();
  /** Errors raised by listeners, counted, never thrown into node-pty. */
  listenerErrors = 0;
  /** Input bytes the terminal's input buffer has not taken yet (EAGAIN), oldest first. */
  readonly #unwritten: Buffer[] = [];
  #retry: ReturnType<typeof setTimeout> | undefined;
  /** The person's input held while the typing guard types ({@link holdInput}). */
  readonly #holder = new InputHolder((bytes) => this.#writeInput(bytes), (l) => this.log(l));

  /**
   * Starts `spec.command` in a new PTY.
   * @throws UserError when the command cannot be started (not found, not executable).
   */
  constructor(readonly spec: SessionSpec) {
    this.terminal = new Terminal(spec.rows, spec.cols);
    this.headless = spec.headless;
    const env: Record<string, string> = {};
    if (!spec.fullEnv) {
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    }
    Object.assign(env, spec.env ?? {}, {
      AGENTWATCH_SESSION: spec.id,
      AGENTWATCH_SOCKET: spec.socket,
    });
    env.TERM ??= 'xterm-256color';
    resolveCommand(spec.command, env);
    try {
      this.pty = pty.spawn(spec.command, spec.args, {
        name: env.TERM,
        cols: spec.cols,
        rows: spec.rows,
        cwd: spec.cwd ?? process.cwd(),
        env,
        encoding: null,
      });
    } catch (e) {
      throw new UserError(`cannot start '${spec.command}': ${(e as Error).message}`);
    }
    // node-pty 1.1 leaves the master inheritable: every later child of this process (another
    // session's agent and its tools, a notify command) would hold it and could type into this
    // session's agent, a dialog's answer among them, past every check of `answer`
    const master = ptyMasterFd(this.pty);
    if (master !== undefined) {
      try {
        nativeAddon()?.setCloexec?.(master);
      } catch {
        // a master already closed: the child is gone, and its exit comes next
      }
    }
    this.pty.onData((data) => this.#onData(data as unknown as Uint8Array));
    this.pty.onExit(({ exitCode, signal }) => {
      this.#childExit = { code: exitCode, signal: signal || undefined };
      // while end() ends it, its exit is published once its process groups are gone
      if (!this.#ending) this.#exited();
    });
  }

  /** How the PTY child exited, once node-pty said so (published as {@link exit} by #exited). */
  #childExit: ExitInfo | null = null;
  /** While {@link end} ends the child and waits for its process groups. */
  #ending: Promise<void> | undefined;

  /** Publishes the child's exit: {@link exit}, then the exit listeners. Once. */
  #exited(): void {
    if (this.exit || !this.#childExit) return;
    this.exit = this.#childExit;
    this.inputsVersion++;
    this.#holder.end('exit'); // what it held is dropped, as any write after the exit
    for (const l of this.#exitListeners) this.#safe(() => l(this.exit!));
  }

  get id(): string {
    return this.spec.id;
  }

  /** The PTY child's pid. */
  get pid(): number {
    return this.pty.pid;
  }

  /** The PTY's slave path (`/dev/pts/5`; node-pty 1.1's `ptsName`), undefined when unknown. */
  get tty(): string | undefined {
    const name = (this.pty as unknown as { ptsName?: unknown }).ptsName;
    return typeof name === 'string' && name !== '' ? name : undefined;
  }

  #onData(data: Uint8Array): void {
    this.lastOutput = Date.now();
    this.bytesOut += data.length;
    this.chunksOut++;
    if (this.#pieceListeners.size) this.#writeInPieces(data);
    else this.terminal.write(data);
    // Queries a real terminal answers: ours only when none is attached. Queries no terminal
    // answers (OSC 7501): always ours.
    const replies = this.terminal.takeReplies();
    if (replies && this.headless && !this.exit) {
      this.#safe(() => this.#put(Buffer.from(replies)));
    }
    const ext = this.terminal.takeExtensionReplies();
    if (ext && !this.exit) this.#safe(() => this.#put(Buffer.from(ext)));
    for (const l of this.#outputListeners) this.#safe(() => l(data));
  }

  readonly #pieceListeners = new Set<() => void>();

  /**
   * While set, each chunk of output is written to the screen in pieces, cut right before each
   * escape sequence that erases or moves the cursor (ECMA-48 CSI ... J, K, X, P, M, L, S, T, H,
   * f, A-D; DECRST 47/1047/1049; RIS), and `listener` is called after each piece but the last
   * (the output listeners see the end): a screen the agent drew and replaced within one read
   * (a dialog drawn, then erased once it read our input) is seen. At most
   * {@link MAX_PIECES} cuts per chunk. For the typing guard's watch after a write.
   * @returns a function that removes the listener.
   */
  onPiece(listener: () => void): () => void {
    this.#pieceListeners.add(listener);
    return () => this.#pieceListeners.delete(listener);
  }

  #writeInPieces(data: Uint8Array): void {
    const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
    let from = 0;
    let cuts = 0;
    for (const m of text.matchAll(CUT_BEFORE)) {
      if (m.index === 0 || m.index === from) continue;
      this.terminal.write(data.subarray(from, m.index));
      from = m.index;
      for (const l of this.#pieceListeners) this.#safe(l);
      if (++cuts >= MAX_PIECES) break;
    }
    this.terminal.write(data.subarray(from));
  }

  #safe(f: () => void): void {
    try {
      f();
    } catch {
      this.listenerErrors++;
    }
  }

  /** Calls `listener` with every chunk of output; returns a function that removes it. */
  /**
   * Calls `listener` with the bytes written to the agent, from every writer (the person's
   * terminal, `send`, `answer`, an attached board), once they were handed to the PTY.
   * @returns a function that removes the listener.
   */
  onInput(listener: (data: Uint8Array) => void): () => void {
    this.#inputListeners.add(listener);
    return () => this.#inputListeners.delete(listener);
  }

  #inputWritten(data: Uint8Array): void {
    for (const l of this.#inputListeners) this.#safe(() => l(data));
  }

  onOutput(listener: (data: Uint8Array) => void): () => void {
    this.#outputListeners.add(listener);
    return () => this.#outputListeners.delete(listener);
  }

  /** Calls `listener` once the PTY child exits; returns a function that removes it. */
  onExit(listener: (exit: ExitInfo) => void): () => void {
    if (this.exit) {
      listener(this.exit);
      return () => {};
    }
    this.#exitListeners.add(listener);
    return () => this.#exitListeners.delete(listener);
  }

  readonly #events = new EventLog();

  /** Adds a line to the session's event log (see {@link EventLog}). */
  log(line: string): void {
    this.#events.log(line);
  }

  /** The event log, oldest first. */
  events(): string[] {
    return this.#events.events();
  }

  /** Records a report from the agent's hooks; the sweep reads it on its next look. */
  setReport(report: Report): void {
    this.report = report;
    this.inputsVersion++;
  }

  /** node-pty 1.1's internals that {@link readPending} and {@link writeNow} rely on. */
  get #internals(): {
    fd: number | undefined;
    socket?: { destroyed?: boolean; readableLength?: number };
    queue?: unknown[];
  } {
    const p = this.pty as unknown as {
      _socket?: { destroyed?: boolean; readableLength?: number };
      _writeStream?: { _writeQueue?: unknown };
    };
    const queue = p._writeStream?._writeQueue;
    return {
      fd: ptyMasterFd(this.pty),
      socket: p._socket,
      queue: Array.isArray(queue) ? queue : undefined,
    };
  }

  /**
   * Reads the output already waiting on the PTY master now, synchronously (node-pty's master
   * fd is non-blocking: read(2) until EAGAIN), and handles it exactly as node-pty's own reader
   * would (screen, query replies, output listeners). The typing guard calls it right
   * before classifying, so that what the agent has written is on the screen it classifies.
   * No byte is read twice or lost: each is read once, by this or by node-pty's reader (libuv
   * delivers what it reads at once; a read that finds the buffer empty is EAGAIN, which it
   * ignores). Reads nothing when node-pty's stream still holds bytes it has not delivered
   * (they come first), when the PTY is closed, or without node-pty's internals.
   * @returns the number of bytes read.
   */
  readPending(): number {
    const { fd, socket } = this.#internals;
    if (this.exit || fd === undefined || !socket || socket.destroyed || socket.readableLength) {
      return 0;
    }
    let total = 0;
    for (let i = 0; i < 64; i++) {
      let n = 0;
      try {
        n = readSync(fd, READ_BUFFER, 0, READ_BUFFER.length, null);
      } catch {
        break; // EAGAIN: nothing more now; EIO: the child is gone (node-pty's reader sees it too)
      }
      if (n <= 0) break;
      total += n;
      this.#onData(Buffer.from(READ_BUFFER.subarray(0, n))); // a copy: listeners may keep it
    }
    return total;
  }

  /**
   * How many bytes written to the agent it has not read yet: the input waiting in its
   * terminal's input queue (the native addon's `inputQueued`: FIONREAD on the PTY's slave).
   * 0 once the agent's read(2) has taken everything written so far. For the typing guard: a
   * byte still queued can reach whatever the agent draws before it reads it. In canonical
   * mode (a shell's line editing off, `stty icanon`) only complete lines count.
   * @returns the bytes, or undefined when that cannot be known (no addon, or an addon built
   *   without it; the PTY closed; the call failed).
   */
  inputUnread(): number | undefined {
    const { fd, socket } = this.#internals;
    if (this.exit || fd === undefined || !socket || socket.destroyed) return undefined;
    const queued = nativeAddon()?.inputQueued;
    if (!queued) return undefined;
    try {
      return queued(fd);
    } catch {
      return undefined;
    }
  }

  /**
   * Writes `data` to the agent now, with write(2) on the PTY master, instead of node-pty's
   * queue (node-pty 1.1 writes later, with fs.write on libuv's thread pool, so the bytes could
   * reach the agent after output that was read meanwhile). For the typing guard: the write
   * follows its classification with nothing read in between.
   * @returns the bytes written: all, fewer when the terminal's input buffer is full (EAGAIN),
   *   0 when node-pty still has queued writes (they go first: try again) or the PTY is gone.
   *   Without node-pty's internals, `data` goes through node-pty's queue (all counted).
   */
  writeNow(data: Uint8Array): number {
    if (this.exit) return 0;
    const n = this.#writeDirect(data);
    if (n < 0) {
      this.#writeInput(Buffer.from(data)); // never held: the guard's own bytes
      return data.length;
    }
    if (n > 0 && this.#inputListeners.size) this.#inputWritten(data.subarray(0, n));
    return n;
  }

  /**
   * write(2) of `data` on the PTY master, as much as the terminal's input buffer takes: the
   * bytes written; 0 when node-pty still has queued writes (they go first) or the PTY is
   * gone; -1 without node-pty's internals.
   */
  #writeDirect(data: Uint8Array): number {
    const { fd, socket, queue } = this.#internals;
    if (fd === undefined || !queue) return -1;
    if (!socket || socket.destroyed || queue.length || this.#unwritten.length) return 0;
    let off = 0;
    while (off < data.length) {
      try {
        const n = writeSync(fd, data, off, data.length - off);
        if (n <= 0) break;
        off += n;
        this.bytesIn += n;
      } catch {
        break; // EAGAIN: the input buffer is full; EIO: the child is gone
      }
    }
    return off;
  }

  /**
   * Writes the person's input bytes (keys, paste: run's stdin, an attached terminal) to the
   * agent. Ignored once it exited. Held instead while the typing guard types into the pane
   * ({@link holdInput}), and written right after. Written at once with write(2) when node-pty
   * has nothing queued (node-pty 1.1 writes on libuv's thread pool: a thread hand-off and a
   * wake-up of this loop per write); what the terminal's input buffer does not take is
   * written after it ({@link #put}). Ignored once the PTY closed.
   */
  write(data: string | Uint8Array): void {
    if (this.exit) return;
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    if (this.#holder.take(bytes)) return;
    this.#writeInput(bytes);
  }

  /**
   * Holds the person's input ({@link write}) until the hold is released, and at most `maxMs`
   * (ms), then writes it, in order; see {@link InputHolder} for what passes at once (terminal
   * reports; Ctrl-C, which ends the hold) and the bound in bytes. {@link writeNow} (the typing
   * guard's own writes) and the session's replies to terminal queries are never held.
   * @returns the hold: `release()` ends it, `broken` says why it ended early (null while it
   *   holds).
   */
  holdInput(maxMs: number): InputHold {
    return this.#holder.hold(maxMs);
  }

  /** Bytes of the person's input held now ({@link holdInput}). */
  get inputHeld(): number {
    return this.#holder.held;
  }

  /** {@link #put}, then the input listeners; nothing once the agent exited. */
  #writeInput(bytes: Buffer): void {
    if (this.exit || !this.#put(bytes)) return;
    if (this.#inputListeners.size) this.#inputWritten(bytes);
  }

  /**
   * Writes `bytes` with write(2) when nothing waits before them, right after checking that
   * node-pty has not closed the PTY (its reader closes the master fd when the child is gone,
   * before it reports the exit); what the input buffer does not take (EAGAIN) waits in
   * {@link #unwritten} and is tried again every millisecond, in order, while the PTY is open.
   * Not through node-pty 1.1's queue: it runs fs.write on libuv's thread pool and retries
   * EAGAIN later, so a write made as the child exits reached the fd after it was closed
   * (EBADF, which node-pty prints to stderr) or, were the number reused, another file.
   * Without node-pty's internals, node-pty's write.
   * @returns false when the PTY is closed (nothing written, nothing kept).
   */
  #put(bytes: Buffer): boolean {
    const n = this.#writeDirect(bytes);
    if (n < 0) {
      this.pty.write(bytes);
      this.bytesIn += bytes.length;
      return true;
    }
    const { socket } = this.#internals;
    if (n === 0 && (!socket || socket.destroyed)) return false;
    if (n < bytes.length) {
      this.#unwritten.push(bytes.subarray(n));
      this.#flush();
    }
    return true;
  }

  /** Writes {@link #unwritten} as far as the input buffer takes it; see {@link #put}. */
  #flush(): void {
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = undefined;
    const { fd, socket, queue } = this.#internals;
    while (this.#unwritten.length) {
      if (fd === undefined || !socket || socket.destroyed) {
        this.#unwritten.length = 0; // the PTY closed: no one reads them
        return;
      }
      if (queue?.length) break; // node-pty's own queue goes first
      const head = this.#unwritten[0];
      let n = 0;
      try {
        n = writeSync(fd, head);
        this.bytesIn += n;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') {
          this.#unwritten.length = 0; // EIO: the child is gone
          return;
        }
      }
      if (n >= head.length) this.#unwritten.shift();
      else if (n > 0) this.#unwritten[0] = head.subarray(n);
      else break;
    }
    if (this.#unwritten.length) {
      this.#retry = setTimeout(() => this.#flush(), 1);
      this.#retry.unref();
    }
  }

  /** Resizes the PTY and the screen, in cells, clamped to {@link SIZE_LIMITS}. */
  resize(rows: number, cols: number): void {
    // NaN would get past the clamps (Math.max(1, NaN) is NaN) and shrink the screen to 1x2
    if (!Number.isFinite(rows) || !Number.isFinite(cols)) return;
    rows = Math.max(SIZE_LIMITS.minRows, Math.min(SIZE_LIMITS.maxRows, Math.floor(rows)));
    cols = Math.max(SIZE_LIMITS.minCols, Math.min(SIZE_LIMITS.maxCols, Math.floor(cols)));
    if (rows === this.terminal.rows && cols === this.terminal.cols) return;
    this.resizedAt = Date.now();
    this.terminal.resize(rows, cols);
    this.resizedVersion = this.terminal.version;
    this.inputsVersion++;
    if (!this.exit) this.#safe(() => this.pty.resize(cols, rows));
  }

  /** Sends `signal` (default SIGHUP, as a closed terminal does) to the PTY child. */
  kill(signal = 'SIGHUP'): void {
    if (this.exit) return;
    this.#safe(() => this.pty.kill(signal));
  }

  /**
   * Ends the child and what runs in its process groups: `hangup` (SIGHUP, as a closed terminal
   * does); when the child still runs `graceMs` later (it ignores SIGHUP), SIGKILL to the
   * groups. Once the child exited, its own process group (node-pty's child leads it) and the
   * groups `groups` names (the PTY's foreground group, read before the hangup) get up to
   * {@link GROUP_GRACE_MS} to end, then SIGKILL and `graceMs` more. The exit is published
   * ({@link exit}, the exit listeners: `exited` for subscribers, `ls`, `wait`) only then, so a
   * session reads exited once nothing of it runs: Qwen Code 0.24.4's launcher exits at once on
   * SIGHUP while its CLI, a child process in its group (`node --expose-gc cli.js`), goes on
   * writing ~/.qwen for a second or more (seen 0.9 s on an idle 2-core machine), and a person
   * who starts another session in the folder right after `kill` must not have the old one
   * still writing there. Processes in other groups (a shell's background jobs, anything
   * started with setsid) are not waited for, as a closed terminal does not end them either.
   * @param hangup sends the SIGHUP (default: to the child, {@link kill}).
   * @param groups process groups to wait for besides the child's own (ids <= 0 are ignored).
   * @returns how the child ended, once it has; null when it was still not seen to exit
   *   `graceMs` after the SIGKILL. Processes of the groups left after their SIGKILL (a process
   *   stuck in the kernel) are logged ({@link events}), and the exit is published regardless.
   */
  async end(
    graceMs: number,
    hangup: () => void = () => this.kill(),
    groups: () => number[] = () => [],
  ): Promise<ExitInfo | null> {
    if (this.exit) return this.exit;
    if (this.#ending) {
      await this.#ending;
      return this.exit;
    }
    // another group only while it is one of this terminal's (a group id read a while ago)
    const others = groups().filter((g) => g > 0 && g !== this.pid && groupInSession(g, this.pid));
    const pgids = [this.pid, ...new Set(others)];
    const ended = () => this.#childExit !== null;
    const emptied = () => ended() && !pgids.some(groupAlive);
    const killGroups = () => {
      for (const g of pgids) {
        try {
          process.kill(-g, 'SIGKILL');
        } catch {
          // that group has ended
        }
      }
      if (!ended()) this.kill('SIGKILL');
    };
    const ending = (async () => {
      hangup();
      if (!(await this.#until(ended, graceMs))) {
        killGroups();
        await this.#until(ended, graceMs);
      }
      if (!ended() || (await this.#until(emptied, GROUP_GRACE_MS))) return;
      const left = pgids.filter(groupAlive);
      this.log(`exited; process group ${left.join(', ')} still runs: SIGKILL`);
      killGroups();
      if (!(await this.#until(emptied, graceMs))) {
        this.log(`process group ${pgids.filter(groupAlive).join(', ')} still runs after SIGKILL`);
      }
    })();
    this.#ending = ending;
    try {
      await ending;
    } finally {
      this.#ending = undefined;
      this.#exited();
    }
    return this.exit;
  }

  /** Sends SIGHUP to the child's process group (the child's own when the group is gone). */
  hangupGroup(): void {
    if (this.exit) return;
    try {
      process.kill(-this.pid, 'SIGHUP');
    } catch {
      this.kill('SIGHUP');
    }
  }

  /** Resolves true once `done()` holds (looked at every 25 ms), false if not after `ms`. */
  async #until(done: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (done()) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
