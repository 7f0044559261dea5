/**
 * Which sessions' changes are announced, and with what text: the pure decision behind every
 * notification (DESIGN.md section 5, "one per blocked episode, and an episode ends when the
 * state leaves blocked"). No I/O and no timers: the caller passes every info a session
 * publishes with `now` (ms), and calls {@link NotifyGate.due} when {@link NotifyGate.nextDue}
 * comes.
 *
 * The rules:
 * - An **episode** is a stretch of `blocked`. It ends when the state leaves blocked. Every
 *   episode's prompt is announced, and a different prompt within one episode (question,
 *   options or details differ: another command, another file) is announced as well.
 * - **Resized**: a prompt read differently within {@link HYSTERESIS_MS} after its pane was
 *   resized (`resizedAt`), with nobody typing since the episode's prompt appeared, is the same
 *   prompt redrawn at the new size (rewrapped, its top cut or back in sight), in one episode
 *   or back after a flicker: not announced again (Qwen Code 0.24.4 redraws its dialog on
 *   every resize). Read later than that (a slow sweep, a loaded machine), it is still that
 *   prompt when it shows the same question and options ({@link sameDialog}); and so it is,
 *   when someone typed since it appeared (the answer key pressed as it was redrawn), when it
 *   also shows the same details ({@link sameDetails}).
 * - **Drawn in parts**: a prompt read within {@link HYSTERESIS_MS} after the episode's prompt
 *   appeared, with nobody typing since, that shows the same question, options and details as
 *   the one announced, cut short or whole ({@link sameDialog}, {@link sameDetails}), is that
 *   dialog read while it was drawn: not announced again.
 * - **Flicker**: the same prompt (identical question, options and details) back within
 *   {@link HYSTERESIS_MS} of leaving blocked continues the episode before it (not announced),
 *   but only when nothing happened in between: nobody typed or answered since that prompt
 *   appeared (`lastInput`: keys, `send`, `answer`, the board's answer), and the state did not
 *   pass through idle nor stay working for {@link TURN_MS} (a turn of work, not a redraw).
 *   A prompt the person answered that comes back is the agent asking again: announced.
 * - **Flapping**: the same prompt back without the person having typed anything into the
 *   session since it was last announced (`lastInput`) is a flap: flaps are announced at most
 *   {@link FLAP_MAX} times within {@link FLAP_WINDOW_MS}. A prompt the person answered, and
 *   a different prompt, are never held back by it.
 * - **Content first**: an episode whose dialog cannot be read yet (no options: a hook or OSC
 *   7501 said blocked before the dialog was drawn) waits up to {@link CONTENT_WAIT_MS} for it,
 *   then is announced with what is known; the dialog drawn later is that same prompt (not
 *   announced again); a different one after it is.
 * - **done** (opt-in: a turn ended, idle after working) gets the same treatment: with nobody
 *   typing since the last end of turn (`lastInput`), a working spell shorter than the
 *   hysteresis between two ends is flicker, and at most {@link FLAP_MAX} such done notices per
 *   session in {@link FLAP_WINDOW_MS}; a turn someone asked for (typed, `send`) is announced
 *   however short. An agent's start-up (working from its start, `by: 'start'`, until it first
 *   reads idle; or an idle that says `fresh`: an agent started in a shell) is no turn.
 * - A session is first seen without a notice (the baseline); `exited` forgets it.
 */
import type { SessionInfo } from './protocol.ts';
import type { SessionState } from '../detect/types.ts';

/** The same prompt back within this many ms of leaving blocked is the same episode. */
export const HYSTERESIS_MS = 2_000;
/**
 * A working spell at least this long between two prompts is a turn of work (the agent ran
 * what was approved), not a redraw of the dialog: the same prompt after it is a new one, ms.
 */
export const TURN_MS = 1_000;
/**
 * How long an episode waits for its dialog's text before it is announced without it, ms. The
 * notice goes as soon as the dialog is read; this bound only matters when a report came first
 * (Claude Code 2.1 draws its dialog after the person's own hooks return, later still on a
 * loaded machine).
 */
export const CONTENT_WAIT_MS = 1_500;
/** The window of the flapping limit, ms. */
export const FLAP_WINDOW_MS = 60_000;
/** The most notices of one flapping prompt (or of done, per session) in {@link FLAP_WINDOW_MS}. */
export const FLAP_MAX = 4;

