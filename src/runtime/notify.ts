/**
 * Tells the person when a session blocks (and, if enabled, when one is done: idle after work).
 *
 * Channels: the desktop (`osascript` on macOS, `notify-send` on Linux when present), the
 * terminal (OSC 9, OSC 777 `notify` and BEL, written to the board's or run's own terminal)
 * and an optional `--notify-cmd` run through `/bin/sh -c` with AGENTWATCH_* variables.
 *
 * Rate: a cooldown of {@link COOLDOWN_MS} per session and state (a prompt being redrawn can
 * flap blocked -> working -> blocked), and one notification per blocked episode: the same
 * prompt seen again is the same episode, however long it stays or often it flickers.
 * The decision is the pure {@link NotifyGate}; the channels only send.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { SessionInfo } from './protocol.ts';
import type { SessionState } from '../detect/types.ts';

/** At most one notification per session and state in this window, ms (DESIGN.md section 1). */
export const COOLDOWN_MS = 30_000;

/** A notification to send. */
export interface Notice {
  kind: 'blocked' | 'done';
  title: string;
  body: string;
  info: SessionInfo;
}

/** The key of a blocked episode: the prompt's question and options ('' parts when unread). */
export function episodeKey(info: SessionInfo): string {
  return `${info.question ?? ''}\n${(info.options ?? []).join('\n')}`;
}

/** Decides which transitions are announced. Pure but for its memory; `now` is injected. */
export class NotifyGate {
  readonly #last = new Map<string, number>(); // `${id}:${state}` -> ms of the last notice
  readonly #episode = new Map<string, string>(); // id -> key of the last announced prompt

  constructor(readonly options: { done?: boolean } = {}) {}

  /** The notice for a transition from `prev` to `info.state`, or null when none is due. */
  decide(info: SessionInfo, prev: SessionState, now: number): Notice | null {
    let kind: Notice['kind'];
    if (info.state === 'blocked') kind = 'blocked';
    else if (info.state === 'idle' && prev === 'working' && this.options.done) kind = 'done';
    else return null;
    const slot = `${info.id}:${info.state}`;
    const last = this.#last.get(slot);
    if (last !== undefined && now - last < COOLDOWN_MS) return null;
    if (kind === 'blocked') {
      const key = episodeKey(info);
      if (key.trim() && this.#episode.get(info.id) === key) return null; // same prompt: same episode
      this.#episode.set(info.id, key);
    }
    this.#last.set(slot, now);
    const who = `${info.name}${info.agent ? ` (${info.agent})` : ''}`;
    if (kind === 'blocked') {
      return {
        kind,
        title: `${who} needs you`,
        body: info.question || 'a prompt is waiting for you',
        info,
      };
    }
    return { kind, title: `${who} is done`, body: 'the turn finished', info };
  }

  /** Forgets a session (it exited). */
  forget(id: string): void {
    this.#episode.delete(id);
    for (const k of this.#last.keys()) if (k.startsWith(`${id}:`)) this.#last.delete(k);
  }
}

/** Where notices go. */
export interface NotifyChannels {
  /** Writes terminal notifications (OSC 9, OSC 777, BEL) here; none when undefined. */
  terminal?: (bytes: string) => void;
  /** Use the desktop notifier when one is present (default true). */
  desktop?: boolean;
  /** A shell command run for every notice. */
  command?: string;
}

function clean(text: string): string {
  // No control characters may reach a terminal sequence or a notifier's argument.
  return text.replace(/[\x00-\x1f\x7f\x9b;]/g, ' ').slice(0, 200);
}

/**
 * The terminal notification sequences: OSC 9 (iTerm2, Windows Terminal, ...), OSC 777
 * `notify;TITLE;BODY` (rxvt-unicode, foot, Ghostty, ...) and BEL.
 */
export function terminalNotice(n: Notice): string {
  const title = clean(n.title);
  const body = clean(n.body);
  return `\x1b]9;${title}: ${body}\x07\x1b]777;notify;${title};${body}\x07\x07`;
}

function which(cmd: string): boolean {
  const dirs = (process.env.PATH ?? '').split(':');
  return dirs.some((d) => d && existsSync(`${d}/${cmd}`));
}

function fire(cmd: string, args: string[], env?: NodeJS.ProcessEnv): void {
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: false, env: env ?? process.env });
    child.on('error', () => {});
    child.unref();
  } catch {
    // a notifier that cannot start is not an error of the session
  }
}

/** Sends `n` on every configured channel. Never throws; never waits. */
export function send(n: Notice, channels: NotifyChannels): void {
  if (channels.terminal) {
    try {
      channels.terminal(terminalNotice(n));
    } catch {
      // the terminal went away
    }
  }
  if (channels.desktop !== false) {
    if (process.platform === 'darwin') {
      const script = `display notification ${JSON.stringify(clean(n.body))} with title ${
        JSON.stringify(clean(n.title))
      }`;
      fire('osascript', ['-e', script]);
    } else if (which('notify-send')) {
      fire('notify-send', ['--app-name=agentwatch', clean(n.title), clean(n.body)]);
    }
  }
  if (channels.command) {
    fire('/bin/sh', ['-c', channels.command], {
      ...process.env,
      AGENTWATCH_NOTICE: n.kind,
      AGENTWATCH_SESSION: n.info.id,
      AGENTWATCH_NAME: n.info.name,
      AGENTWATCH_AGENT: n.info.agent,
      AGENTWATCH_STATE: n.info.state,
      AGENTWATCH_TITLE: n.title,
      AGENTWATCH_BODY: n.body,
    });
  }
}

/** A gate and channels together: call {@link Notifier.transition} on every state change. */
export class Notifier {
  readonly gate: NotifyGate;
  /** Notices sent so far (for tests and the board). */
  sent = 0;

  constructor(readonly channels: NotifyChannels, options: { done?: boolean } = {}) {
    this.gate = new NotifyGate(options);
  }

  transition(info: SessionInfo, prev: SessionState, now = Date.now()): Notice | null {
    if (info.state === 'exited') {
      this.gate.forget(info.id);
      return null;
    }
    const n = this.gate.decide(info, prev, now);
    if (n) {
      this.sent++;
      send(n, this.channels);
    }
    return n;
  }
}
