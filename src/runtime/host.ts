/**
 * Hosts sessions in this process: starts each in a PTY, follows it with the sweep, serves its
 * control socket and tells listeners about transitions. `run` hosts one session attached to
 * the person's terminal; `watch` and `demo` host several headless. A failure in one session
 * (its listener throws, its child crashes) never takes down the others.
 */
import { randomBytes } from 'node:crypto';
import type { Server, Socket } from 'node:net';
import { basename } from 'node:path';
import type { Manifest } from '../detect/manifest.ts';
import { explain, formatExplain } from '../detect/explain.ts';
import { closeControl, connectionPeer, listenControl, push } from './control-server.ts';
import { listSessions } from './session-directory.ts';
import { answerRefusal } from './peer.ts';
import { ensureSocketDir, socketDir, socketPath } from './paths.ts';
import type { Request, SessionInfo } from './protocol.ts';
import { Session, type SessionSpec } from './session.ts';
import { type ForegroundRead, Sweep, type Watched } from './sweep.ts';
import type { StateRecord } from './signals.ts';
import { UserError } from '../errors.ts';
import { launchArgs, reportFromHook } from './integrations/claude-code.ts';
import {
  choiceIndex,
  confirmedExpect,
  currentPrompt,
  GUARD_EXIT,
  guardedAnswer,
  guardedSend,
  promptOn,
} from './tools.ts';
import { selfCommand } from './self-command.ts';
import { manifestForProcess } from './sweep.ts';
import type { Pane } from './pane.ts';
import type { ManifestSet } from './manifest-set.ts';

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
  foreground: (session: Session) => ForegroundRead | null;
  intervalMs?: number;
  adaptive?: boolean;
  /** False to start agents without the hooks their manifest declares. */
  hooks?: boolean;
  /** Environment for the socket directory (tests point AGENTWATCH_DIR elsewhere). */
  env?: NodeJS.ProcessEnv;
}

/** What to start: a command and its display options. */
export interface StartOptions {
  command: string;
  args: string[];
  name?: string;
  agent?: string;
  cwd?: string;
  env?: Record<string, string>;
  rows?: number;
  cols?: number;
  headless: boolean;
}

/** A transition as listeners see it. */
export interface Transition {
  info: SessionInfo;
  prev: StateRecord;
}

/** Makes a session id: the name, a dash and 4 random hex digits ('claude-3f9a'). */
export function makeSessionId(name: string): string {
  const clean =
    name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 24) ||
    'session';
  return `${clean}-${randomBytes(2).toString('hex')}`;
}

export class SessionHost {
  readonly sweep: Sweep;
  readonly sessions = new Map<
    string,
    { session: Session; server: Server; subscribers: Set<Socket> }
  >();
  readonly #transitionListeners = new Set<(t: Transition) => void>();
  readonly #publishListeners = new Set<(info: SessionInfo) => void>();
  /** Subscribers per session id that announce it themselves (a board: `subscribe` with `alerts`). */
  readonly #boards = new Map<string, Set<Socket>>();
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
  /** Attached terminals per session id. */
  readonly #attachedCount = new Map<string, number>();
  /** Who takes `mark` requests per session id (a recording). */
  readonly #markers = new Map<string, (state: string, note: string) => unknown>();

  constructor(readonly options: HostOptions) {
    this.#env = options.env ?? process.env;
    this.sweep = new Sweep({
      intervalMs: options.intervalMs,
      adaptive: options.adaptive,
      manifests: options.manifests,
      refresh: options.refresh,
      foreground: options.foreground,
      onTransition: (w, prev) => this.#onTransition(w, prev),
      onEvaluated: (w) => this.#onEvaluated(w),
    });
    // Rules updated or refused: in every session's events (explain shows them).
    options.manifestSet?.onNotice((n) => {
      for (const { session } of this.sessions.values()) session.log(n.text);
    });
  }

  /** What was last published per session (see {@link Published}), to publish on change only. */
  readonly #published = new Map<string, Published>();
  /** A session's size before the first terminal attached to it, restored when the last leaves. */
  readonly #sizeBeforeAttach = new Map<string, { rows: number; cols: number }>();