/** A notification to send. */
export interface Notice {
  kind: 'blocked' | 'done';
  /** '<name> (<agent>) needs you' or '... is done'. */
  title: string;
  /** The question, what it would do, the options; one per line ('' parts left out). */
  body: string;
  /** The dialog's question ('' when unread). */
  question: string;
  /** What the prompt approves, shortened: 'Bash: rm -rf build/', 'Edit: greet.py' ('' when unread). */
  action: string;
  /** The numbered options ('1. Yes'). */
  options: string[];
  /** True when the dialog's text was read (options found); false when sent with what was known. */
  content: boolean;
  info: SessionInfo;
}

/** Tuning of a {@link NotifyGate}; every time in ms. */
export interface GateOptions {
  /** Announce done (a turn ended after work); default false. */
  done?: boolean;
  hysteresisMs?: number;
  turnMs?: number;
  contentWaitMs?: number;
  flapWindowMs?: number;
  flapMax?: number;
}

/** The identity of a prompt: question, options and details (the command, the file). */
export function promptKey(info: SessionInfo): string {
  return JSON.stringify([info.question ?? '', info.options ?? [], info.details ?? []]);
}

/**
 * True when `a` and `b` are one dialog drawn at two sizes: the same question and options,
 * whitespace aside, where a line may be cut short (a narrow pane clips it, with or without an
 * ellipsis) and the options of one may be the first ones of the other (a short pane, or a look
 * mid-redraw, shows only the first). An empty question matches any (unread at that size); both
 * must show options. Qwen Code 0.24.4 clips `2. Switch to Default Mode and allow once
 * (recommended)` to `2. Switch to Default Mode and…` at 40 columns.
 */
export function sameDialog(a: SessionInfo, b: SessionInfo): boolean {
  const flat = (s: string) => s.replace(/\s+/gu, '').replace(/(?:…|\.\.\.)$/u, '');
  const like = (x: string, y: string) => {
    const p = flat(x), q = flat(y);
    return p.startsWith(q) || q.startsWith(p);
  };
  const oa = a.options ?? [], ob = b.options ?? [];
  if (!oa.length || !ob.length) return false;
  const n = Math.min(oa.length, ob.length);
  for (let i = 0; i < n; i++) if (!flat(oa[i]) || !flat(ob[i]) || !like(oa[i], ob[i])) return false;
  return like(a.question ?? '', b.question ?? '');
}

/**
 * True when the details of `a` and `b` (what the prompt is about) are one text drawn at two
 * sizes: every line of one, whitespace aside and a trailing ellipsis cut, is inside the other's
 * lines joined (a line wrapped into two, clipped, or out of sight). A prompt about another
 * command or file has a line the other lacks.
 */
export function sameDetails(a: SessionInfo, b: SessionInfo): boolean {
  const flat = (s: string) => s.replace(/\s+/gu, '').replace(/(?:…|\.\.\.)$/u, '');
  const inside = (x: readonly string[], y: readonly string[]) => {
    const whole = y.map(flat).join('');
    return x.every((line) => whole.includes(flat(line)));
  };
  const da = a.details ?? [], db = b.details ?? [];
  return inside(da, db) || inside(db, da);
}

/**
 * True when `part` is a fragment of the dialog `whole`: its options the first ones of `whole`'s
 * (each the same or cut short), its question empty or the start of `whole`'s, and nothing about
 * what it approves (no details): nothing in it tells of another prompt. Whitespace aside and a
 * trailing ellipsis cut. opencode 1.18 erases its permission panel in parts as an answer takes
 * effect (a read showed its options alone).
 */
export function partOf(part: SessionInfo, whole: SessionInfo): boolean {
  const flat = (s: string) => s.replace(/\s+/gu, '').replace(/(?:…|\.\.\.)$/u, '');
  const starts = (x: string, y: string) => flat(y).startsWith(flat(x));
  const po = part.options ?? [], wo = whole.options ?? [];
  if (!po.length || po.length > wo.length) return false;
  if (!po.every((o, i) => flat(o) !== '' && starts(o, wo[i]))) return false;
  if ((part.details ?? []).some((d) => flat(d) !== '')) return false;
  return starts(part.question ?? '', whole.question ?? '');
}

/** True when the dialog's text was read: its numbered options are there. */
function readable(info: SessionInfo): boolean {
  return (info.options?.length ?? 0) > 0;
}

