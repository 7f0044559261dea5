/**
 * The interactive board on the person's terminal (`watch`, `demo`): the sessions of a
 * {@link SessionDirectory} drawn by `render.ts`, redrawn when something changes (at most every
 * {@link FRAME_MS}) and every second for the times in state, and the keys:
 *
 * ↑/↓ or k/j select; Enter attaches (the session's redraw, then raw bytes both ways over its
 * socket's `attach`; Ctrl-] detaches; resizes are forwarded with `resize`); a answers the
 * selected session's prompt (1-9: with option N; see `answering.ts`); n starts a session (a
 * typed command line); x clears the rows of sessions whose process is gone (one whose host kept
 * no record of its end also goes by itself {@link GONE_ROW_MS} after; one with a record stays as
 * long as the record is kept, ended-sessions.ts, and the board says when records it showed were
 * dropped); q quits (asks first when sessions hosted here are
 * still alive).
 *
 * Modes: `board` (the keys above), `input` (the `n` line), `confirm` (quit?), `answer` (the
 * panel has the keys), `attached` (every key but Ctrl-] goes to the session, except those typed
 * in its first {@link ATTACH_SETTLE_MS}), `ended` (Enter on a session that ended with nobody
 * watching: its last screen, kept by its host in ended-sessions.ts, until any key). Such a row
 * also quotes the last row of its last screen, and one that ended before the board saw it (it
 * exits at once) still gets a row, from its record.
 */
import { attach, type Attachment, request } from '../../runtime/control-client.ts';
import type { SessionInfo } from '../../runtime/protocol.ts';
import { processGone, type SessionDirectory } from '../../runtime/session-directory.ts';
import { splitCommandLine } from '../argv.ts';
import { type NewSession, parseNewSession } from '../new-session.ts';
import { AnswerFlow } from './answering.ts';
import { endedLines, PrintableInfos, renderBoard, WATCH_KEYS } from './render.ts';
import {
  ENDED_BOUND_TEXT,
  type EndedSession,
  findEnded,
  forgetEnded,
  lastScreenNote,
  listEnded,
} from '../../runtime/ended-sessions.ts';
import { rankOf, sortSessions } from './rows.ts';
import { ENTER_BOARD, LEAVE_BOARD, RESTORE_MODES, setRaw } from './tty.ts';

/** Shortest time between two board frames, ms (at most 10 a second). */
export const FRAME_MS = 100;
/** How long a status line (an answer's outcome, a refusal) stays on the board, ms. */
export const STATUS_MS = 15_000;
/**
 * How long the board keeps the row of a session whose process is gone, ms, when its host kept
 * no record of its end; with a record, its row stays (from the record) until x or until the
 * record is dropped (ended-sessions.ts: the newest 50, for a day).
 */
export const GONE_ROW_MS = 10 * 60_000;
/** The key that detaches an attached terminal: Ctrl-] (GS), as telnet's escape. */
const CTRL_BRACKET = 0x1d;
/**
 * How long after attaching the keys typed are dropped (a bell says so), counted from when the
 * session's screen was first drawn on the person's terminal, ms: a person could not have read
 * the pane by then. An Enter pressed twice on a blocked row (a double tap, or pressed again
 * because a loaded machine had not switched screens yet) attached with the first and answered
 * the dialog with the second: option 1, a command approved unseen (tester6: Gemini CLI 0.61.0,
 * Claude Code 2.1.332 and Qwen Code 0.24.4, 5 of 5, also with 150 and 300 ms between the two).
 * As long as `answer` waits before typing into a new dialog (ANSWER_SETTLE_MS).
 */
export const ATTACH_SETTLE_MS = 500;

