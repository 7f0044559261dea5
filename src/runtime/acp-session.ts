/**
 * An ACP session: one agent process spoken to over the Agent Client Protocol (v1, JSON-RPC
 * lines on its stdin/stdout) with @agentclientprotocol/sdk 2.4's `client()` app. Its state is
 * what the protocol says ({@link acpDecide}): a `session/request_permission` waiting for the
 * person is `blocked` as a fact, not read from a screen. `acp-pane.ts` serves it as a pane on a
 * control socket like a PTY session, so the board, `ls`, `wait`, `send`, `answer`, `explain`
 * and notifications follow it unchanged.
 *
 * The client advertises no capability it does not implement: no `fs`, no `terminal` (the
 * agent then reads and writes files and runs commands itself, and asks permission for them).
 * A permission request is answered only by the person (`answer` with confirmation, or the
 * chat where they type), never automatically; `cancel` sends `session/cancel` and answers
 * every pending request `cancelled`, as the protocol requires of a client.
 *
 * The agent runs in its own process group (Ctrl-C in the chat's terminal reaches us, not it)
 * with `AGENTWATCH_SESSION` and `AGENTWATCH_SOCKET` set, so `answer` run by its tools refuses.
 *
 * Longer than ~400 lines on purpose: one client around one agent process and one connection,
 * whose parts (handshake, permission requests, prompt turns, cancel, exit) all read and change
 * the same pending requests, turn and record; the stdio plumbing (`acp-stdio.ts`) and the
 * pane the host serves (`acp-pane.ts`) are apart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  client,
  type ClientConnection,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { UserError } from '../errors.ts';
import { acpDecide, askOf, oneLine, promptOf } from './acp-state.ts';
import {
  type ConfirmedPrompt,
  lineReader,
  type PermissionAsk,
  type SessionInfo,
} from './protocol.ts';
import type { StateRecord } from './signals.ts';
import { resolveCommand } from './session.ts';
import { GUARD_EXIT, GuardRefusal, newEpisode } from './typing-guard.ts';
import { EventLog } from './event-log.ts';
import { stdioStream } from './acp-stdio.ts';

/** What to start. */
export interface AcpSpec {
  /** Unique id, also the socket's file name. */
  id: string;
  /** Display name. */
  name: string;
  command: string;
  args: string[];
  /** The agent's working directory and the ACP session's `cwd` (absolute; default: ours). */
  cwd?: string;
  /** Extra environment over process.env. */
  env?: Record<string, string>;
  /** The manifest id of the agent ('gemini'), '' when unknown: the board's AGENT column. */
  agent: string;
  /** The control socket's path. */
  socket: string;
}

/** What the chat shows, in the order it happened. */
export type AcpEvent =
  | { type: 'update'; update: SessionUpdate }
  | { type: 'permission'; ask: PermissionAsk }
  | { type: 'answered'; ask: PermissionAsk; outcome: string }
  | { type: 'prompt'; text: string; from: 'chat' | 'send' }
  | { type: 'stop'; stopReason: string }
  | { type: 'error'; message: string }
  /** Something about the session the person should know (its permission mode). */
  | { type: 'note'; message: string }
  | { type: 'stderr'; line: string }
  | { type: 'exit'; code: number; signal?: number };

/** One pending `session/request_permission`, with the function that answers it. */
interface Pending {
  ask: PermissionAsk;
  /** Its prompt episode (`PromptReply.episode`): one per permission request, counted per session. */
  episode: number;
  reply: (response: RequestPermissionResponse) => void;
}

/** The agentwatch version the client names in `initialize` (clientInfo). */
const CLIENT_VERSION = '0.1.0';
/** How long `initialize` and `session/new` may take together, ms (Gemini CLI 0.61 takes ~10 s at its first start). */
const HANDSHAKE_TIMEOUT_MS = 120_000;
/** How long a failed handshake waits for the agent's exit to explain it, ms. */
const EXIT_WAIT_MS = 500;
/** Lines of the chat's transcript kept for `screen` and `explain`. */
const TRANSCRIPT_LINES = 200;
/** Time an agent gets to exit after SIGTERM before SIGKILL, ms. */
const KILL_GRACE_MS = 1000;
/** Signal numbers for an exit by signal (Linux and macOS agree on these). */
const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** ms since the epoch, with sub-ms precision (for the latency figures). */
export const preciseNow = (): number => performance.timeOrigin + performance.now();