  /**
   * A session whose info changes without a state change is published again: its agent became
   * known, the reason changed (a report, another rule), or a blocked prompt appeared or
   * changed (a report or OSC 7501 said blocked before the dialog was drawn), so subscribers
   * (the board, `wait`) see its question and options. Compared field by field: an evaluation
   * that changes nothing builds no info.
   */
  #onEvaluated(w: Watched): void {
    const next = published(w);
    const last = this.#published.get(w.session.id);
    if (last && samePublished(last, next)) return;
    this.#published.set(w.session.id, next);
    const entry = this.sessions.get(w.session.id);
    // Nobody to tell: no info built (the notifier listens through onPublish).
    if (!entry?.subscribers.size && !this.#publishListeners.size) return;
    const info = this.#info(w);
    if (entry) { for (const s of entry.subscribers) push(s, { event: 'state', session: info }); }
    this.#publish(info);
  }

  /** A session's info with this process's notifier failures. */
  #info(w: Watched): SessionInfo {
    const info = sessionInfo(w);
    const failures = this.notifyFailures?.();
    if (failures && Object.keys(failures).length) info.notify = failures;
    const input = this.#lastInput.get(w.session.id);
    if (input !== undefined) info.lastInput = input;
    return info;
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
    return (this.#boards.get(id)?.size ?? 0) > 0;
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
    if ((this.#attachedCount.get(id) ?? 0) > 0) return true;
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
   * @throws UserError when the command cannot be started or the socket cannot be made.
   */
  async start(opts: StartOptions): Promise<Session> {
    if (opts.agent && !this.options.manifests().has(opts.agent)) {
      const known = [...this.options.manifests().keys()].join(', ');
      throw new UserError(`--agent ${opts.agent}: no such agent (known: ${known})`);
    }
    ensureSocketDir(this.#env);
    const name = opts.name ?? basename(opts.command);
    let id = makeSessionId(name);
    while (this.sessions.has(id)) id = makeSessionId(name);
    const spec: SessionSpec = {
      id,
      name,
      command: opts.command,
      args: opts.args,
      cwd: opts.cwd,
      env: opts.env,
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
    if (launched?.integrations.hooks && this.options.hooks !== false) {
      const self = selfCommand();
      spec.args = launchArgs(launched.integrations.hooks, spec.args, [self.command, ...self.args]);
    }
    const subscribers = new Set<Socket>();
    const server = await listenControl(spec.socket, (req, socket) => this.#handle(id, req, socket));
    let session: Session;
    try {
      session = new Session(spec);
    } catch (e) {
      server.close();
      throw e;
    }
    this.sessions.set(id, { session, server, subscribers });
    this.sweep.add(session);
    this.sweep.start();
    return session;
  }

  /**
   * Lets `marker` take session `id`'s `mark` requests (`agentwatch mark`); it returns what the
   * answer carries, or throws a UserError that the client prints.
   */
  setMarker(id: string, marker: (state: string, note: string) => unknown): void {
    this.#markers.set(id, marker);
  }

  /** Panes served by this host whose source it does not own (ACP sessions), by id. */
  readonly panes = new Map<string, { pane: Pane; server: Server; subscribers: Set<Socket> }>();

  /**
   * Serves `pane` on its control socket ({@link Pane.socket}): `subscribe` pushes its info on
   * every change, other requests go to the pane; its state changes reach
   * {@link onTransition}'s listeners like a PTY session's.
   * @throws UserError when the socket cannot be made.
   */
  async serve(pane: Pane): Promise<void> {
    ensureSocketDir(this.#env);
    const subscribers = new Set<Socket>();
    const server = await listenControl(pane.socket, (req, socket) => {
      if (req.op === 'answer') return this.#checkAnswerer(socket).then(() => pane.handle(req));
      if (req.op !== 'subscribe') return pane.handle(req);
      subscribers.add(socket);
      socket.on('close', () => subscribers.delete(socket));
      push(socket, { event: 'state', session: pane.info() });
      return 'keep';
    });
    this.panes.set(pane.id, { pane, server, subscribers });
    pane.onChange((info, prev) => {
      for (const s of subscribers) push(s, { event: 'state', session: info });
      this.#publish(info);
      if (info.state === prev) return;
      const record: StateRecord = { state: prev, since: info.since, reason: '', by: 'acp' };
      for (const l of this.#transitionListeners) {
        try {
          l({ info, prev: record });
        } catch {
          // a listener's failure never disturbs the pane
        }
      }
    });
  }

  /** The info of session `id`, as published on its socket. */
  info(id: string): SessionInfo {
    const entry = this.sessions.get(id);
    const w = this.sweep.watched.get(id);
    if (!entry || !w) throw new UserError(`no session ${id} in this process`);
    return this.#info(w);
  }

  /**
   * Classifies session `id` afresh now, out of the sweep's turn (a board names a new session's
   * agent at once; `run` looks before it types an end-of-file). No-op for an unknown id.
   */
  classifyNow(id: string): void {
    const w = this.sweep.watched.get(id);
    if (w) this.sweep.evaluate(w);
  }

  /** The sweep's record of session `id`. */
  watched(id: string): Watched | undefined {
    return this.sweep.watched.get(id);
  }

  #onTransition(w: Watched, prev: StateRecord): void {
    const info = this.#info(w);
    this.#published.set(w.session.id, published(w));
    const entry = this.sessions.get(w.session.id);
    if (entry) { for (const s of entry.subscribers) push(s, { event: 'state', session: info }); }
    for (const l of this.#transitionListeners) {
      try {
        l({ info, prev });
      } catch {
        // a listener's failure never disturbs the sweep
      }
    }
    this.#publish(info);
  }

  /**
   * Refuses (exit 3) an `answer` whose peer is not the person: unknown, of another uid, or a
   * process that is (or descends from) the agent of any session, this host's or one listed
   * in the socket folder, PTY or ACP ({@link answerRefusal}), whatever its environment says.
   */
  async #checkAnswerer(socket: Socket): Promise<void> {
    const agents = new Set<number>();
    for (const { session } of this.sessions.values()) agents.add(session.pid);
    for (const { pane } of this.panes.values()) {
      if (pane.info().pid > 0) agents.add(pane.info().pid);
    }
    try {
      for (const s of await listSessions(socketDir(this.#env))) agents.add(s.pid);
    } catch {
      // an unreadable folder: this host's own sessions are still known
    }
    const why = answerRefusal(connectionPeer(socket), agents);
    if (why) throw new UserError(`refused: ${why}`, GUARD_EXIT);
  }

  #handle(
    id: string,
    req: Request,
    socket: Socket,
  ): Record<string, unknown> | 'keep' | Promise<Record<string, unknown>> {
    const entry = this.sessions.get(id);
    const w = this.sweep.watched.get(id);
    if (!entry || !w) throw new UserError(`session ${id} is gone`);
    const { session } = entry;
    switch (req.op) {
      case 'info':
        return { session: this.#info(w) };
      case 'screen':
        return {
          text: session.terminal.screenText(),
          title: session.terminal.title,
          rows: session.terminal.rows,
          cols: session.terminal.cols,
          cursor: session.terminal.cursor,
        };
      case 'subscribe': {
        entry.subscribers.add(socket);
        let boards: Set<Socket> | undefined;
        if (req.alerts === true) {
          boards = this.#boards.get(id) ?? new Set();
          this.#boards.set(id, boards);
          boards.add(socket);
        }
        socket.on('close', () => {
          entry.subscribers.delete(socket);
          boards?.delete(socket);
        });
        push(socket, { event: 'state', session: this.#info(w) });
        return 'keep';
      }
      case 'attach':
        return this.#attach(session, socket, req.rows, req.cols);
      case 'resize': {
        const rows = Number(req.rows);
        const cols = Number(req.cols);
        if (
          !Number.isInteger(rows) || !Number.isInteger(cols) || rows < 1 || cols < 2 ||
          rows > 500 || cols > 1000
        ) {
          throw new UserError('resize: rows must be 1-500 and cols 2-1000 (whole cells)');
        }
        session.resize(rows, cols);
        return {};
      }
      case 'kill':
        session.kill();
        return {};
      case 'report': {
        const state = req.state === 'done' ? 'idle' : req.state;
        if (state !== 'working' && state !== 'blocked' && state !== 'idle') {
          throw new UserError(
            `report: unknown state '${req.state}' (working, blocked, idle, done)`,
          );
        }
        session.setReport({
          state,
          at: firedAt(req.firedAt),
          source: req.detail || `report ${req.state}`,
        });
        session.log(`report ${state} (${req.detail ?? ''})`);
        this.sweep.evaluate(w); // a report is news: no need to wait for the next sweep
        return {};
      }
      case 'notify': {
        const reading = reportFromHook(
          'Notification',
          typeof req.payload === 'string' ? req.payload : JSON.stringify(req.payload),
        )!;
        if (!reading.ok) {
          session.log(reading.error); // malformed: ignored, logged
          return { ignored: reading.error };
        }
        session.setReport({
          state: reading.state,
          at: firedAt(req.firedAt),
          source: reading.source,
        });
        session.log(reading.source);
        this.sweep.evaluate(w);
        return {};
      }
      case 'send':
        this.noteInput(id);
        return guardedSend(
          this.sweep,
          w,
          String(req.text ?? ''),
          req.enter !== false,
          req.append === true,
        ).then((
          written,
        ) => ({ written }));
      case 'prompt':
        return currentPrompt(this.sweep, w).then((p) => ({ ...p }));
      case 'answer': {
        const expect = confirmedExpect(req);
        const index = choiceIndex(String(req.choice), expect.options);
        return this.#checkAnswerer(socket).then(() => {
          this.noteInput(id);
          return guardedAnswer(this.sweep, w, index, expect);
        }).then((option) => ({ answered: option }));
      }
      case 'events':
        return { events: session.events() };
      case 'cancel':
        throw new UserError(
          `cancel: ${session.spec.name} is a terminal session, not an ACP one; press Esc in its pane`,
        );
      case 'mark': {
        const marker = this.#markers.get(id);
        if (!marker) {
          throw new UserError(
            `session ${id} is not being recorded (start it with agentwatch record)`,
          );
        }
        return { mark: marker(String(req.state), typeof req.note === 'string' ? req.note : '') };
      }
      case 'explain': {
        this.sweep.evaluate(w); // afresh, like the typing guard
        const snapshot = session.terminal.snapshot();
        return {
          session: this.#info(w),
          decidedBy: w.record.by,
          reason: w.record.reason,
          report: session.report,
          foreground: w.foreground,
          manifest: w.manifest
            ? `${w.manifest.id} ${w.manifest.version} (${
              this.options.sourceOf?.(w.manifest.id) ?? 'source'
            }: ${w.manifest.source})`
            : null,
          screen: session.terminal.screenText(),
          title: snapshot.title,
          rules: w.manifest
            ? formatExplain(explain(snapshot, w.manifest))
            : 'no manifest applies\n',
          events: session.events(),
        };
      }
      default:
        throw new UserError(`unknown op '${(req as { op: string }).op}'`);
    }
  }

  #attach(session: Session, socket: Socket, rows?: number, cols?: number): 'keep' {
    socket.write(JSON.stringify({ ok: true, op: 'attach' }) + '\n');
    // The attaching terminal's size applies while it is attached; the size before it comes
    // back when the last attached terminal leaves (a `run` session is the person's own
    // terminal's size, and it must not stay at the board's).
    if (!this.#sizeBeforeAttach.has(session.id)) {
      this.#sizeBeforeAttach.set(session.id, {
        rows: session.terminal.rows,
        cols: session.terminal.cols,
      });
    }
    const okSize = (r?: number, c?: number) =>
      Number.isInteger(r) && Number.isInteger(c) && r! >= 1 && c! >= 2 && r! <= 500 && c! <= 1000;
    if (okSize(rows, cols)) session.resize(rows!, cols!);
    // While a real terminal is attached, it answers the agent's queries (DSR, DA, OSC 10/11):
    // our own replies would reach the agent twice. Headless again once the last one detaches.
    this.#attachedCount.set(session.id, (this.#attachedCount.get(session.id) ?? 0) + 1);
    session.headless = false;
    // Redraw what our screen shows, then stream the agent's bytes as they come.
    socket.write(redraw(session));
    const off = session.onOutput((data) => {
      if (!socket.destroyed) socket.write(data);
    });
    const offExit = session.onExit(() => socket.end());
    socket.on('data', (d: Buffer) => {
      this.noteInput(session.id);
      session.write(d);
    });
    socket.on('close', () => {
      off();
      offExit();
      const left = (this.#attachedCount.get(session.id) ?? 1) - 1;
      if (left > 0) this.#attachedCount.set(session.id, left);
      else {
        this.#attachedCount.delete(session.id);
        session.headless = session.spec.headless;
        const before = this.#sizeBeforeAttach.get(session.id);
        this.#sizeBeforeAttach.delete(session.id);
        if (before && !session.exit) session.resize(before.rows, before.cols);
      }
    });
    return 'keep';
  }

  /**
   * Stops the sweep, hangs up every session and closes every socket. A child still running
   * {@link CLOSE_GRACE_MS} after the hangup (it ignores SIGHUP) gets SIGKILL, with its process
   * group: no agent outlives its host.
   */
  async close(): Promise<void> {
    this.sweep.stop();
    const entries = [...this.sessions.values()];
    await Promise.all(entries.map(async ({ session, server, subscribers }) => {
      session.kill();
      for (const s of subscribers) s.end();
      await closeControl(server);
      if (await exitedWithin(session, CLOSE_GRACE_MS)) return;
      try {
        process.kill(-session.pid, 'SIGKILL'); // node-pty's child leads its own process group
      } catch {
        session.kill('SIGKILL');
      }
    }));
    this.sessions.clear();
    await Promise.all([...this.panes.values()].map(async ({ pane, server, subscribers }) => {
      for (const s of subscribers) s.end();
      await Promise.all([pane.close(), closeControl(server)]);
    }));
    this.panes.clear();
  }

  /** Closes session `id`'s socket and forgets it (after its exit was reported). */
  async forget(id: string): Promise<void> {
    const entry = this.sessions.get(id);
    if (!entry) return;
    this.sweep.remove(id);
    for (const s of entry.subscribers) s.end();
    await closeControl(entry.server);
    this.sessions.delete(id);
  }
}

/** How long {@link SessionHost.close} waits for a hung-up child before SIGKILL, ms. */
export const CLOSE_GRACE_MS = 1000;

/** Resolves true once `session`'s child has exited, false if it still runs after `ms`. */
function exitedWithin(session: Session, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      off();
      resolve(false);
    }, ms);
    const off = session.onExit(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * When a hook fired, from what it says (`firedAt`, ms since the epoch), kept within the last
 * 30 s and never after now; now when it says nothing usable.
 */
export function firedAt(said: unknown, now = Date.now()): number {
  return typeof said === 'number' && Number.isFinite(said)
    ? Math.min(now, Math.max(now - 30_000, said))
    : now;
}

/**
 * What a subscriber sees change: state, agent, reason, what a working agent says it does
 * and, when blocked, the prompt.
 */
interface Published {
  state: string;
  agent: string;
  reason: string;
  by: string;
  /** What a working agent says it does (SessionInfo.activity), '' when nothing. */
  activity: string;
  /** The prompt's question, options and details, joined; '' unless blocked. */
  prompt: string;
}

/** The {@link Published} fields of `w` now (the prompt read only when it is blocked). */
function published(w: Watched): Published {
  let prompt = '';
  if (w.record.state === 'blocked') {
    const p = promptOn(w.session.terminal);
    prompt = `${p.question}\0${p.options.join('\0')}\0\0${p.details.join('\0')}`;
  }
  return {
    state: w.record.state,
    agent: w.manifest?.id ?? '',
    reason: w.record.reason,
    by: w.record.by,
    activity: (w.record.state === 'working' && w.record.evaluation?.activity) || '',
    prompt,
  };
}

function samePublished(a: Published, b: Published): boolean {
  return a.state === b.state && a.agent === b.agent && a.reason === b.reason && a.by === b.by &&
    a.activity === b.activity && a.prompt === b.prompt;
}

/** Paints `session`'s screen text on a client terminal: clear, each row, cursor back in place. */
export function redraw(session: Session): string {
  const t = session.terminal;
  let out = '\x1b[0m\x1b[H\x1b[2J';
  for (let y = 0; y < t.rows; y++) out += `\x1b[${y + 1};1H${t.rowText(y)}`;
  out += `\x1b[${t.cursor.row + 1};${t.cursor.col + 1}H`;
  return out;
}

/** The published info of a followed session. */
export function sessionInfo(w: Watched): SessionInfo {
  const s = w.session;
  const info: SessionInfo = {
    id: s.id,
    name: s.spec.name,
    agent: w.manifest?.id ?? '',
    state: w.record.state,
    since: w.record.since,
    reason: w.record.reason,
    by: w.record.by,
    pid: s.pid,
    command: [s.spec.command, ...s.spec.args],
    foreground: w.foreground.name,
    rows: s.terminal.rows,
    cols: s.terminal.cols,
    startedAt: s.startedAt,
    lastOutput: s.lastOutput,
    exit: s.exit,
    host: process.pid,
    socket: s.spec.socket,
  };
  const activity = w.record.state === 'working' ? w.record.evaluation?.activity : undefined;
  if (activity) info.activity = activity;
  if (w.record.state === 'blocked') {
    const p = promptOn(s.terminal);
    if (p.question) info.question = p.question;
    if (p.options.length) info.options = p.options;
    if (p.details.length) info.details = p.details;
  }
  return info;
}
