/**
 * `agentwatch watch [--json] [--agent ID] [-- CMD ARGS... [-- CMD ...]]`: the live board of every
 * session on this machine.
 *
 * * Sessions of `agentwatch run` in other terminals (and of other watches) are found in the
 *   socket directory, which is read every second, and followed with `subscribe`.
 * * Sessions this watch starts (each `-- CMD ...` group, or the `n` key) run headless in this
 *   process's {@link SessionHost}; they end when the watch quits.
 *
 * The board (alternate screen, restored on exit, signal and crash) shows one row per session
 * (see `board.ts`), redrawn when something changes, at most 10 times a second, and every
 * second for the times in state. Keys: ↑/↓ or k/j select, Enter attaches (the session's
 * redraw, then raw bytes both ways over the socket's `attach`; Ctrl-] detaches; resizes are
 * forwarded with `resize`), a answers the selected session's prompt (1-9: with option N), n
 * starts a session, x clears the rows of sessions whose process is gone (they also go by
 * themselves {@link GONE_ROW_MS} after), q quits (asks first when sessions hosted here are
 * still alive).
 *
 * Answering (the typing guard's `prompt` and `answer` ops, as `agentwatch answer` uses them):
 * `a` on a blocked session reads its prompt and opens a confirmation panel at the bottom (what
 * it is about: the command, the file; the question, the options with the chosen one marked,
 * "Answer '<option>'? y/N"); ↑/↓ (or a digit) change the choice, `y` sends `answer` with the
 * prompt exactly as shown as `expect` (the session classifies afresh right before writing and
 * refuses when the prompt is not that one any more; the board itself refuses when the
 * session's latest info tells other details with the same question and options); `n`, Esc,
 * Enter, q or Ctrl-C cancel. The result (answered, or refused with the
 * reason) goes to the status line. On a session that is not blocked the key only says so.
 *
 * `--json` (and any run without a terminal on stdin and stdout) prints one JSON object per
 * line instead: `{t, id, name, agent, state, prev, since, question}` for every state change,
 * and once for every session when first seen (`prev: null`); `t` and `since` in ms since the
 * epoch, `question` null unless blocked. It runs until SIGINT, SIGTERM or SIGHUP.
 */
import { readdirSync, statSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';
import { type Command, type Io, stringList, stringOption, UsageError } from './command.ts';
import {
  notifyOptionHelp,
  notifyOptionSpec,
  notifySettings,
  optionPlaceholders,
  sourceOptionHelp,
  sourceOptionSpec,
  sweepChoice,
  sweepOptionHelp,
  sweepOptionSpec,
} from './sweep-options.ts';
import {
  type AnswerPanel,
  BOARD_HELP,
  detailsChanged,
  processGone,
  renderBoard,
  SOCKET_CLOSED_BY,
  sortSessions,
  WATCH_KEYS,
} from './board.ts';
import { createHost } from '../runtime/default-host.ts';
import { loadConfig } from '../runtime/config.ts';
import type { SessionHost } from '../runtime/host.ts';
import { listSessions, request, subscribe } from '../runtime/control-client.ts';
import { checkSocketDir, socketDir } from '../runtime/paths.ts';
import type { SessionInfo } from '../runtime/protocol.ts';
import type { SessionState } from '../detect/types.ts';
import { type NewSession, parseNewSession } from './new-session.ts';
import { createNotifier, Notifier } from '../runtime/notify.ts';
import { GUARD_EXIT } from '../runtime/typing-guard.ts';

/** How often the socket directory is read for new sessions, ms. */
export const POLL_MS = 1000;
/** Shortest time between two board frames, ms (at most 10 a second). */
export const FRAME_MS = 100;
/** How long the board keeps the row of a session whose process is gone, ms. */
export const GONE_ROW_MS = 10 * 60_000;

/** One JSON line of `watch --json`. */
export interface TransitionEvent {
  /** When it was seen, ms since the epoch. */
  t: number;
  id: string;
  name: string;
  agent: string;
  state: SessionState;
  /** The state before; null the first time a session is seen. */
  prev: SessionState | null;
  /** When the state began, ms since the epoch. */
  since: number;
  question: string | null;
}

/** The JSON line for a state change. */
export function transitionEvent(
  info: SessionInfo,
  prev: SessionState | null,
  t = Date.now(),
): TransitionEvent {
  return {
    t,
    id: info.id,
    name: info.name,
    agent: info.agent,
    state: info.state,
    prev,
    since: info.since,
    question: info.state === 'blocked' ? info.question ?? null : null,
  };
}

/**
 * Splits the passthrough part (`-- CMD ARGS... -- CMD ...`, as main passes it) into commands.
 * Every `--` starts a new command, so a command cannot itself take a `--` argument.
 * @throws UsageError for arguments before the first `--` or an empty group.
 */
export function splitGroups(positionals: string[]): string[][] {
  if (!positionals.length) return [];
  if (positionals[0] !== '--') {
    throw new UsageError(
      `put each command after '--': agentwatch watch -- ${positionals.join(' ')}`,
    );
  }
  const groups: string[][] = [];
  for (const p of positionals) {
    if (p === '--') groups.push([]);
    else groups[groups.length - 1].push(p);
  }
  if (groups.some((g) => !g.length)) throw new UsageError("an empty command after '--'");
  return groups;
}

/**
 * Splits a command line typed at the board into words: blanks separate, '...' and "..."
 * quote, a backslash escapes the next character. No variables, globs or pipes.
 * @throws UsageError for an unterminated quote.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let has = false;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) words.push(word);
      word = '';
      has = false;
    } else {
      word += c;
      has = true;
    }
  }
  if (quote) throw new UsageError(`unterminated ${quote} quote`);
  if (has) words.push(word);
  return words;
}

interface Followed {
  info: SessionInfo;
  /** Hosted by this process. */
  local: boolean;
  /** True once `onChange` was called for it. */
  announced: boolean;
  /** The subscription of a session hosted elsewhere, while open. */
  socket?: Socket;
  /** When the book first saw its process gone (see {@link processGone}), ms since the epoch. */
  goneAt?: number;
}