/** An agent spoken to over ACP (served as a pane by `acp-pane.ts`). */
export class AcpSession {
  readonly startedAt = Date.now();
  /** Resolves once `initialize` and `session/new` answered; rejects (UserError) when they fail. */
  readonly ready: Promise<void>;
  /** Time of the last message from the agent, ms since the epoch. */
  lastOutput = 0;
  exit: { code: number; signal?: number } | null = null;
  readonly #child: ChildProcess;
  readonly #conn: ClientConnection;
  #sessionId = '';
  #ready = false;
  #turn = false;
  #stopReason?: string;
  #error?: string;
  readonly #pending: Pending[] = [];
  /** Permission requests received so far: the last one's prompt episode. */
  #episodes = 0;
  #record: StateRecord;
  #publishedKey = '';
  /** When the person last prompted or answered, ms (the notifier's `lastInput`). */
  #lastInput?: number;
  readonly #changeListeners = new Set<(prev: StateRecord) => void>();
  readonly #eventListeners = new Set<(e: AcpEvent) => void>();
  readonly #events = new EventLog();
  readonly #transcript: string[] = [];
  readonly #exited: Promise<void>;

  /**
   * Starts `spec.command` with pipes for stdio and begins the ACP handshake (see {@link ready}).
   * @throws UserError (127) when the command is not found.
   */
  constructor(readonly spec: AcpSpec) {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    Object.assign(env, spec.env ?? {}, {
      AGENTWATCH_SESSION: spec.id,
      AGENTWATCH_SOCKET: spec.socket,
    });
    resolveCommand(spec.command, env);
    this.#record = { state: 'idle', since: Date.now(), reason: 'starting the agent', by: 'acp' };
    this.#child = spawn(spec.command, spec.args, {
      cwd: spec.cwd ?? process.cwd(),
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // its own process group: the chat's Ctrl-C is ours to turn into session/cancel
    });
    this.#exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        this.#onExit(code ?? 0, signal ? SIGNALS[signal] ?? 1 : undefined);
        resolve();
      });
      this.#child.once('error', (e) => {
        this.#error = `cannot start '${spec.command}': ${e.message}`;
        this.#onExit(127);
        resolve();
      });
    });
    this.#child.stdin!.on('error', () => {}); // EPIPE once the agent is gone: its exit says it
    this.#child.stderr!.on(
      'data',
      lineReader((line) => this.#emit({ type: 'stderr', line }), () => {}),
    );
    this.#conn = this.#connect();
    this.ready = this.#handshake();
    this.ready.catch(() => {}); // the caller awaits it; an unhandled rejection must not crash us
  }

  get id(): string {
    return this.spec.id;
  }

  get socket(): string {
    return this.spec.socket;
  }

  /** The agent process's pid (0 when it could not be started). */
  get pid(): number {
    return this.#child.pid ?? 0;
  }

  /** The ACP session id from `session/new`, '' before it. */
  get sessionId(): string {
    return this.#sessionId;
  }

  /** Pending permission requests, oldest first. */
  get pending(): PermissionAsk[] {
    return this.#pending.map((p) => p.ask);
  }

  /**
   * The prompt episode of the oldest pending permission request (the one `answer` answers): a
   * number given to each request as it arrives, so a confirmation of one request never answers
   * another asking the same; 0 when none is pending.
   */
  get pendingEpisode(): number {
    return this.#pending[0]?.episode ?? 0;
  }

  /** The SDK's client app on the agent's stdio, with a tap that reports lines that are not JSON. */
  #connect(): ClientConnection {
    const child = this.#child;
    const stream = stdioStream(child, {
      // The SDK answers it with a JSON-RPC parse error and reads on; the person is told.
      onBadLine: (line) =>
        this.#fail(`the agent sent a line that is not JSON: ${oneLine(line, 120)}`),
      onOverLong: () => this.#fail('the agent sent a line longer than 1 MB'),
    });
    return client({ name: 'agentwatch' })
      .onRequest('session/request_permission', (ctx) => this.#onPermission(ctx.params, ctx.signal))
      .onNotification('session/update', (ctx) => {
        if (ctx.params.sessionId !== this.#sessionId) return;
        this.lastOutput = Date.now();
        this.#emit({ type: 'update', update: ctx.params.update });
      })
      .connect(stream);
  }

  async #handshake(): Promise<void> {
    // An agent that never answers (a command that is not an ACP agent: `gemini` without
    // --acp draws its screen on stdout) fails the handshake instead of hanging the chat.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), HANDSHAKE_TIMEOUT_MS);
    const options = { cancellationSignal: timeout.signal, stopWaitingOnCancel: true };
    try {
      await this.#conn.agent.request('initialize', {
        protocolVersion: PROTOCOL_VERSION,
        // Only what is implemented: no fs, no terminal (issue 12; ACP "Initialization").
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'agentwatch', version: CLIENT_VERSION },
      }, options);
      const created = await this.#conn.agent.request('session/new', {
        cwd: this.spec.cwd ?? process.cwd(),
        mcpServers: [],
      }, options);
      this.#sessionId = created.sessionId;
      this.#ready = true;
      this.log(`session/new: ${created.sessionId}`);
      // The mode decides which tool calls ask the person (Qwen Code 0.24 starts in "auto",
      // where its classifier approves by itself): say which one is in force.
      const modes = created.modes;
      const mode = modes?.availableModes.find((m) => m.id === modes.currentModeId);
      if (modes && mode) {
        this.#emit({
          type: 'note',
          message: `mode: ${oneLine(mode.name, 40)}${
            mode.description ? ` (${oneLine(mode.description, 120)})` : ''
          }`,
        });
      }
      this.#publish();
    } catch (e) {
      // A write to an agent that is exiting fails (EPIPE) before its exit is seen: wait a
      // moment for the exit, which says more.
      await Promise.race([this.#exited, new Promise((r) => setTimeout(r, EXIT_WAIT_MS))]);
      const code = (e as { code?: unknown })?.code;
      const message = this.exit
        ? `the agent exited during the ACP handshake (${this.#record.reason})`
        : timeout.signal.aborted
        ? `no answer to the ACP handshake within ${HANDSHAKE_TIMEOUT_MS / 1000} s: ` +
          `does '${this.spec.command}' speak ACP (gemini --acp, qwen --acp, opencode acp)?`
        : code === -32000
        ? `ACP handshake failed: ${errorText(e)}; log in with the agent itself first ` +
          '(or set its API key), then try again'
        : `ACP handshake failed: ${errorText(e)}`;
      this.#error ??= message;
      this.#publish();
      throw new UserError(message);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Handles a `session/request_permission`: pending (blocked) until the person answers. */
  #onPermission(
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const ask = askOf(
      params as unknown as Parameters<typeof askOf>[0],
      preciseNow(),
    );
    this.lastOutput = Date.now();
    return new Promise((resolve) => {
      const entry: Pending = { ask, reply: resolve, episode: ++this.#episodes };
      if (this.exit) {
        resolve({ outcome: { outcome: 'cancelled' } });
        return;
      }
      this.#pending.push(entry);
      this.log(
        `session/request_permission received: ${ask.toolCall.kind} ${ask.toolCall.title} (${ask.toolCall.toolCallId})`,
      );
      // The agent withdrew it ($/cancel_request) or the connection closed: no longer pending.
      signal.addEventListener('abort', () => {
        if (this.#drop(entry)) {
          this.log(`permission request withdrawn: ${ask.toolCall.title}`);
          this.#publish();
        }
      }, { once: true });
      this.#emit({ type: 'permission', ask });
      this.#publish();
    });
  }

  #drop(entry: Pending): boolean {
    const i = this.#pending.indexOf(entry);
    if (i < 0) return false;
    this.#pending.splice(i, 1);
    return true;
  }

  #onExit(code: number, signal?: number): void {
    if (this.exit) return;
    this.exit = { code, signal };
    this.#turn = false;
    const dropped = this.#pending.splice(0);
    if (dropped.length) this.log(`${dropped.length} pending permission request(s) dropped`);
    this.log(`agent exited (${signal ? `signal ${signal}` : `code ${code}`})`);
    this.#emit({ type: 'exit', code, signal });
    this.#publish();
    this.#conn.close();
  }

  #fail(message: string): void {
    this.log(message);
    this.#emit({ type: 'error', message });
  }

  /** Adds a line to the session's event log (see {@link EventLog}). */
  log(line: string): void {
    this.#events.log(line);
  }

  /** The event log, oldest first. */
  events(): string[] {
    return this.#events.events();
  }

  /**
   * Adds `text` (already printable, as the chat printed it) to the transcript `screen` and
   * `explain` show; text after a chunk that did not end its line continues that line.
   */
  transcribe(text: string): void {
    // The last element is the line being written ('' after a newline).
    const lines = text.split('\n');
    if (this.#transcript.length) this.#transcript[this.#transcript.length - 1] += lines.shift();
    this.#transcript.push(...lines);
    while (this.#transcript.length > TRANSCRIPT_LINES) this.#transcript.shift();
  }

  /** Calls `listener` with everything the chat shows; returns a function that removes it. */
  onEvent(listener: (e: AcpEvent) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  onChange(listener: (prev: StateRecord) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  #emit(e: AcpEvent): void {
    for (const l of this.#eventListeners) {
      try {
        l(e);
      } catch {
        // a listener's failure never disturbs the session
      }
    }
  }

  /** Decides the state afresh and tells the listeners when what is published changed. */
  #publish(): void {
    const d = acpDecide({
      exit: this.exit,
      pending: this.pending,
      turn: this.#turn,
      stopReason: this.#stopReason,
      error: this.#error,
      ready: this.#ready,
    });
    const prev = this.#record;
    if (d.state !== prev.state || d.reason !== prev.reason) {
      this.#record = {
        state: d.state,
        since: d.state === prev.state ? prev.since : Date.now(),
        reason: d.reason,
        by: 'acp',
      };
    }
    const info = this.info();
    const key = JSON.stringify([info.state, info.reason, info.permissions, info.stopReason]);
    if (key === this.#publishedKey) return;
    this.#publishedKey = key;
    for (const l of this.#changeListeners) {
      try {
        l(prev);
      } catch {
        // a listener's failure never disturbs the session
      }
    }
  }

  info(): SessionInfo {
    const info: SessionInfo = {
      id: this.spec.id,
      name: this.spec.name,
      agent: this.spec.agent,
      state: this.#record.state,
      since: this.#record.since,
      reason: this.#record.reason,
      by: 'acp',
      pid: this.pid,
      command: [this.spec.command, ...this.spec.args],
      foreground: this.exit ? '' : this.spec.command,
      rows: 0,
      cols: 0,
      startedAt: this.startedAt,
      lastOutput: this.lastOutput,
      exit: this.exit,
      host: process.pid,
      socket: this.spec.socket,
    };
    if (this.#stopReason) info.stopReason = this.#stopReason;
    if (this.#lastInput !== undefined) info.lastInput = this.#lastInput;
    if (this.#record.state === 'blocked' && this.#pending.length) {
      const p = promptOf(this.#pending[0].ask);
      info.question = p.question;
      info.options = p.options;
      info.details = p.details;
      info.permissions = this.pending;
    }
    return info;
  }

  /**
   * Sends `text` as a prompt turn (`session/prompt`); resolves with its stopReason.
   * @throws UserError (exit 3) when the session is not idle (a turn or a permission request
   *   is pending) or not ready; UserError when the agent answers the prompt with an error.
   */
  async promptTurn(text: string, from: 'chat' | 'send' = 'chat'): Promise<string> {
    this.checkPromptable();
    this.#turn = true;
    this.#lastInput = Date.now();
    this.#stopReason = undefined;
    this.#error = undefined;
    this.#emit({ type: 'prompt', text, from });
    this.log(`session/prompt sent (${from})`);
    this.#publish();
    try {
      const r = await this.#conn.agent.request('session/prompt', {
        sessionId: this.#sessionId,
        prompt: [{ type: 'text', text }],
      });
      this.#stopReason = String(r.stopReason);
      this.log(`session/prompt answered: stopReason ${r.stopReason}`);
      this.#emit({ type: 'stop', stopReason: this.#stopReason });
      return this.#stopReason;
    } catch (e) {
      if (!this.exit) {
        this.#error = `session/prompt failed: ${errorText(e)}`;
        this.#fail(this.#error);
      }
      throw new UserError(this.#error ?? `the agent exited during the turn`);
    } finally {
      this.#turn = false;
      this.#publish();
    }
  }

  /**
   * Throws unless a prompt turn may start now.
   * @throws GuardRefusal / UserError (exit 3) when a permission request or a turn is pending,
   *   or the session is not ready; UserError when it exited.
   */
  checkPromptable(): void {
    if (this.exit) throw new UserError(`session ${this.id} has exited`);
    if (!this.#ready) {
      throw new UserError(`${this.spec.name} is not ready (${this.#record.reason})`, GUARD_EXIT);
    }
    if (this.#pending.length) {
      const p = promptOf(this.#pending[0].ask);
      throw new GuardRefusal(
        [
          `refused: ${this.spec.name} is waiting for a permission answer; nothing was sent`,
          `  ${p.question}`,
          ...p.options.map((o) => `    ${o}`),
        ].join('\n'),
        p.question,
        p.options,
      );
    }
    if (this.#turn) {
      throw new UserError(
        `refused: ${this.spec.name} is working on a prompt; nothing was sent (cancel it first)`,
        GUARD_EXIT,
      );
    }
  }

  /**
   * Answers the oldest pending permission request with option `index` (0-based), which the
   * person chose; when `expect` is given, only if that request is still the one they confirmed
   * (its prompt, and its episode: {@link pendingEpisode}).
   * @returns the chosen option's text.
   * @throws UserError (exit 3) when nothing is pending or the request is not the one confirmed.
   */
  answerIndex(index: number, expect?: ConfirmedPrompt): string {
    const entry = this.#pending[0];
    if (!entry) {
      throw new UserError(
        `${this.spec.name} is not waiting for an answer (it is ${this.#record.state})`,
        GUARD_EXIT,
      );
    }
    const p = promptOf(entry.ask);
    if (
      expect &&
      (expect.question !== p.question || expect.options.join('\n') !== p.options.join('\n') ||
        (expect.details !== undefined && expect.details.join('\n') !== p.details.join('\n')))
    ) {
      throw new UserError(
        'the pending permission request is not the one you confirmed; nothing was answered',
        GUARD_EXIT,
      );
    }
    // The same request asked again after the one confirmed was answered elsewhere.
    if (expect && expect.episode !== entry.episode) throw newEpisode('nothing was answered');
    const option = entry.ask.options[index];
    if (!option) throw new UserError(`no option ${index + 1}`);
    this.#lastInput = Date.now();
    this.#drop(entry);
    entry.reply({ outcome: { outcome: 'selected', optionId: option.optionId } });
    this.log(`answered ${entry.ask.toolCall.title}: ${option.optionId} (${option.kind})`);
    this.#emit({ type: 'answered', ask: entry.ask, outcome: `${option.name} (${option.kind})` });
    this.#publish();
    return p.options[index];
  }

  /**
   * The person cancels the turn: every pending permission request is answered `cancelled`
   * and `session/cancel` is sent (ACP "Cancellation": the client must answer pending
   * requests with the cancelled outcome). The turn ends when the agent answers the prompt
   * (stopReason `cancelled`).
   * @returns the number of permission requests answered `cancelled`.
   * @throws UserError when the session exited or has no turn in flight.
   */
  cancel(): number {
    if (this.exit) throw new UserError(`session ${this.id} has exited`);
    if (!this.#turn && !this.#pending.length) {
      throw new UserError(`${this.spec.name} has no turn to cancel (it is ${this.#record.state})`);
    }
    const cancelled = this.#pending.splice(0);
    for (const p of cancelled) {
      p.reply({ outcome: { outcome: 'cancelled' } });
      this.#emit({ type: 'answered', ask: p.ask, outcome: 'cancelled' });
    }
    if (this.#sessionId) {
      this.#conn.agent.notify('session/cancel', { sessionId: this.#sessionId }).catch(() => {});
    }
    this.log(`session/cancel sent; ${cancelled.length} permission request(s) answered cancelled`);
    this.#publish();
    return cancelled.length;
  }

  /** Its state as last decided (by the protocol's facts, {@link acpDecide}). */
  get record(): StateRecord {
    return this.#record;
  }

  /** Decides the state afresh (listeners hear of a change); returns it. */
  decide(): StateRecord {
    this.#publish();
    return this.#record;
  }

  /** The chat's transcript, oldest line first (at most {@link TRANSCRIPT_LINES}). */
  get transcript(): readonly string[] {
    return this.#transcript;
  }

  /**
   * Ends the agent: closes its stdin (ACP agents exit at EOF), then SIGTERM to its process
   * group, then SIGKILL after {@link KILL_GRACE_MS}; resolves once it exited.
   */
  async close(): Promise<void> {
    if (this.exit) return;
    this.#child.stdin!.end();
    const group = (sig: NodeJS.Signals) => {
      try {
        process.kill(-this.pid, sig);
      } catch {
        try {
          this.#child.kill(sig);
        } catch {
          // already gone
        }
      }
    };
    const term = setTimeout(() => group('SIGTERM'), 200);
    const kill = setTimeout(() => group('SIGKILL'), 200 + KILL_GRACE_MS);
    await this.#exited;
    clearTimeout(term);
    clearTimeout(kill);
  }

  /** Resolves once the agent process exited. */
  exited(): Promise<void> {
    return this.#exited;
  }
}

/** An error's message, with a JSON-RPC error's data when it has some. */
function errorText(e: unknown): string {
  const err = e as { message?: string; data?: unknown };
  const data = err?.data === undefined ? '' : ` (${oneLine(JSON.stringify(err.data), 200)})`;
  return oneLine(err?.message ?? String(e), 200) + data;
}