/** How a {@link BoardUi} is set up. */
export interface BoardUiOptions {
  directory: SessionDirectory;
  /**
   * Starts a session from a typed command line (the `n` key); throws UserError/UsageError.
   * Resolves with a warning to show beside `started ...` (config.toml is broken), if any.
   */
  startSession?: (s: NewSession) => Promise<string | void>;
  /** Ask before quitting while hosted sessions are alive (default true). */
  confirmQuit?: boolean;
  title?: string;
  keys?: string;
  /**
   * The board's own notice (rule files, notifications that fail, the demo's countdown), read on
   * every frame with that frame's infos: one line under the person's message
   * ({@link BoardView.notice}).
   */
  status?: (infos: readonly SessionInfo[]) => string | undefined;
  /**
   * Something to say once (a notification channel whose program is missing), asked on every
   * frame with its infos while the board shows no message and asks nothing; what it returns is
   * shown as a message (as an answer's outcome, for {@link STATUS_MS}). It must not return the
   * same thing again.
   */
  tell?: (infos: readonly SessionInfo[]) => string | undefined;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

type Mode = 'board' | 'input' | 'confirm' | 'attached' | 'answer' | 'ended';

/** How often the board reads the records of ended sessions, ms. */
const ENDED_SCAN_MS = 1000;

/**
 * The board; see the file comment. `done` resolves when the person quits (or
 * {@link BoardUi.quit} is called); {@link BoardUi.restore} gives the terminal back and is
 * safe to call more than once.
 */
export class BoardUi {
  readonly done: Promise<void>;
  #resolveDone!: () => void;
  #mode: Mode = 'board';
  #selected?: string;
  /** The selected row's place in the last frame: its index and its group ({@link rankOf}). */
  #selectedAt = 0;
  #selectedRank = -1;
  /** Whether the person has moved the cursor (up/down) since the board started. */
  #cursorMoved = false;
  #input = '';
  #message = '';
  /** The status as {@link BoardUi.render} last saw it, and since when, ms since the epoch. */
  #messageShown = '';
  #messageSince = 0;
  #lastFrame = '';
  #lastFrameAt = 0;
  #frameTimer?: ReturnType<typeof setTimeout>;
  #tick?: ReturnType<typeof setInterval>;
  #attached: Attachment | null = null;
  #attachedInfo: SessionInfo | null = null;
  /**
   * When the attached session's screen was first drawn on the person's terminal (ms since the
   * epoch; null until then), and whether keys were dropped since ({@link ATTACH_SETTLE_MS}).
   */
  #attachShownAt: number | null = null;
  /** True while the titles in force before an attach are pushed (CSI 22;0 t), to be popped. */
  #titlePushed = false;
  #restored = true;
  /** The ended session shown in mode `ended`. */
  #ended: EndedSession | null = null;
  /** The last screen's last row of ended sessions by id, quoted (lastScreenNote), from their records. */
  readonly #lastLines = new Map<string, string>();
  /** Ended sessions the directory does not follow (they ended unseen), from their records. */
  readonly #endedRows = new Map<string, EndedSession>();
  /** Ids of ended sessions cleared with x: not shown again. */
  readonly #clearedEnded = new Set<string>();
  /** How many rows of ended sessions went because their records were dropped (not by x). */
  #endedDropped = 0;
  #endedScanAt = 0;
  /** The sessions' texts made printable once per change of them. */
  readonly #printables = new PrintableInfos();
  readonly #answer: AnswerFlow;
  readonly #directory: SessionDirectory;
  readonly #stdin: NodeJS.ReadStream;
  readonly #stdout: NodeJS.WriteStream;
  readonly #onKeys = (d: Buffer) => this.#keys(d);
  readonly #onResize = () => this.#resized();

  constructor(readonly options: BoardUiOptions) {
    this.#directory = options.directory;
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.done = new Promise((r) => (this.#resolveDone = r));
    this.#answer = new AnswerFlow({
      latest: (id) => this.#directory.infos().find((i) => i.id === id),
      closed: (message, byItself) => {
        // A panel that vanished under the person (its prompt answered elsewhere) leaves the
        // board in its answer mode without a panel: the next key, typed for that panel (a
        // digit, a y), only returns to the board; on the board it would open and confirm
        // another session's prompt the person has not read (tester5: '2', 'y' answered the
        // next blocked session's '2. ... for this session').
        if (this.#mode === 'answer' && !byItself) this.#mode = 'board';
        this.#message = byItself && this.#mode === 'answer'
          ? `${message} (the next key only clears this)`
          : message;
      },
      render: () => this.render(),
    });
  }

  /**
   * Chooses the selected row of a frame's `sorted` rows. Until the person moves the cursor it
   * is the top row (the longest-waiting blocked session, once the sessions are known). After,
   * it follows its session while the session keeps its group; when the session moves to
   * another group (its prompt answered: blocked -> working) or is gone, the cursor stays where
   * it was on the screen, so the keys a person types next go to the row under their eyes (the
   * next blocked one), not to a row that moved away.
   */
  #placeCursor(sorted: readonly SessionInfo[]): void {
    let at = this.#cursorMoved ? sorted.findIndex((i) => i.id === this.#selected) : 0;
    if (this.#cursorMoved && (at < 0 || rankOf(sorted[at]) !== this.#selectedRank)) {
      at = Math.min(this.#selectedAt, sorted.length - 1);
    }
    this.#select(sorted, at);
  }

  /** Selects row `at` of `sorted` (none when there is no row), noting its place. */
  #select(sorted: readonly SessionInfo[], at: number): void {
    const info = sorted[at];
    this.#selected = info?.id;
    this.#selectedAt = info ? at : 0;
    this.#selectedRank = info ? rankOf(info) : -1;
  }

