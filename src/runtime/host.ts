/**
 * Hosts panes in this process: starts each PTY session ({@link PtyPane}), has the sweep
 * schedule it, serves every pane's control socket (PTY or ACP, one handler per op:
 * `handlers.ts`) and tells listeners about transitions. `run` hosts one session attached to
 * the person's terminal; `watch` and `demo` host several headless. A failure in one session
 * (its listener throws, its child crashes) never takes down the others.
 *
 * Why one file just over 400 lines: it is one job, serving panes (start, publish, subscribe,
 * attach, forget); the ops are in handlers.ts, the panes in pty-pane.ts and acp-pane.ts, and
 * what remains shares the served-pane table, which splitting would make public.
 */
import { randomBytes } from 'node:crypto';
import type { Server, Socket } from 'node:net';
import { basename } from 'node:path';
import type { Manifest } from '../detect/manifest.ts';
import { closeControl, listenControl, push } from './control-server.ts';
import { ensureSocketDir, socketPath } from './paths.ts';
import { KILL_GRACE_MS, type Request, type SessionInfo, type StateEvent } from './protocol.ts';
import { Session, type SessionSpec } from './session.ts';
import { Sweep } from './sweep.ts';
import type { ForegroundRead, StateRecord } from './signals.ts';
import { UserError } from '../errors.ts';
import { launchArgs } from './integrations/claude-code.ts';
import { selfCommand } from './self-command.ts';
import { manifestForProcess } from './agent-match.ts';
import type { Pane } from './pane.ts';
import { PtyPane } from './pty-pane.ts';
import type { ManifestSet } from './manifest-set.ts';
import { type HandlerContext, handleRequest } from './handlers.ts';
import { registerSessions, unregisterHost } from './host-registry.ts';

export { firedAt } from './pty-pane.ts';

/** How a host is set up. */
export interface HostOptions {
  manifests: () => ReadonlyMap<string, Manifest>;
  /** Called at every sweep tick before the manifests are read (their hot reload). */
  refresh?: () => void;
  /** Where the manifest in force for an id came from ('your folder', 'catalog', ...). */
  sourceOf?: (id: string) => string | null;
  /** The reloading manifests behind `manifests` (for `manifests` notices on the board), if any. */
  manifestSet?: ManifestSet;
  /** Arguments put before the person's when the command is this agent (config `[agents.ID]`). */
  agentArgs?: (id: string) => readonly string[];
  /** Reads a PTY session's foreground; null when unknown. */
  /** Reads a PTY session's foreground; null when unknown. */
  foreground: (session: Session) => ForegroundRead | null;
  intervalMs?: number;
  adaptive?: boolean;
  /** How long a blocked waits for its dialog before it is published without it, ms (PtyPane's default). */
  promptWaitMs?: number;
  /** False to start agents without the hooks their manifest declares. */
  hooks?: boolean;
  /** Environment for the socket directory (tests point AGENTWATCH_DIR elsewhere). */
  env?: NodeJS.ProcessEnv;
}

/** What to start: a command and its display options. */
export interface StartOptions {
  command: string;
  args: string[];
  /** The session's name (default: the command's basename). */
  name?: string;
  /** Manifest id to use (`--agent`). */
  agent?: string;
  /** Absolute folder the command starts in (default: this process's). */
  cwd?: string;
  /** Variables for the command, laid over this process's (see {@link fullEnv}). */
  env?: Record<string, string>;
  /** Size in cells (default 32x120). */
  rows?: number;
  cols?: number;
  /** True: no terminal shows it (a detached session, until a board attaches). */
  headless: boolean;
  /** False: without the hooks its manifest declares, whatever the host's `hooks` says. */
  hooks?: boolean;
  /** True: `env` is the command's whole environment, not laid over this process's. */
  fullEnv?: boolean;
}

/** A transition as listeners see it. */
export interface Transition {
  info: SessionInfo;
  prev: StateRecord;
}

/**
 * Makes a session id: the name, a dash and 4 random hex digits ('claude-3f9a'). The name is
 * lower-cased with accents taken off (Unicode NFKD, combining marks dropped: 'Ünï' -> 'uni');
 * any other run of characters outside [a-z0-9-] becomes one dash.
 */