/**
 * A sentence of prose, eight words or more from a capitalised word: the paragraph of Gemini CLI
 * 0.61's folder-trust dialog ("Trusting a folder allows Gemini CLI to load its local
 * configurations, including custom commands, hooks, MCP") and Qwen Code 0.24's ("Trusting a
 * folder allows Qwen Code to execute commands it suggests. This is a security feature"), never
 * a command or a file.
 */
const PROSE = /^\p{Lu}\p{Ll}+(?: +[\p{L}\p{N},.'’-]+){7,}/u;

/**
 * What a prompt would do, in one short line, from its details (the dialog's other lines): the
 * notice's action and the board's and `ls`'s blocked row. Claude Code 2.1.332 heads its
 * dialogs `Bash command` (the command sits under its description, and a warning sentence may
 * follow it: `A variable in this command can't be checked before it runs`) and `Edit file` /
 * `Create file` (the file next), and may show a `Tip: ...` line, never the action; Codex 0.171
 * writes `$ COMMAND` and `Destination: FILE`; Gemini CLI 0.61 and Qwen Code 0.24 head theirs
 * `? Shell  COMMAND (description) ←` with the bare command on a later line. Otherwise the first
 * line that is not a tip, without its leading glyph (opencode 1.18's `→ Edit hello.txt`) or
 * trailing arrow, unless it is a paragraph's ({@link PROSE}: a trust dialog's explanation, so
 * the board's row shows the question). '' when no details, or none names an action.
 */
export function promptAction(details: readonly string[]): string {
  const lines = details.map((d) => d.trim()).filter((d) => d && !/^tip:/i.test(d));
  if (!lines.length) return '';
  const head = lines[0].match(/^(\w+) (command|file)$/i);
  if (head) {
    const tool = head[1][0].toUpperCase() + head[1].slice(1).toLowerCase();
    // Claude Code puts the command last, under its description ("Create empty hello.txt
    // file"), a warning sentence maybe after it; the simulated agent puts it first: the last
    // line not written as a sentence (a capitalised word, then a space).
    const rest = lines.slice(1);
    const command = [...rest].reverse().find((l) => !/^\p{Lu}\p{Ll}* /u.test(l)) ??
      rest.at(-1);
    const what = head[2].toLowerCase() === 'command' ? command : lines[1];
    return what && what !== lines[0] ? `${tool}: ${what}` : tool;
  }
  // `$ CMD` under the question: a shell command (Codex 0.171's exec_command, opencode 1.18's
  // `# Shell command`), named as Gemini CLI names its own; no Bash tool there
  const dollar = lines.find((l) => l.startsWith('$ '));
  if (dollar) return `Shell: ${dollar.slice(2).trim()}`;
  const tool = lines[0].match(/^\?\s+(\w+)\s+(.+?)(?:\s+←)?$/u);
  if (tool) {
    // the bare command on a later line, where the header has it first (Gemini, Qwen)
    const bare = lines.slice(1).find((l) => tool[2].startsWith(l));
    if (bare) return `${tool[1]}: ${bare}`;
    if (/^\?\s+\w+\s{2,}/u.test(lines[0])) return `${tool[1]}: ${tool[2]}`; // Gemini's columns
  }
  const dest = lines.find((l) => /^Destination: /.test(l));
  if (dest) return `Edit: ${dest.slice('Destination: '.length)}`;
  const first = lines.find((l) => /[\p{L}\p{N}]/u.test(l)) ?? lines[0]; // not a drawing
  // A paragraph explains the dialog, it names no action: the question says what it asks.
  if (PROSE.test(first)) return '';
  return first.replace(/^[^\p{L}\p{N}/~.]+\s+/u, '').replace(/\s+[←→]$/u, '');
}

/** Per session: what the gate remembers. */
interface Track {
  state: SessionState;
  latest: SessionInfo;
  /** The prompt announced (or taken as announced) in the current blocked episode. */
  announced?: string;
  /** The info whose notice went out in this episode (what a redraw is compared with). */
  announcedInfo?: SessionInfo;
  /** When the current blocked episode began, ms. */
  enteredAt?: number;
  /** When the current episode's prompt first appeared, ms (kept through a held flicker). */
  since?: number;
  /** True when this episode's notice went out before its dialog could be read. */
  blind?: boolean;
  /** When the current blocked episode began, while its notice waits for the dialog's text. */
  waitingSince?: number;
  /**
   * When the state last left blocked, the prompt of that episode and when it first appeared,
   * and whether a turn passed since (idle, or working for {@link TURN_MS}).
   */
  left?: {
    at: number;
    key?: string;
    since?: number;
    turn: boolean;
    blind?: boolean;
    info?: SessionInfo;
  };
  /** When the last blocked notice was sent, per prompt key (the latest 64 keys). */
  announcedAt: Map<string, number>;
  /** When the state last became working. */
  workingSince?: number;
  /** True while the state is the idle a done was decided for (announced or held). */
  doneOpen?: boolean;
  /** When the state last left such an idle, ms. */
  doneLeftAt?: number;
  /** When the last done was decided (announced or held), ms. */
  doneAt?: number;
  /** Times of notices, per prompt key ('done' for done), within the flap window. */
  sent: Map<string, number[]>;
  /** False while the agent is still starting (first seen working by 'start', never idle since). */
  ready: boolean;
}

/** Decides which infos are announced. Pure but for its memory; `now` is injected (ms). */
export class NotifyGate {
  readonly #tracks = new Map<string, Track>();
  readonly #o: Required<GateOptions>;
  /** Notices held back by the flapping limit (for the report and tests). */
  suppressedFlaps = 0;

  constructor(options: GateOptions = {}) {
    this.#o = {
      done: options.done ?? false,
      hysteresisMs: options.hysteresisMs ?? HYSTERESIS_MS,
      turnMs: options.turnMs ?? TURN_MS,
      contentWaitMs: options.contentWaitMs ?? CONTENT_WAIT_MS,
      flapWindowMs: options.flapWindowMs ?? FLAP_WINDOW_MS,
      flapMax: options.flapMax ?? FLAP_MAX,
    };
  }

  /**
   * Takes an info a session published (a state change or a change of its prompt) at `now`;
   * returns the notice due now, or null (none due, or one waits for the dialog's text: see
   * {@link nextDue}).
   */
  observe(info: SessionInfo, now: number): Notice | null {
    const t = this.#tracks.get(info.id);
    if (info.state === 'exited') {
      this.#tracks.delete(info.id);
      return null;
    }
    if (!t) {
      this.#tracks.set(info.id, {
        state: info.state,
        latest: info,
        sent: new Map(),
        announcedAt: new Map(),
        ready: !(info.state === 'working' && info.by === 'start'),
      });
      return null; // the baseline: a session first seen is not news
    }
    const prev = t.state;
    t.state = info.state;
    t.latest = info;
    if (prev === 'blocked' && info.state !== 'blocked') {
      const turn = info.state === 'idle';
      t.left = {
        at: now,
        key: t.announced,
        since: t.since,
        turn,
        blind: t.blind,
        info: t.announcedInfo,
      };
      t.announced = t.announcedInfo = undefined;
      t.blind = false;
      t.waitingSince = undefined;
    }
    if (t.left && prev !== 'blocked') {
      // what happened since the last prompt left: a turn ended, or the agent worked a while
      const worked = prev === 'working' && t.workingSince !== undefined &&
        now - t.workingSince >= this.#o.turnMs;
      if (worked || info.state === 'idle') t.left.turn = true;
    }
    if (info.state === 'working' && prev !== 'working') t.workingSince = now;
    if (prev === 'idle' && info.state !== 'idle') {
      t.doneLeftAt = t.doneOpen ? now : undefined;
      t.doneOpen = false;
    }
    const started = t.ready;
    if (info.state === 'idle' || info.state === 'blocked') t.ready = true;
    if (info.state === 'idle' && info.fresh && t.doneAt === undefined) {
      // An agent ready for its first task is at rest as after a turn: a moment of working
      // nobody asked for (its start-up redrawing, an update check's line) is flicker, and a
      // key or `send` from now on asks for a turn.
      t.doneOpen = true;
      t.doneAt = now;
    }
    if (info.state === 'blocked') {
      if (prev !== 'blocked') t.waitingSince = t.enteredAt = t.since = now;
      return this.#blocked(t, now);
    }
    // `fresh`: idle, and no turn since the agent (re)started (one started in a shell is a new
    // run, its start-up no turn)
    if (info.state === 'idle' && prev === 'working' && this.#o.done && started && !info.fresh) {
      return this.#done(t, now);
    }
    return null;
  }

  /** The notices whose wait for the dialog's text is over at `now`. */
  due(now: number): Notice[] {
    const out: Notice[] = [];
    for (const t of this.#tracks.values()) {
      if (t.state !== 'blocked' || t.waitingSince === undefined) continue;
      const n = this.#blocked(t, now);
      if (n) out.push(n);
    }
    return out;
  }

  /** When {@link due} next has something to decide (ms), or null when nothing waits. */
  nextDue(): number | null {
    let next: number | null = null;
    for (const t of this.#tracks.values()) {
      if (t.state !== 'blocked' || t.waitingSince === undefined) continue;
      const at = t.waitingSince + this.#o.contentWaitMs;
      if (next === null || at < next) next = at;
    }
    return next;
  }

  #blocked(t: Track, now: number): Notice | null {
    const info = t.latest;
    const ready = readable(info);
    if (!ready) {
      if (t.announced !== undefined) return null; // the dialog's text went for a moment
      if (t.waitingSince !== undefined && now - t.waitingSince < this.#o.contentWaitMs) {
        return null; // wait for the dialog's text
      }
    }
    const key = promptKey(info);
    if (key === t.announced) return null; // the same prompt: the same episode
    if (ready && t.blind) {
      // The dialog drawn after its notice went out without it (a slow hook held the agent
      // past the wait): the same prompt, now readable; not announced twice.
      t.blind = false;
      t.announced = key;
      t.announcedInfo = info; // what a redraw of it is compared with
      return null;
    }
    const fresh = t.announced === undefined;
    t.waitingSince = undefined;
    t.announced = key;
    if (!fresh && this.#redrawn(info, t.since, now)) return null; // the same prompt, resized
    if (!fresh && this.#resizedAlike(info, t.announcedInfo, t.since)) return null;
    if (!fresh && this.#completed(info, t.announcedInfo, t.since, now)) return null;
    // a fragment of the prompt announced (erased in part as an answer takes effect): no news
    if (!fresh && t.announcedInfo && partOf(info, t.announcedInfo)) return null;
    if (fresh && this.#flicker(t, key, info, now)) {
      t.since = t.left!.since; // the same prompt flickered back: the episode before goes on
      t.announcedInfo = t.left!.info;
      return null;
    }
    // The same prompt again with no keystroke since its last notice: the screen flaps.
    const last = t.announcedAt.get(key);
    const flap = last !== undefined && (info.lastInput ?? -Infinity) < last;
    if (flap && !this.#room(t, key, now)) return null;
    t.announcedAt.delete(key);
    t.announcedAt.set(key, now);
    if (t.announcedAt.size > 64) t.announcedAt.delete(t.announcedAt.keys().next().value!);
    if (!flap) this.#count(t, key, now); // the window counts every notice of the prompt
    t.blind = !ready;
    t.announcedInfo = info;
    return notice('blocked', info, ready);
  }

  /**
   * True when `key`, a fresh episode's prompt, is the last episode's back after a redraw:
   * within the hysteresis, with no input since it appeared and no turn in between.
   */
  #flicker(t: Track, key: string, info: SessionInfo, now: number): boolean {
    const left = t.left;
    // a notice that went out before its dialog could be read: the dialog drawn after the
    // flicker is the prompt it announced; a prompt read differently after a resize is the
    // one before it, redrawn
    const same = left?.key === key || (left?.blind === true && readable(info)) ||
      (left !== undefined && this.#redrawn(info, left.since, now)) ||
      (left !== undefined && this.#resizedAlike(info, left.info, left.since));
    if (!left || !same || left.turn) return false;
    if ((t.enteredAt ?? left.at) - left.at > this.#o.hysteresisMs) return false;
    const typed = info.lastInput !== undefined && info.lastInput >= (left.since ?? -Infinity);
    return !typed;
  }

  /**
   * True when `info`'s pane was resized within the hysteresis before `now` and after `since`
   * (when the episode's prompt appeared), and nobody typed into it since `since`: a prompt
   * read differently now is that prompt redrawn at the new size.
   */
  #redrawn(info: SessionInfo, since: number | undefined, now: number): boolean {
    const at = info.resizedAt;
    if (at === undefined || since === undefined) return false;
    if (at < since || now - at > this.#o.hysteresisMs) return false;
    return !(info.lastInput !== undefined && info.lastInput >= since);
  }

  /**
   * True when `info`'s pane was resized since `since` (when the episode's prompt appeared) and
   * it shows the dialog `was` announced ({@link sameDialog}: the same question and options,
   * however the lines wrap or clip): that prompt redrawn, however late the sweep read it (a slow
   * `--interval`, a loaded machine). When someone typed since `since` (an answer key pressed as
   * the dialog was redrawn), its details must be the same text too ({@link sameDetails}): a
   * prompt asked after an answer names another command or file.
   */
  #resizedAlike(
    info: SessionInfo,
    was: SessionInfo | undefined,
    since: number | undefined,
  ): boolean {
    const at = info.resizedAt;
    if (!was || at === undefined || since === undefined || at < since) return false;
    if (!readable(info) || !sameDialog(was, info)) return false;
    const typed = info.lastInput !== undefined && info.lastInput >= since;
    return !typed || sameDetails(was, info);
  }

  /**
   * True when `info` is the dialog `was` announced, read again while it was still being drawn
   * or once it was whole (an option cut short, `4. Chat` then `4. Chat about this`; the last
   * options missing): the same question and options ({@link sameDialog}) and details
   * ({@link sameDetails}), within the hysteresis after the prompt appeared, nobody typing since.
   */
  #completed(
    info: SessionInfo,
    was: SessionInfo | undefined,
    since: number | undefined,
    now: number,
  ): boolean {
    if (!was || since === undefined || now - since > this.#o.hysteresisMs) return false;
    if (info.lastInput !== undefined && info.lastInput >= since) return false;
    return readable(info) && sameDialog(was, info) && sameDetails(was, info);
  }

  #done(t: Track, now: number): Notice | null {
    // A turn the person asked for (a key, a `send` since the last end of turn) is a turn,
    // however short: never flicker, never held by the flapping limit.
    const info = t.latest;
    const asked = t.doneAt !== undefined && info.lastInput !== undefined &&
      info.lastInput >= t.doneAt;
    // idle (done) -> working for a moment -> idle, nobody asking: the same end of turn
    const flicker = !asked && t.doneLeftAt !== undefined && t.workingSince === t.doneLeftAt &&
      now - t.doneLeftAt <= this.#o.hysteresisMs;
    t.doneOpen = true;
    t.doneAt = now;
    if (flicker) return null;
    if (asked) this.#count(t, 'done', now);
    else if (!this.#room(t, 'done', now)) return null;
    return notice('done', info, false);
  }

  /** Records a notice of `key` at `now` unless {@link FLAP_MAX} were sent in the window. */
  #room(t: Track, key: string, now: number): boolean {
    const times = (t.sent.get(key) ?? []).filter((at) => now - at < this.#o.flapWindowMs);
    if (times.length >= this.#o.flapMax) {
      t.sent.set(key, times);
      this.suppressedFlaps++;
      return false;
    }
    this.#count(t, key, now);
    return true;
  }

  /** Counts a notice of `key` at `now` in the flap window. */
  #count(t: Track, key: string, now: number): void {
    const times = (t.sent.get(key) ?? []).filter((at) => now - at < this.#o.flapWindowMs);
    times.push(now);
    t.sent.set(key, times);
    // Bounded memory: forget keys whose window has passed.
    if (t.sent.size > 64) {
      for (const [k, v] of t.sent) {
        if (!v.some((at) => now - at < this.#o.flapWindowMs)) t.sent.delete(k);
      }
    }
  }

  /** Forgets a session (it exited or is no longer followed). */
  forget(id: string): void {
    this.#tracks.delete(id);
  }
}

/** The notice for `info`: title, and the body's lines (question, action, options). */
export function notice(kind: Notice['kind'], info: SessionInfo, content: boolean): Notice {
  const who = `${info.name}${info.agent ? ` (${info.agent})` : ''}`;
  if (kind === 'done') {
    return {
      kind,
      title: `${who} is done`,
      body: 'the turn finished',
      question: '',
      action: '',
      options: [],
      content,
      info,
    };
  }
  const question = info.question ?? '';
  const action = promptAction(info.details ?? []);
  const options = info.options ?? [];
  const lines = [question, action, options.join(' · ')].filter(Boolean);
  return {
    kind,
    title: `${who} needs you`,
    body: lines.length ? lines.join('\n') : 'a prompt is waiting for you',
    question,
    action,
    options,
    content,
    info,
  };
}