/** How a {@link SessionBook} is set up. */
export interface BookOptions {
  /** The host of this process's own sessions. */
  host: SessionHost;
  /** The socket directory to read (default: {@link socketDir}). */
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
 * Every session the board shows: those hosted here (from the host's transitions) and those
 * hosted elsewhere (found in the socket directory, followed by subscription). A session seen
 * once stays, as `exited` when its socket closes without saying so, until
 * {@link SessionBook.clearGone} clears it.
 */
export class SessionBook {
  readonly followed = new Map<string, Followed>();
  readonly dir: string;
  /** Ids of sessions cleared: not followed again (another watch may still list them). */
  readonly #cleared = new Set<string>();
  #timer?: ReturnType<typeof setInterval>;
  #polling = false;
  #closed = false;
  #offTransition: () => void;

  constructor(readonly options: BookOptions) {
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

  /** Starts reading the socket directory (now, then every {@link POLL_MS}). */
  start(): void {
    if (this.options.remote === false) return;
    void this.poll();
    this.#timer = setInterval(() => void this.poll(), POLL_MS);
    this.#timer.unref?.();
  }

  /** Registers a session this process just started on its host. */
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

  /** The sessions now, hosted ones read afresh from the host. */
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
   * live shells included, stay. Returns the infos cleared. `infos`: this book's
   * {@link infos} when the caller has just taken them (read once per frame).
   */
  clearGone(goneBy = Infinity, infos: readonly SessionInfo[] = this.infos()): SessionInfo[] {
    const cleared: SessionInfo[] = [];
    for (const i of infos) {
      const f = this.followed.get(i.id)!;
      if (f.goneAt === undefined || f.goneAt > goneBy) continue;
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
   * agent reads `exited` and still ends with the watch.
   */
  liveLocal(): SessionInfo[] {
    return this.infos().filter((i) => this.followed.get(i.id)?.local && !processGone(i));
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
        return; // no directory yet: nobody has started a session
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
      // the directory changed under us: the next poll reads it again
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
        e.info = {
          ...e.info,
          state: 'exited',
          since: prev === 'exited' ? e.info.since : Date.now(),
          reason: 'its control socket closed',
          by: SOCKET_CLOSED_BY,
          question: undefined,
          options: undefined,
          details: undefined,
        };
        this.#noteGone(e);
        this.options.onUpdate?.(e.info);
        if (prev !== 'exited') this.options.onChange(e.info, prev);
      },
      { alerts: this.options.alerts === true },
    );
    if (!known) this.followed.set(first.id, e);
  }

  /** Stops reading the directory and closes every subscription. */
  close(): void {
    this.#closed = true;
    this.#offTransition();
    if (this.#timer) clearInterval(this.#timer);
    for (const f of this.followed.values()) f.socket?.destroy();
  }
}

/** Undoes what an attached agent may have left on: mouse, paste, focus modes, SGR. */
const RESTORE_MODES = '\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[0m';
const ENTER_BOARD = '\x1b[?1049h\x1b[?25l\x1b[2J';
const LEAVE_BOARD = RESTORE_MODES + '\x1b[2J\x1b[?25h\x1b[?1049l';
const CTRL_BRACKET = 0x1d;

/** How a {@link BoardUi} is set up. */
export interface BoardUiOptions {
  book: SessionBook;
  /** Starts a session from a typed command line (the `n` key); throws UserError/UsageError. */
  startSession?: (s: NewSession) => Promise<void>;
  /** Ask before quitting while hosted sessions are alive (default true). */
  confirmQuit?: boolean;
  title?: string;
  keys?: string;
  /** Extra status text (the demo's countdown), read on every frame. */
  status?: () => string | undefined;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

type Mode = 'board' | 'input' | 'confirm' | 'attached' | 'answer';

/** The answer panel's state: what is drawn, plus the session's control socket. */
type OpenPanel = AnswerPanel & { socket: string };

/** The prompt as the `prompt` op returns it (`details` from hosts that read them). */
interface PromptReply {
  question: string;
  options: string[];
  selected: number;
  details?: string[];
  /** True when what the prompt approves is not all visible in the pane (readPrompt). */
  detailsCut?: boolean;
}

/** Whether `p` has the shape of a {@link PromptReply} (a session answers what it likes). */
function promptReplyOk(p: unknown): p is PromptReply {
  const r = p as Record<string, unknown> | null;
  const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  return typeof r === 'object' && r !== null && typeof r.question === 'string' &&
    strings(r.options) && typeof r.selected === 'number' &&
    (r.details === undefined || strings(r.details));
}

/** How long reading a prompt and answering it may take, ms (as `agentwatch answer`). */
const PROMPT_TIMEOUT_MS = 5000;
const ANSWER_TIMEOUT_MS = 10_000;

/**
 * The board's status line part about notifications that fail: this process's channels, then
 * those of the hosts of the sessions shown (their `notify` field), each channel once:
 * 'notify failed: desktop (notify-send exited with code 1: Cannot autolaunch D-Bus ...)'.
 * undefined when every channel works.
 */
export function notifyStatus(
  own: Partial<Record<string, string>>,
  infos: readonly SessionInfo[],
): string | undefined {
  const seen = new Map<string, string>();
  for (const [c, why] of Object.entries(own)) if (why) seen.set(c, why);
  for (const i of infos) {
    for (const [c, why] of Object.entries(i.notify ?? {})) {
      if (why && !seen.has(c)) seen.set(c, `${i.name}: ${why}`);
    }
  }
  if (!seen.size) return undefined;
  return `notify failed: ${[...seen].map(([c, why]) => `${c} (${why})`).join(', ')}`;
}

/** The first line of an error's message (refusals list the prompt on further lines). */
function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0];
}

/**
 * The interactive board on the person's terminal; see the file comment. `done` resolves when
 * the person quits (or {@link BoardUi.quit} is called); {@link BoardUi.restore} gives the
 * terminal back and is safe to call more than once.
 */
export class BoardUi {
  readonly done: Promise<void>;
  #resolveDone!: () => void;
  #mode: Mode = 'board';
  #selected?: string;
  #input = '';
  #message = '';
  /** The answer panel while the mode is `answer`. */
  #panel: OpenPanel | null = null;
  #lastFrame = '';
  #lastFrameAt = 0;
  #frameTimer?: ReturnType<typeof setTimeout>;
  #tick?: ReturnType<typeof setInterval>;
  #attached: Socket | null = null;
  #restored = true;
  readonly #stdin: NodeJS.ReadStream;
  readonly #stdout: NodeJS.WriteStream;
  readonly #onKeys = (d: Buffer) => this.#keys(d);
  readonly #onResize = () => this.#resized();

  constructor(readonly options: BoardUiOptions) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.done = new Promise((r) => (this.#resolveDone = r));
  }

  /** Takes the terminal: alternate screen, raw keys, first frame. */
  start(): void {
    this.#restored = false;
    this.#stdout.write(ENTER_BOARD);
    this.#stdin.setRawMode?.(true);
    this.#stdin.on('data', this.#onKeys);
    this.#stdin.resume();
    this.#stdout.on('resize', this.#onResize);
    this.#tick = setInterval(() => this.render(), 1000);
    this.render(true);
  }

  /** Gives the terminal back (main screen, cursor, cooked mode). Idempotent. */
  restore(): void {
    if (this.#restored) return;
    this.#restored = true;
    if (this.#tick) clearInterval(this.#tick);
    if (this.#frameTimer) clearTimeout(this.#frameTimer);
    this.#attached?.destroy();
    this.#stdin.off('data', this.#onKeys);
    this.#stdout.off('resize', this.#onResize);
    try {
      this.#stdout.write(LEAVE_BOARD);
      this.#stdin.setRawMode?.(false);
    } catch {
      // the terminal is gone
    }
    this.#stdin.pause();
  }

  /** Ends the board (as q does, without asking). */
  quit(): void {
    this.#resolveDone();
  }

  /** Asks for a frame: drawn now, or within {@link FRAME_MS} of the last one. */
  requestRender(): void {
    if (this.#frameTimer || this.#restored) return;
    const wait = Math.max(0, this.#lastFrameAt + FRAME_MS - Date.now());
    this.#frameTimer = setTimeout(() => {
      this.#frameTimer = undefined;
      this.render();
    }, wait);
  }

  /** Paints the board if it changed (or always with `force`). */
  render(force = false): void {
    if (this.#restored || this.#mode === 'attached') return;
    // Rows of processes gone for GONE_ROW_MS go by themselves (x clears them at once); an
    // answer panel open on one closes.
    // The sessions' infos are taken once per frame.
    const all = this.options.book.infos();
    const gone = new Set<string>();
    for (const g of this.options.book.clearGone(Date.now() - GONE_ROW_MS, all)) {
      gone.add(g.id);
      if (this.#panel?.id === g.id) this.#closePanel(this.#panel, `${g.name} is gone`);
    }
    const infos = sortSessions(gone.size ? all.filter((i) => !gone.has(i.id)) : all);
    if (!infos.some((i) => i.id === this.#selected)) this.#selected = infos[0]?.id;
    const width = this.#stdout.columns || 80;
    const height = this.#stdout.rows || 24;
    const extra = this.options.status?.();
    const status = this.#mode === 'confirm'
      ? this.#message
      : [this.#message, extra].filter(Boolean).join(' · ') || undefined;
    const lines = renderBoard(infos, {
      now: Date.now(),
      width,
      height,
      selected: this.#selected,
      title: this.options.title,
      keys: this.options.keys ?? WATCH_KEYS,
      status,
      input: this.#mode === 'input'
        ? { label: 'new session ([--name N] [--agent ID] [--cwd DIR] CMD): ', text: this.#input }
        : undefined,
      answer: this.#mode === 'answer' && this.#panel ? this.#panel : undefined,
      color: !process.env.NO_COLOR,
    });
    const frame = lines.map((l, y) => `\x1b[${y + 1};1H${l}\x1b[K`).join('');
    this.#lastFrameAt = Date.now();
    if (!force && frame === this.#lastFrame) return;
    this.#lastFrame = frame;
    this.#stdout.write(frame);
  }

  #resized(): void {
    if (this.#mode === 'attached' && this.#attachedInfo) {
      void request(this.#attachedInfo.socket, {
        op: 'resize',
        rows: this.#stdout.rows,
        cols: this.#stdout.columns,
      }).catch(() => {});
      return;
    }
    this.#stdout.write('\x1b[2J');
    this.render(true);
  }

  #attachedInfo: SessionInfo | null = null;
  /** True once the attached session answered `{ok: true}`: raw bytes may flow. */
  #attachReady = false;
  #attachQueue: Buffer[] = [];

  #keys(data: Buffer): void {
    if (this.#mode === 'attached') {
      const at = data.indexOf(CTRL_BRACKET);
      const before = at >= 0 ? data.subarray(0, at) : data;
      if (before.length && this.#attached && !this.#attached.destroyed) {
        if (this.#attachReady) this.#attached.write(before);
        else this.#attachQueue.push(Buffer.from(before)); // sent once the session said ok
      }
      if (at >= 0) this.#detach();
      return;
    }
    const text = data.toString('utf8');
    let i = 0;
    while (i < text.length) {
      const m = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|O[A-Z])/.exec(text.slice(i));
      const key = m ? m[0] : text[i];
      i += key.length;
      this.#key(key);
      if ((this.#mode as Mode) === 'attached') {
        // keys typed after Enter in the same chunk belong to the session
        const rest = Buffer.from(text.slice(i), 'utf8');
        if (rest.length) this.#keys(rest);
        return;
      }
    }
  }

  #key(key: string): void {
    if (this.#mode === 'input') {
      if (key === '\r' || key === '\n') void this.#submit();
      else if (key === '\x1b' || key === '\x03') this.#mode = 'board';
      else if (key === '\x7f' || key === '\b') this.#input = [...this.#input].slice(0, -1).join('');
      else if (key === '\x15') this.#input = '';
      else if (key.length === 1 && key >= ' ') this.#input += key;
      else if (key.length > 1 && !key.startsWith('\x1b')) this.#input += key;
      this.render();
      return;
    }
    if (this.#mode === 'answer') {
      this.#answerKey(key);
      return;
    }
    if (this.#mode === 'confirm') {
      this.#mode = 'board';
      this.#message = '';
      if (key === 'y' || key === 'Y') this.quit();
      else this.render();
      return;
    }
    const infos = sortSessions(this.options.book.infos());
    const at = infos.findIndex((i) => i.id === this.#selected);
    this.#message = '';
    switch (key) {
      case '\x1b[A':
      case '\x1bOA':
      case 'k':
        if (infos.length) this.#selected = infos[Math.max(0, at - 1)].id;
        break;
      case '\x1b[B':
      case '\x1bOB':
      case 'j':
        if (infos.length) this.#selected = infos[Math.min(infos.length - 1, at + 1)].id;
        break;
      case '\r':
      case '\n': {
        const info = infos[at];
        if (!info) break;
        if (processGone(info)) this.#message = `session ${info.name} has ended`;
        else this.#attach(info);
        break;
      }
      case 'x': {
        const cleared = this.options.book.clearGone();
        const shells = infos.filter((i) => i.state === 'exited' && !processGone(i)).length;
        this.#message =
          (cleared.length
            ? `cleared ${cleared.length} exited session${cleared.length === 1 ? '' : 's'}`
            : 'no exited session to clear') +
          (shells ? ` (${shells} with a shell still running stay${shells === 1 ? 's' : ''})` : '');
        break;
      }
      case 'n':
        if (this.options.startSession) {
          this.#mode = 'input';
          this.#input = '';
        }
        break;
      case 'a':
        this.#openAnswer(infos[at]);
        break;
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9':
        this.#openAnswer(infos[at], Number(key) - 1);
        break;
      case 'q':
      case '\x03': {
        const alive = this.options.book.liveLocal();
        if (alive.length && this.options.confirmQuit !== false) {
          this.#mode = 'confirm';
          this.#message = `${alive.length} session${
            alive.length === 1 ? '' : 's'
          } started here will be ended (${alive.map((i) => i.name).join(', ')}). Quit? y/n`;
        } else this.quit();
        break;
      }
      default:
        return;
    }
    this.render();
  }

  /**
   * The `a` (or digit) key on `info`: on a blocked session, opens the answer panel and reads
   * the prompt (`choice`, 0-based, preselects an option; else the one selected on screen);
   * otherwise only says that it does not wait for an answer.
   */
  #openAnswer(info: SessionInfo | undefined, choice?: number): void {
    if (!info) {
      this.#message = 'no session to answer';
      return;
    }
    if (info.state !== 'blocked') {
      this.#message = `${info.name} is not waiting for an answer (it is ${info.state})`;
      return;
    }
    const panel: OpenPanel = {
      id: info.id,
      name: info.name,
      socket: info.socket,
      phase: 'reading',
      choice: choice ?? 0,
    };
    this.#panel = panel;
    this.#mode = 'answer';
    const close = (message: string) => {
      this.#closePanel(panel, message);
      this.render();
    };
    request<unknown>(info.socket, { op: 'prompt' }, PROMPT_TIMEOUT_MS).then((p) => {
      if (this.#panel !== panel) return; // cancelled meanwhile
      if (!promptReplyOk(p)) {
        close(`${info.name} answered the prompt request with something unreadable`);
        return;
      }
      if (!p.options.length) {
        close(`${info.name} is blocked but shows no numbered options; answer in its pane (Enter)`);
        return;
      }
      if (choice !== undefined && choice >= p.options.length) {
        close(`${info.name}'s prompt has no option ${choice + 1}: ${p.options.join(' | ')}`);
        return;
      }
      panel.question = p.question;
      panel.options = p.options;
      panel.details = p.details ?? [];
      panel.detailsCut = p.detailsCut === true;
      panel.choice = choice ?? Math.max(0, p.selected);
      panel.phase = 'choosing';
      this.render();
    }, (e) => {
      if (this.#panel === panel) close(firstLine(e));
    });
  }

  /** Closes `panel` if it is still the open one, with `message` on the status line. */
  #closePanel(panel: OpenPanel, message: string): void {
    if (this.#panel !== panel) return;
    this.#panel = null;
    if (this.#mode === 'answer') this.#mode = 'board';
    this.#message = message;
  }

  /**
   * A key while the answer panel is open: ↑/↓ (k/j) or a digit choose, y sends, n, Esc,
   * Enter, q or Ctrl-C cancel. While the prompt is read only cancelling works (a `y` typed
   * before the panel showed the prompt confirms nothing); while the answer is on its way,
   * nothing does.
   */
  #answerKey(key: string): void {
    const panel = this.#panel;
    if (!panel) {
      this.#mode = 'board';
      this.render();
      return;
    }
    if (panel.phase === 'sending') return;
    const cancel = ['n', 'N', '\x1b', '\r', '\n', 'q', '\x03'].includes(key);
    if (cancel) {
      this.#closePanel(panel, `${panel.name}: not answered`);
      this.render();
      return;
    }
    if (panel.phase !== 'choosing' || !panel.options) return;
    const last = panel.options.length - 1;
    if (key === '\x1b[A' || key === '\x1bOA' || key === 'k') {
      panel.choice = Math.max(0, panel.choice - 1);
    } else if (key === '\x1b[B' || key === '\x1bOB' || key === 'j') {
      panel.choice = Math.min(last, panel.choice + 1);
    } else if (/^[1-9]$/.test(key) && Number(key) - 1 <= last) {
      panel.choice = Number(key) - 1;
    } else if (key === 'y' || key === 'Y') {
      const latest = this.options.book.infos().find((i) => i.id === panel.id);
      if (detailsChanged(panel, latest)) {
        // Same question and options about another command: the session's guard would let it
        // through, and the person confirmed the one the panel showed.
        this.#closePanel(
          panel,
          `${panel.name}: not answered: its prompt is now about something else; read it again (a)`,
        );
      } else void this.#sendAnswer(panel);
    } else return;
    this.render();
  }

  /**
   * Sends the `answer` op for the panel's choice, with the prompt as the panel shows it as
   * `expect`; the result goes to the status line.
   */
  async #sendAnswer(panel: OpenPanel): Promise<void> {
    panel.phase = 'sending';
    const options = panel.options ?? [];
    let message: string;
    try {
      const done = await request<{ answered: string }>(panel.socket, {
        op: 'answer',
        choice: String(panel.choice + 1),
        confirmed: true,
        expect: { question: panel.question ?? '', options, details: panel.details },
      }, ANSWER_TIMEOUT_MS);
      message = `answered ${panel.name}: '${done.answered}'`;
    } catch (e) {
      // Exit code 3: the guard refused (not blocked, or not the prompt confirmed).
      const refused = (e as { exitCode?: number }).exitCode === GUARD_EXIT;
      message = `${panel.name}: ${refused ? 'refused' : 'not answered'}: ${firstLine(e)}`;
    }
    this.#closePanel(panel, message);
    this.render();
  }

  async #submit(): Promise<void> {
    const line = this.#input;
    this.#mode = 'board';
    this.#input = '';
    try {
      const typed = parseNewSession(splitCommandLine(line));
      if (!typed.argv.length) return;
      await this.options.startSession!(typed);
      this.#message = `started ${typed.name ? `${typed.name}: ` : ''}${typed.argv.join(' ')}`;
    } catch (e) {
      this.#message = `cannot start: ${(e as Error).message}`;
    }
    this.render();
  }

  /** Full-screen passthrough to `info`'s session until Ctrl-] or the session's end. */
  #attach(info: SessionInfo): void {
    this.#mode = 'attached';
    this.#attachedInfo = info;
    this.#attachReady = false;
    this.#attachQueue = [];
    const sock = createConnection(info.socket);
    this.#attached = sock;
    const fail = (why: string) => {
      if (this.#attached !== sock) return;
      this.#attached = null;
      this.#attachedInfo = null;
      sock.destroy();
      this.#mode = 'board';
      this.#message = `cannot attach to ${info.name}: ${why}`;
      this.render(true);
    };
    sock.on('error', (e) => fail((e as NodeJS.ErrnoException).code ?? e.message));
    let answered = false;
    let pending = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => {
      if (answered) {
        this.#stdout.write(d);
        return;
      }
      pending = Buffer.concat([pending, d]);
      const nl = pending.indexOf(0x0a);
      if (nl < 0) return;
      let answer: { ok?: boolean; error?: string } = {};
      try {
        answer = JSON.parse(pending.subarray(0, nl).toString('utf8'));
      } catch {
        // not an answer line
      }
      if (answer.ok !== true) {
        fail(answer.error ?? 'unexpected answer');
        return;
      }
      answered = true;
      this.#attachReady = true;
      this.#stdout.write('\x1b[0m\x1b[2J\x1b[H\x1b[?25h');
      const rest = pending.subarray(nl + 1);
      if (rest.length) this.#stdout.write(rest);
      for (const q of this.#attachQueue) sock.write(q);
      this.#attachQueue = [];
    });
    sock.on('close', () => {
      if (this.#attached === sock) {
        this.#detach(answered ? `session ${info.name} ended` : undefined);
      }
    });
    sock.on('connect', () => {
      sock.write(
        JSON.stringify({
          op: 'attach',
          rows: this.#stdout.rows || 24,
          cols: this.#stdout.columns || 80,
        }) + '\n',
      );
    });
  }

  #detach(message?: string): void {
    const sock = this.#attached;
    this.#attached = null;
    this.#attachedInfo = null;
    sock?.destroy();
    this.#mode = 'board';
    this.#message = message ?? '';
    if (this.#restored) return;
    this.#stdout.write(RESTORE_MODES + ENTER_BOARD);
    this.render(true);
  }
}

/** Whether `path` is a folder. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Size for headless sessions: the board's terminal, else 32x120 (the captures' size). */
function sessionSize(stdout: NodeJS.WriteStream): { rows: number; cols: number } {
  return stdout.isTTY && stdout.rows && stdout.columns
    ? { rows: stdout.rows, cols: stdout.columns }
    : { rows: 32, cols: 120 };
}

/**
 * Ends every session `host` runs (SIGHUP, as a closed terminal does) and waits for their exits,
 * at most `timeoutMs`, so that their `exited` transitions are still published.
 */
export async function endSessions(host: SessionHost, timeoutMs = 1500): Promise<void> {
  const live = [...host.sessions.values()].map((e) => e.session).filter((s) => !s.exit);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(live.map((s) =>
      new Promise<void>((resolve) => {
        s.onExit(() => resolve());
        s.kill();
      })
    )),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
  ]);
  clearTimeout(timer);
}

/** Resolves on the first of SIGINT, SIGTERM, SIGHUP; returns a function removing the handlers. */
function onStopSignal(stop: (signal: string) => void): () => void {
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => {
    const h = () => stop(sig);
    process.on(sig, h);
    return [sig, h] as const;
  });
  return () => {
    for (const [sig, h] of handlers) process.off(sig, h);
  };
}

/**
 * Keeps the terminal sane if this process crashes while the board is shown: restores it,
 * prints the error, ends the hosted sessions and exits 70. Returns a function that uninstalls.
 */
export function guardTerminal(ui: BoardUi, host: SessionHost, io: Io, label: string): () => void {
  const crash = (e: unknown) => {
    ui.restore();
    io.stderr(`agentwatch ${label}: internal error: ${(e as Error)?.stack ?? e}\n`);
    for (const { session } of host.sessions.values()) session.kill();
    process.exit(70);
  };
  const onExit = () => ui.restore();
  process.on('uncaughtException', crash);
  process.on('exit', onExit);
  return () => {
    process.off('uncaughtException', crash);
    process.off('exit', onExit);
  };
}

export const watchCommand: Command = {
  name: 'watch',
  summary: 'the live board of every agent session on this machine (or --json events)',
  usage:
    'watch [--json] [--name NAME]... [--agent ID] [--manifest FILE]... [--interval MS] [-- CMD ARGS... [-- CMD ARGS...]]',
  notes: BOARD_HELP,
  passthrough: true,
  options: {
    json: { type: 'boolean' },
    name: { type: 'string', multiple: true },
    agent: { type: 'string' },
    ...sourceOptionSpec,
    ...sweepOptionSpec,
    ...notifyOptionSpec,
  },
  placeholders: { agent: 'ID', ...optionPlaceholders },
  help: {
    json: 'print one JSON object per state change instead of the board',
    name: "the name of the session each '-- CMD' starts, in order (repeatable)",
    agent: 'manifest id for the sessions started here whose process is not recognised',
    ...sourceOptionHelp,
    ...sweepOptionHelp,
    ...notifyOptionHelp,
  },
  async run(values, positionals, io) {
    checkSocketDir(socketDir()); // refuse a folder we cannot trust before showing anything
    const groups = splitGroups(positionals);
    const agent = stringOption(values, 'agent');
    const names = stringList(values, 'name');
    if (names.length > groups.length) {
      throw new UsageError(
        `${names.length} --name for ${groups.length} command${groups.length === 1 ? '' : 's'}: ` +
          "each --name names the next '-- CMD', in order",
      );
    }
    const stdin = process.stdin;
    const stdout = process.stdout;
    const json = values.json === true || !(stdin.isTTY && stdout.isTTY);
    const host = createHost(sweepChoice(values), process.env, {
      files: stringList(values, 'manifest'),
      config: loadConfig().config,
      update: values['no-update'] !== true,
    });
    const notifyOptions = notifySettings(values);
    const terminal = json ? undefined : (s: string) => stdout.write(s);
    // Who announces what (README "Notifications"): the sessions this process hosts, on every
    // channel; those hosted elsewhere (a `run` in another terminal) on this terminal only:
    // their own host sends the desktop notice, the command and the push.
    const notifier = createNotifier(notifyOptions, {
      terminal,
      focused: (id) => host.focused(id, notifyOptions.focusMs),
    });
    const remote = new Notifier({ terminal, desktop: false }, { done: notifyOptions.done });
    host.notifyFailures = () => notifier.failures();
    host.onPublish((info) => notifier.observe(info));
    let ui: BoardUi | null = null;
    const book = new SessionBook({
      host,
      alerts: !json,
      onChange: (info, prev) => {
        if (json) io.stdout(JSON.stringify(transitionEvent(info, prev)) + '\n');
        ui?.requestRender();
      },
      onUpdate: (info) => {
        if (!book.followed.get(info.id)?.local) remote.observe(info);
        ui?.requestRender();
      },
    });
    const startSession = async (s: NewSession) => {
      if (s.cwd !== undefined && !isDirectory(s.cwd)) {
        throw new UsageError(`no such folder: ${s.cwd}`);
      }
      const session = await host.start({
        command: s.argv[0],
        args: s.argv.slice(1),
        agent: s.agent ?? agent,
        ...(s.name ? { name: s.name } : {}),
        ...(s.cwd ? { cwd: s.cwd } : {}),
        headless: true,
        ...sessionSize(stdout),
      });
      notifier.observe(host.info(session.id)); // the baseline: its first state is not news
      book.addLocal(session.id);
    };
    try {
      for (const [i, g] of groups.entries()) await startSession({ argv: g, name: names[i] });
      book.start();
      if (json) {
        const keepAlive = setInterval(() => {}, 1 << 30); // signal handlers alone do not keep Node running
        await new Promise<void>((resolve) => {
          const off = onStopSignal(() => {
            off();
            resolve();
          });
        });
        clearInterval(keepAlive);
      } else {
        const rules = host.options.manifestSet;
        ui = new BoardUi({
          book,
          startSession,
          title: 'agentwatch',
          status: () =>
            [rules?.status(), notifyStatus(notifier.failures(), book.infos())].filter(Boolean)
              .join(' · ') || undefined,
        });
        rules?.onNotice(() => ui?.requestRender());
        // The sweep reloads the manifests at each tick; with no session hosted here there is
        // no tick, and the board still tells about the person's saved files.
        const reload = setInterval(() => rules?.refresh(), host.intervalMs);
        reload.unref();
        const unguard = guardTerminal(ui, host, io, 'watch');
        const off = onStopSignal(() => ui?.quit());
        ui.start();
        await ui.done;
        off();
        ui.restore();
        unguard();
        clearInterval(reload);
      }
    } finally {
      await endSessions(host); // their exits still reach the board and the JSON lines
      book.close();
      await host.close();
    }
    return 0;
  },
};