export function makeSessionId(name: string): string {
  const clean =
    name.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '').slice(0, 24) ||
    'session';
  return `${clean}-${randomBytes(2).toString('hex')}`;
}

/** A pane served by the host: its control socket and the connections following it. */
interface Served {
  pane: Pane;
  server: Server;
  /** `subscribe` connections. */
  subscribers: Set<Socket>;
  /** Subscribers that announce it themselves (a board: `subscribe` with `alerts`). */
  boards: Set<Socket>;
}

export class SessionHost {
  readonly #sweep: Sweep<Session>;
  readonly #served = new Map<string, Served>();
  readonly #transitionListeners = new Set<(t: Transition) => void>();
  readonly #publishListeners = new Set<(info: SessionInfo) => void>();
  /** When the person last typed into each session (its own terminal or an attached one), ms. */
  readonly #lastInput = new Map<string, number>();
  /** The same, for typing that means the person looks at the session. */
  readonly #lastFocus = new Map<string, number>();
  /**
   * What failed in this process's notifier (`{channel: why}`), published in every info as
   * `notify` (`ls --json`); set by run and watch.
   */
  notifyFailures?: () => Partial<Record<string, string>>;
  readonly #env: NodeJS.ProcessEnv;
  /** Who takes `mark` requests per session id (a recording). */
  readonly #markers = new Map<string, (state: string, note: string) => unknown>();