  /** Takes the terminal: alternate screen, raw keys, first frame. */
  start(): void {
    this.#restored = false;
    this.#stdout.write(ENTER_BOARD);
    setRaw(this.#stdin, true);
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
    this.#attached?.close();
    this.#stdin.off('data', this.#onKeys);
    this.#stdout.off('resize', this.#onResize);
    try {
      this.#stdout.write(this.#popTitle() + LEAVE_BOARD);
    } catch {
      // the terminal is gone
    }
    setRaw(this.#stdin, false);
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
    if (this.#mode === 'ended' && this.#ended) {
      const lines = endedLines(
        this.#ended,
        this.#stdout.columns || 80,
        this.#stdout.rows || 24,
        Date.now(),
      );
      this.#paint(lines, force);
      return;
    }
    // The sessions' infos are taken once per frame. Rows of processes gone for GONE_ROW_MS go
    // by themselves (x clears them at once); an answer panel open on one closes.
    const all = this.#infos();
    const gone = new Set<string>();
    for (const g of this.#directory.clearGone(Date.now() - GONE_ROW_MS, all)) {
      gone.add(g.id);
      this.#lastLines.delete(g.id);
      this.#answer.closeOn(g.id, `${g.name} is gone`);
    }
    const infos = gone.size ? all.filter((i) => !gone.has(i.id)) : all;
    this.#answer.follow(infos); // a prompt answered elsewhere closes its panel
    if (!this.#message && this.#mode === 'board') this.#message = this.options.tell?.(infos) ?? '';
    this.#expireMessage();
    const sorted = sortSessions(infos);
    this.#placeCursor(sorted);
    // One line each: a long rules notice must not cut the dropped records' note off.
    const extra = [this.options.status?.(infos), this.#droppedNote()].filter(Boolean).join('\n') ||
      undefined;
    const status = this.#message || undefined;
    const notice = this.#mode === 'confirm' ? undefined : extra;
    const panel = this.#answer.panel;
    const lines = renderBoard(sorted, {
      now: Date.now(),
      width: this.#stdout.columns || 80,
      height: this.#stdout.rows || 24,
      selected: this.#selected,
      title: this.options.title,
      keys: this.options.keys ?? WATCH_KEYS,
      status,
      notice,
      input: this.#mode === 'input'
        ? { label: 'new session ([--name N] [--agent ID] [--cwd DIR] CMD): ', text: this.#input }
        : undefined,
      answer: this.#mode === 'answer' && panel ? panel : undefined,
      color: !process.env.NO_COLOR,
      lastLines: this.#lastLines,
    }, this.#printables);
    this.#paint(lines, force);
  }

  /** Writes `lines` as the frame, unless it is the frame on the terminal already. */
  #paint(lines: readonly string[], force: boolean): void {
    const frame = lines.map((l, y) => `\x1b[${y + 1};1H${l}\x1b[K`).join('');
    this.#lastFrameAt = Date.now();
    if (!force && frame === this.#lastFrame) return;
    this.#lastFrame = frame;
    this.#stdout.write(frame);
  }

  /**
   * The directory's sessions, then the ended sessions it does not follow (they ended unseen,
   * or their rows went after {@link GONE_ROW_MS}), from their records, as long as those are
   * kept, until x.
   */
  #infos(now = Date.now()): SessionInfo[] {
    const all = this.#directory.infos();
    // A board of its own sessions only (the demo's) shows no one else's records.
    if (this.#directory.options.remote === false) return all;
    if (now - this.#endedScanAt >= ENDED_SCAN_MS) this.#scanEnded(all, now);
    if (!this.#endedRows.size) return all;
    const followed = new Set(all.map((i) => i.id));
    for (const [id, e] of this.#endedRows) {
      if (followed.has(id)) this.#endedRows.delete(id);
      else all.push(e.info);
    }
    return all;
  }

  /** Reads the records of ended sessions (at most every {@link ENDED_SCAN_MS}): last lines, rows. */
  #scanEnded(followed: readonly SessionInfo[], now: number): void {
    this.#endedScanAt = now;
    let records: EndedSession[];
    try {
      records = listEnded(this.#directory.dir, now);
    } catch {
      return; // the folder fails its check: the board says so elsewhere
    }
    const ids = new Set(followed.map((i) => i.id));
    const kept = new Set(records.map((e) => e.info.id));
    for (const id of this.#endedRows.keys()) {
      if (kept.has(id) || ids.has(id)) continue;
      // Its record went (past the bound, or forgotten elsewhere): its row goes, said.
      this.#endedRows.delete(id);
      this.#lastLines.delete(id);
      this.#endedDropped++;
    }
    for (const e of records) {
      const id = e.info.id;
      if (this.#clearedEnded.has(id)) continue;
      const last = lastScreenNote(e.screen);
      if (last) this.#lastLines.set(id, last);
      if (!ids.has(id)) this.#endedRows.set(id, e);
    }
  }

  /** What the board says of ended rows dropped with their records ('' for none). */
  #droppedNote(): string {
    const n = this.#endedDropped;
    return n
      ? `${n} ended session${
        n === 1 ? '' : 's'
      } no longer kept (${ENDED_BOUND_TEXT}; x clears this)`
      : '';
  }

  /** The record of ended session `id` in the board's socket folder, if kept. */
  #findEnded(id: string): EndedSession | undefined {
    try {
      const ended = findEnded(id, this.#directory.dir);
      return ended?.info.id === id ? ended : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Clears the status line {@link STATUS_MS} after it was first drawn (on the board, not while
   * it asks something): an old outcome is no news, and on a short terminal it takes rows.
   */
  #expireMessage(): void {
    const now = Date.now();
    if (this.#message !== this.#messageShown) {
      this.#messageShown = this.#message;
      this.#messageSince = now;
    } else if (
      this.#message && this.#mode === 'board' && now - this.#messageSince >= STATUS_MS
    ) {
      this.#message = this.#messageShown = '';
    }
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

  #keys(data: Buffer): void {
    if (this.#mode === 'attached') {
      const at = data.indexOf(CTRL_BRACKET);
      const before = at >= 0 ? data.subarray(0, at) : data;
      const shown = this.#attachShownAt;
      if (before.length && (shown === null || Date.now() - shown < ATTACH_SETTLE_MS)) {
        this.#stdout.write('\x07'); // typed before the pane could be read: dropped
      } else if (before.length) this.#attached?.write(before); // queued until the session said ok
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
    if (this.#mode === 'input') return this.#inputKey(key);
    if (this.#mode === 'answer') {
      if (this.#answer.panel) this.#answer.key(key);
      else {
        // the key meant for a panel that closed by itself: it clears the message, nothing more
        this.#mode = 'board';
        this.#message = '';
        this.render();
      }
      return;
    }
    if (this.#mode === 'ended') {
      this.#mode = 'board';
      this.#ended = null;
      this.render(true);
      return;
    }
    if (this.#mode === 'confirm') {
      this.#mode = 'board';
      this.#message = '';
      if (key === 'y' || key === 'Y') this.quit();
      else this.render();
      return;
    }
    const infos = sortSessions(this.#infos());
    const at = infos.findIndex((i) => i.id === this.#selected);
    this.#message = '';
    switch (key) {
      case '\x1b[A':
      case '\x1bOA':
      case 'k':
        this.#cursorMoved = true;
        this.#select(infos, Math.max(0, at - 1));
        break;
      case '\x1b[B':
      case '\x1bOB':
      case 'j':
        this.#cursorMoved = true;
        this.#select(infos, Math.min(infos.length - 1, at + 1));
        break;
      case '\r':
      case '\n': {
        const info = infos[at];
        if (!info) break;
        if (!processGone(info)) this.#attach(info);
        else if ((this.#ended = info.exit ? this.#findEnded(info.id) ?? null : null)) {
          this.#mode = 'ended';
          this.#stdout.write('\x1b[2J');
          this.render(true);
          return;
        } else this.#message = `session ${info.name} has ended`;
        break;
      }
      case 'x':
        this.#message = this.#clear(infos);
        break;
      case 'n':
        if (this.options.startSession) {
          this.#mode = 'input';
          this.#input = '';
        }
        break;
      case 'q':
      case '\x03': {
        const alive = this.#directory.liveLocal(infos);
        if (alive.length && this.options.confirmQuit !== false) {
          this.#mode = 'confirm';
          this.#message = `${alive.length} session${
            alive.length === 1 ? '' : 's'
          } started here will be ended (${alive.map((i) => i.name).join(', ')}). Quit? y/n`;
        } else this.quit();
        break;
      }
      default: {
        // a answers with the option the dialog marks, 1-9 with that option
        if (key !== 'a' && !/^[1-9]$/.test(key)) return;
        const refused = this.#answer.open(infos[at], key === 'a' ? undefined : Number(key) - 1);
        if (refused === undefined) this.#mode = 'answer';
        else this.#message = refused;
      }
    }
    this.render();
  }

  /** The `x` key: clears the rows of sessions whose process is gone; returns what to say. */
  #clear(infos: readonly SessionInfo[]): string {
    const cleared = this.#directory.clearGone(Infinity, infos);
    for (const e of this.#endedRows.values()) cleared.push(e.info);
    this.#endedRows.clear();
    this.#endedDropped = 0;
    for (const c of cleared) {
      forgetEnded(c.id, this.#directory.dir); // forgotten: ls and explain no longer show it
      this.#clearedEnded.add(c.id);
      this.#lastLines.delete(c.id);
    }
    const shells = infos.filter((i) => i.state === 'exited' && !processGone(i)).length;
    return (cleared.length
      ? `cleared ${cleared.length} exited session${cleared.length === 1 ? '' : 's'}`
      : 'no exited session to clear') +
      (shells ? ` (${shells} with a shell still running stay${shells === 1 ? 's' : ''})` : '');
  }

  /** A key while the `n` line is typed. */
  #inputKey(key: string): void {
    if (key === '\r' || key === '\n') void this.#submit();
    else if (key === '\x1b' || key === '\x03') this.#mode = 'board';
    else if (key === '\x7f' || key === '\b') this.#input = [...this.#input].slice(0, -1).join('');
    else if (key === '\x15') this.#input = '';
    else if (key.length === 1 && key >= ' ') this.#input += key;
    else if (key.length > 1 && !key.startsWith('\x1b')) this.#input += key;
    this.render();
  }

  async #submit(): Promise<void> {
    const line = this.#input;
    this.#mode = 'board';
    this.#input = '';
    try {
      const typed = parseNewSession(splitCommandLine(line));
      if (!typed.argv.length) return;
      const warning = await this.options.startSession!(typed);
      this.#message = `started ${typed.name ? `${typed.name}: ` : ''}${typed.argv.join(' ')}` +
        (warning ? ` · ${warning}` : '');
    } catch (e) {
      this.#message = `cannot start: ${(e as Error).message}`;
    }
    this.render();
  }

  /** Full-screen passthrough to `info`'s session until Ctrl-] or the session's end. */
  #attach(info: SessionInfo): void {
    this.#mode = 'attached';
    this.#attachedInfo = info;
    this.#attachShownAt = null;
    const a: Attachment = attach(info.socket, {
      rows: this.#stdout.rows || 24,
      cols: this.#stdout.columns || 80,
    }, {
      // the titles in force are pushed (XTWINOPS CSI 22;0 t, xterm ctlseqs; tmux keeps a
      // stack too) and popped on detach: the agent's own title (OSC 0/2) does not stay on the
      // board's terminal (tester6 F11)
      onReady: () => {
        this.#titlePushed = true;
        this.#stdout.write('\x1b[22;0t\x1b[0m\x1b[2J\x1b[H\x1b[?25h');
      },
      onOutput: (d) => {
        if (this.#attached !== a) return;
        this.#stdout.write(d);
        this.#attachShownAt ??= Date.now(); // the session's redraw, first
      },
      onFail: (why) => {
        if (this.#attached !== a) return;
        this.#attached = null;
        this.#attachedInfo = null;
        this.#mode = 'board';
        this.#message = `cannot attach to ${info.name}: ${why}`;
        this.render(true);
      },
      onEnd: () => {
        if (this.#attached === a) this.#detach(`session ${info.name} ended`);
      },
    });
    this.#attached = a;
  }

  /** XTWINOPS CSI 23;0 t (pop the titles) when an attach pushed them, else ''. */
  #popTitle(): string {
    if (!this.#titlePushed) return '';
    this.#titlePushed = false;
    return '\x1b[23;0t';
  }

  #detach(message?: string): void {
    const a = this.#attached;
    this.#attached = null;
    this.#attachedInfo = null;
    a?.close();
    this.#mode = 'board';
    this.#message = message ?? '';
    if (this.#restored) return;
    this.#stdout.write(this.#popTitle() + RESTORE_MODES + ENTER_BOARD);
    this.render(true);
  }
}