  constructor(readonly options: HostOptions) {
    this.#env = options.env ?? process.env;
    this.#sweep = new Sweep({
      intervalMs: options.intervalMs,
      adaptive: options.adaptive,
      manifests: options.manifests,
      refresh: options.refresh,
      foreground: options.foreground,
    });
    // Rules updated or refused: in every session's events (explain shows them).
    options.manifestSet?.onNotice((n) => {
      for (const { pane } of this.#served.values()) if (pane instanceof PtyPane) pane.log(n.text);
    });
  }

  /** The sweep's interval, ms. */
  get intervalMs(): number {
    return this.#sweep.intervalMs;
  }

  /** The sweep's totals (for the benchmark). */
  get sweepStats(): { ticks: number; evaluations: number; evalMs: number } {
    return this.#sweep.stats;
  }

  /** Runs one sweep now (tests drive the sweep by hand). */
  tick(): void {
    this.#sweep.tick();
  }

  /** The PTY sessions hosted here, by id. */
  get sessions(): ReadonlyMap<string, { session: Session; pane: PtyPane }> {
    const out = new Map<string, { session: Session; pane: PtyPane }>();
    for (const [id, { pane }] of this.#served) {
      if (pane instanceof PtyPane) out.set(id, { session: pane.session, pane });
    }
    return out;
  }

  /** A session's info with this process's notifier failures and the person's last input. */
  #info(pane: Pane): SessionInfo {
    const info = pane.info();
    const failures = this.notifyFailures?.();
    if (failures && Object.keys(failures).length) info.notify = failures;
    const input = this.#lastInput.get(pane.id);
    // the later of the host's (keys, send, answer) and the pane's own (an ACP chat's line)
    if (input !== undefined && !(input < (info.lastInput ?? -Infinity))) info.lastInput = input;
    return info;
  }

  /**
   * `pane` published a change: its subscribers get its info, and on a state change the
   * transition listeners; the publish listeners always. Nobody to tell: no info is built.
   */
  #changed(served: Served, prev: StateRecord): void {
    const { pane, subscribers } = served;
    const transition = pane.record.state !== prev.state;
    if (!transition && !subscribers.size && !this.#publishListeners.size) return;
    const info = this.#info(pane);
    for (const s of subscribers) push(s, { event: 'state', session: info } satisfies StateEvent);
    if (transition) {
      for (const l of this.#transitionListeners) {
        try {
          l({ info, prev });
        } catch {
          // a listener's failure never disturbs the sweep
        }
      }
    }
    this.#publish(info);
  }

  #publish(info: SessionInfo): void {
    for (const l of this.#publishListeners) {
      try {
        l(info);
      } catch {
        // a listener's failure never disturbs the sweep
      }
    }
  }

  /**
   * Calls `listener` with every info published for a hosted session: each state change, and
   * each change of its agent, reason or prompt while the state stays (the notifier sees a
   * second, different prompt of one blocked spell, and the dialog drawn after the report).
   */
  onPublish(listener: (info: SessionInfo) => void): () => void {
    this.#publishListeners.add(listener);
    return () => this.#publishListeners.delete(listener);
  }

  /** True while a board (a `subscribe` with `alerts`) follows session `id` and announces it. */
  boardFollows(id: string): boolean {
    return (this.#served.get(id)?.boards.size ?? 0) > 0;
  }

  /**
   * Notes that the person typed into session `id` now. `focus` false: it tells the notifier
   * that a prompt was answered (`lastInput`), but is no sign that someone looks at the session
   * (the demo's simulated person).
   */
  noteInput(id: string, now = Date.now(), focus = true): void {
    this.#lastInput.set(id, now);
    if (focus) this.#lastFocus.set(id, now);
  }

  /**
   * True when the person looks at session `id`: a terminal is attached to it through its
   * socket (a board's Enter), or they typed into it within `withinMs`.
   */
  focused(id: string, withinMs: number, now = Date.now()): boolean {
    if (this.#served.get(id)?.pane.attached()) return true;
    const last = this.#lastFocus.get(id);
    return last !== undefined && now - last < withinMs;
  }

  /** Calls `listener` on every state change of every hosted session. */
  onTransition(listener: (t: Transition) => void): () => void {
    this.#transitionListeners.add(listener);
    return () => this.#transitionListeners.delete(listener);
  }

  /**
   * Starts a session and its control socket.
   * @throws UserError when the command cannot be started or the socket cannot be made; with
   *   exit code 2 for an unknown `agent`.
   */
  async start(opts: StartOptions): Promise<Session> {
    if (opts.agent && !this.options.manifests().has(opts.agent)) {
      const known = [...this.options.manifests().keys()].join(', ');
      // exit 2: a usage error, as every other bad command line (the CLI's UsageError)
      throw new UserError(`--agent ${opts.agent}: no such agent (known: ${known})`, 2);
    }
    ensureSocketDir(this.#env);
    const name = opts.name ?? basename(opts.command);
    let id = makeSessionId(name);
    while (this.#served.has(id)) id = makeSessionId(name);
    const spec: SessionSpec = {
      id,
      name,
      command: opts.command,
      args: opts.args,
      cwd: opts.cwd,
      env: opts.env,
      fullEnv: opts.fullEnv,
      rows: opts.rows ?? 32,
      cols: opts.cols ?? 120,
      agent: opts.agent,
      headless: opts.headless,
      socket: socketPath(id, this.#env),
    };
    // What the agent's manifest asks for when agentwatch starts it (Claude Code: hooks), only
    // when the command IS that agent (DESIGN.md: "when CMD is Claude Code"): `--settings` put
    // before the arguments of anything else (`node sim-agent`, `bash`, `npx claude`) breaks
    // it. `--agent` alone only chooses the rules.
    const manifests = this.options.manifests();
    const launched = manifestForProcess(manifests, { name: opts.command, argv: [opts.command] });
    const defaults = launched ? this.options.agentArgs?.(launched.id) ?? [] : [];
    if (defaults.length) spec.args = [...defaults, ...opts.args];
    if (launched?.integrations.hooks && (opts.hooks ?? this.options.hooks) !== false) {
      const self = selfCommand();
      spec.args = launchArgs(launched.integrations.hooks, spec.args, [self.command, ...self.args]);
    }
    const server = await listenControl(spec.socket, (req, socket) => this.#handle(id, req, socket));
    let session: Session;
    try {
      session = new Session(spec);
    } catch (e) {
      server.close();
      throw e;
    }
    const pane = new PtyPane(session, {
      manifests: this.options.manifests,
      foreground: this.options.foreground,
      sourceOf: this.options.sourceOf,
      promptWaitMs: this.options.promptWaitMs,
    });
    this.#add(pane, server);
    this.#sweep.addPane(pane);
    this.#sweep.start();
    return session;
  }

  #add(pane: Pane, server: Server): Served {
    const served: Served = { pane, server, subscribers: new Set(), boards: new Set() };
    this.#served.set(pane.id, served);
    pane.onChange((prev) => this.#changed(served, prev));
    // Its PTY closes with it and the slave's number is free for the next terminal opened on
    // this machine (a person's own, from which they run `answer`): registered no longer.
    if (pane instanceof PtyPane) pane.session.onExit(() => this.#register());
    this.#register();
    return served;
  }

  /** Writes this host's agents and PTYs to the per-user registry (`answer` refuses them). */
  #register(): void {
    const agents: number[] = [];
    const ttys: string[] = [];
    for (const { pane } of this.#served.values()) {
      if (pane.exit) continue; // ended: its pid and PTY may name another process's now
      if (pane.pid > 0) agents.push(pane.pid);
      // a PTY pane's tty without its whole info (read for every pane at every start)
      const tty = pane instanceof PtyPane ? pane.session.tty : pane.info().tty;
      if (tty) ttys.push(tty);
    }
    registerSessions(this, { agents, ttys });
  }

  /**
   * Lets `marker` take session `id`'s `mark` requests (`agentwatch mark`); it returns what the
   * answer carries, or throws a UserError that the client prints.
   */
  setMarker(id: string, marker: (state: string, note: string) => unknown): void {
    this.#markers.set(id, marker);
  }

  /**
   * Serves `pane` (one whose source the host does not own: an ACP session) on its control
   * socket ({@link Pane.socket}) like a PTY session: its state changes reach
   * {@link onTransition}'s listeners and its subscribers.
   * @throws UserError when the socket cannot be made.
   */
  async serve(pane: Pane): Promise<void> {
    ensureSocketDir(this.#env);
    const server = await listenControl(
      pane.socket,
      (req, socket) => this.#handle(pane.id, req, socket),
    );
    this.#add(pane, server);
  }

  /** The info of session `id`, as published on its socket. */
  info(id: string): SessionInfo {
    const served = this.#served.get(id);
    if (!served) throw new UserError(`no session ${id} in this process`);
    return this.#info(served.pane);
  }

  /** Pane `id` (PTY or ACP), if this host serves it. */
  pane(id: string): Pane | undefined {
    return this.#served.get(id)?.pane;
  }

  /** PTY pane `id`, if this host serves it. */
  ptyPane(id: string): PtyPane | undefined {
    const pane = this.#served.get(id)?.pane;
    return pane instanceof PtyPane ? pane : undefined;
  }

  /** Classifies session `id` afresh now (its subscribers hear of a change at once). */
  classifyNow(id: string): void {
    this.#served.get(id)?.pane.classifyNow();
  }

  #handle(id: string, req: Request, socket: Socket) {
    const served = this.#served.get(id);
    if (!served) throw new UserError(`session ${id} is gone`);
    return handleRequest(this.#context(served), req, socket);
  }

  /** What the op handlers may do with `served`. */
  #context(served: Served): HandlerContext {
    return {
      pane: served.pane,
      env: this.#env,
      panes: () => [...this.#served.values()].map((s) => s.pane),
      info: () => this.#info(served.pane),
      noteInput: (focus = true) => this.noteInput(served.pane.id, Date.now(), focus),
      follow: (socket, alerts) => {
        served.subscribers.add(socket);
        if (alerts) served.boards.add(socket);
        socket.on('close', () => {
          served.subscribers.delete(socket);
          served.boards.delete(socket);
        });
      },
      marker: this.#markers.get(served.pane.id),
    };
  }

  /**
   * Stops the sweep, ends every pane's agent (SIGHUP, then SIGKILL with its process group
   * {@link CLOSE_GRACE_MS} later for one that ignores it: no agent outlives its host) and
   * closes every socket.
   */
  async close(): Promise<void> {
    this.#sweep.stop();
    const all = [...this.#served.values()];
    await Promise.all(all.map(async ({ pane, server, subscribers }) => {
      for (const s of subscribers) s.end();
      await Promise.all([pane.kill(), closeControl(server)]);
    }));
    this.#served.clear();
    unregisterHost(this);
  }

  /** Closes session `id`'s socket and forgets it (after its exit was reported). */
  async forget(id: string): Promise<void> {
    const served = this.#served.get(id);
    if (!served) return;
    this.#sweep.remove(id);
    for (const s of served.subscribers) s.end();
    await closeControl(served.server);
    this.#served.delete(id);
    this.#register();
  }
}

/** How long {@link SessionHost.close} waits for a hung-up child before SIGKILL, ms. */
export const CLOSE_GRACE_MS = KILL_GRACE_MS;
