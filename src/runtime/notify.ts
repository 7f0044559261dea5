/**
 * Sends the notices {@link NotifyGate} decides, on every channel configured, and keeps what
 * failed so that it is shown once (the board's status line, `ls --json`, `notify --test`).
 *
 * Channels:
 * - `desktop`: `osascript` on macOS, `notify-send` elsewhere (when on PATH); skipped for the
 *   session the person is looking at (see {@link NotifyChannels.focused}).
 * - `terminal`: OSC 9, OSC 777 `notify` and BEL, written to the board's or run's own terminal,
 *   wrapped in tmux's DCS passthrough when `$TMUX` is set and in screen's when `$STY` is.
 * - `command`: `--notify-cmd`, run through `/bin/sh -c` with AGENTWATCH_* variables
 *   ({@link commandEnv}).
 * - `push`: `--notify-url` (see push.ts).
 */
import { spawn } from 'node:child_process';
import { registerNotifier } from './host-registry.ts';
import { existsSync } from 'node:fs';
import type { SessionInfo } from './protocol.ts';
import { type GateOptions, type Notice, NotifyGate } from './notify-gate.ts';
import { PushChannel } from './push.ts';
import type { NotifyOptions } from './notify-config.ts';

export type { Notice } from './notify-gate.ts';

/** The channels' names, as `notify --test`, `ls --json` and the board name them. */
export type ChannelName = 'desktop' | 'terminal' | 'command' | 'push';

/** Where notices go. */
export interface NotifyChannels {
  /** Writes terminal notifications (OSC 9, OSC 777, BEL) here; none when undefined. */
  terminal?: (bytes: string) => void;
  /** Use the desktop notifier (default true). */
  desktop?: boolean;
  /** A shell command run for every notice. */
  command?: string;
  /** Push to a URL. */
  push?: PushChannel;
  /** The environment: `$TMUX`, `$STY` and `$PATH` are read from it (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * True when the person looks at session `id` right now (attached to it, or typed into it
   * within the last few seconds): no desktop notice for it.
   */
  focused?: (id: string) => boolean;
}

/** A channel's latest outcome. */
export interface ChannelStatus {
  ok: boolean;
  /** Why it failed (the notifier's own message, or how it exited). */
  error?: string;
  /** When, ms since the epoch. */
  at: number;
}

/** Characters that may never reach a terminal sequence or a notifier's argument. */
function clean(text: string, max = 200): string {
  return text.replace(/[\x00-\x1f\x7f-\x9f;]/g, ' ').slice(0, max);
}

/** A body's lines, cleaned, for the desktop (newlines kept). */
function cleanLines(text: string): string {
  return text.split('\n').map((l) => clean(l, 300)).join('\n').slice(0, 1000);
}

/**
 * Wraps a terminal sequence so that it reaches the outer terminal through a multiplexer:
 * tmux's passthrough `ESC P tmux; ... ESC \` with every ESC doubled (tmux(1), "allow-passthrough";
 * tmux 3.3+ needs `set -g allow-passthrough on`), screen's `ESC P ... ESC \` (screen(1), no
 * doubling, one sequence per string). `env.TMUX` wins over `env.STY`. Unchanged otherwise.
 */
export function passthrough(seq: string, env: NodeJS.ProcessEnv): string {
  if (env.TMUX) return `\x1bPtmux;${seq.replace(/\x1b/g, '\x1b\x1b')}\x1b\\`;
  if (env.STY) return `\x1bP${seq}\x1b\\`;
  return seq;
}

/**
 * The terminal notification sequences: OSC 9 (iTerm2, Windows Terminal, kitty, WezTerm, ...),
 * OSC 777 `notify;TITLE;BODY` (rxvt-unicode, foot, Ghostty, ...) and BEL, each passed through
 * tmux or screen (see {@link passthrough}). BEL is left bare inside tmux and screen: they
 * show it themselves (a bell flag on the window).
 */
export function terminalNotice(n: Notice, env: NodeJS.ProcessEnv = {}): string {
  const title = clean(n.title);
  const body = clean(n.body.replace(/\n/g, ' · '));
  return passthrough(`\x1b]9;${title}: ${body}\x07`, env) +
    passthrough(`\x1b]777;notify;${title};${body}\x07`, env) + '\x07';
}

/** The AGENTWATCH_* variables a `--notify-cmd` gets (documented in run's and watch's help). */
export function commandEnv(n: Notice): Record<string, string> {
  return {
    AGENTWATCH_NOTICE: n.kind,
    AGENTWATCH_SESSION: n.info.id,
    AGENTWATCH_NAME: n.info.name,
    AGENTWATCH_AGENT: n.info.agent,
    AGENTWATCH_STATE: n.info.state,
    AGENTWATCH_TITLE: n.title,
    AGENTWATCH_BODY: n.body,
    AGENTWATCH_QUESTION: n.question,
    AGENTWATCH_ACTION: n.action,
    AGENTWATCH_OPTIONS: n.options.join('\n'),
  };
}

function which(cmd: string, env: NodeJS.ProcessEnv): boolean {
  const dirs = (env.PATH ?? '').split(':');
  return dirs.some((d) => d && existsSync(`${d}/${cmd}`));
}

/** The most of a failing notifier's stderr kept for its message, characters. */
const MAX_STDERR = 300;
/** How long a notifier may run before it counts as failed, ms. */
export const NOTIFIER_TIMEOUT_MS = 10_000;

/**
 * Runs a notifier; resolves with null when it exited 0, or why it failed (spawn error, exit
 * code with the first line of its stderr, timeout: then its process group is killed). It runs
 * in a session of its own, registered ({@link registerNotifier}): neither it nor anything it
 * starts may answer a prompt or attach. Never rejects.
 */
export function runNotifier(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<string | null> {
  return new Promise((resolve) => {
    let err = '';
    let done = false;
    const finish = (why: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(why);
    };
    const timer = setTimeout(() => {
      // its whole process group: it leads one (detached)
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      finish(`${cmd} did not finish within ${NOTIFIER_TIMEOUT_MS / 1000} s`);
    }, NOTIFIER_TIMEOUT_MS);
    timer.unref?.();
    let child: ReturnType<typeof spawn>;
    try {
      // In a session of its own (setsid), registered at once: what it starts, even after it
      // ended, carries its session id, and `answer` and `attach` refuse that (host-registry.ts)
      child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env, detached: true });
      if (child.pid) registerNotifier(child.pid);
    } catch (e) {
      finish(`${cmd} could not start: ${(e as Error).message}`);
      return;
    }
    child.stderr?.on('data', (d: Buffer) => {
      if (err.length < MAX_STDERR) err += d.toString('utf8');
    });
    child.on('error', (e) => finish(`${cmd} could not start: ${e.message}`));
    child.on('close', (code, signal) => {
      if (code === 0) return finish(null);
      const line = err.trim().split('\n')[0]?.slice(0, MAX_STDERR) ?? '';
      finish(`${cmd} exited with ${signal ?? `code ${code}`}${line ? `: ${line}` : ''}`);
    });
  });
}

/**
 * Why the desktop channel has no notifier on Linux and the like: `notify-send` (libnotify) is
 * not on PATH. Not a notice that failed but how the machine is set up: the board says it once
 * ({@link missingBackend}); `ls --json` and `notify --test` name it as any failure.
 */
export const NOTIFY_SEND_MISSING = 'notify-send is not installed (not on PATH)';

/**
 * True when `why` (a channel's failure, this process's or another host's `notify` field) says
 * the channel's program is missing ({@link NOTIFY_SEND_MISSING}) rather than that a notice
 * failed: it will fail the same way for every notice until the person installs it or turns
 * the channel off.
 */
export function missingBackend(why: string): boolean {
  return why === NOTIFY_SEND_MISSING;
}

/** The desktop notifier's argv for `n` on this platform, or why there is none. */
export function desktopCommand(
  n: Pick<Notice, 'title' | 'body'>,
  env: NodeJS.ProcessEnv,
  platform = process.platform,
): { cmd: string; args: string[] } | { none: string } {
  if (platform === 'darwin') {
    const script = `display notification ${JSON.stringify(clean(n.body, 500))} with title ${
      JSON.stringify(clean(n.title))
    }`;
    return { cmd: 'osascript', args: ['-e', script] };
  }
  if (!which('notify-send', env)) return { none: NOTIFY_SEND_MISSING };
  return {
    cmd: 'notify-send',
    args: ['--app-name=agentwatch', clean(n.title), cleanLines(n.body)],
  };
}

/**
 * A gate and channels together: give it every info a session publishes
 * ({@link Notifier.observe}); it sends what the gate decides, waits for the dialog's text
 * when the gate says so, and records each channel's outcome.
 */
export class Notifier {
  readonly gate: NotifyGate;
  /** Notices sent so far, per kind. */
  sent = 0;
  /** Every notice sent (the latest 100), for tests and the report. */
  readonly log: Notice[] = [];
  /** Each channel's latest outcome. */
  readonly status = new Map<ChannelName, ChannelStatus>();
  /** Failures already shown, `${channel}\n${error}`: each is shown once. */
  readonly #shown = new Set<string>();
  #timer?: ReturnType<typeof setTimeout>;
  readonly #env: NodeJS.ProcessEnv;
  /** Called with every notice sent (tests, the board's marks). */
  onNotice?: (n: Notice) => void;

  constructor(
    readonly channels: NotifyChannels,
    options: GateOptions = {},
    /** Called once per channel and distinct failure, with the message to show. */
    readonly onFailure: (channel: ChannelName, error: string) => void = () => {},
  ) {
    this.gate = new NotifyGate(options);
    this.#env = channels.env ?? process.env;
    // a push delivered on a later try (the endpoint came back), or given up: shown like any
    if (channels.push) channels.push.onLate = (why) => this.#record('push', why);
  }

  /** Takes an info a session published (state change or not). Returns the notice sent, if any. */
  observe(info: SessionInfo, now = Date.now()): Notice | null {
    const n = this.gate.observe(info, now);
    if (n) this.#send(n);
    this.#schedule();
    return n;
  }

  #schedule(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const next = this.gate.nextDue();
    if (next === null) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      for (const n of this.gate.due(Date.now())) this.#send(n);
      this.#schedule();
    }, Math.max(0, next - Date.now()) + 1);
    this.#timer.unref?.();
  }

  /** Stops the pending timer. */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.channels.push?.close();
  }

  #record(channel: ChannelName, error: string | null): void {
    this.status.set(channel, { ok: error === null, error: error ?? undefined, at: Date.now() });
    if (error === null) return;
    const key = `${channel}\n${error}`;
    if (this.#shown.has(key)) return;
    this.#shown.add(key);
    try {
      this.onFailure(channel, error);
    } catch {
      // showing a failure never fails the notice
    }
  }

  /**
   * The channels set up whose program is missing on this machine now, `{channel: why}` (see
   * {@link missingBackend}): known before any notice is sent.
   */
  missing(): Partial<Record<ChannelName, string>> {
    if (this.channels.desktop === false) return {};
    const d = desktopCommand({ title: '', body: '' }, this.#env);
    return 'none' in d ? { desktop: d.none } : {};
  }

  /** The channels that failed last, `{channel: why}` (`ls --json`'s `notify` field). */
  failures(): Partial<Record<ChannelName, string>> {
    const out: Partial<Record<ChannelName, string>> = {};
    for (const [c, s] of this.status) if (!s.ok && s.error) out[c] = s.error;
    return out;
  }

  #send(n: Notice): void {
    this.sent++;
    this.log.push(n);
    if (this.log.length > 100) this.log.shift();
    try {
      this.onNotice?.(n);
    } catch {
      // a listener's failure never stops the notice
    }
    void this.deliver(n);
  }

  /**
   * Sends `n` on every configured channel now; resolves with each channel's outcome (null:
   * sent) once all finished. Never rejects. `force` ignores focus (the test notice).
   */
  async deliver(n: Notice, force = false): Promise<Partial<Record<ChannelName, string | null>>> {
    const c = this.channels;
    const out: Partial<Record<ChannelName, string | null>> = {};
    const jobs: Promise<void>[] = [];
    if (c.terminal) {
      try {
        c.terminal(terminalNotice(n, this.#env));
        out.terminal = null;
      } catch (e) {
        out.terminal = `the terminal could not be written: ${(e as Error).message}`;
      }
      this.#record('terminal', out.terminal);
    }
    if (c.desktop !== false && (force || !c.focused?.(n.info.id))) {
      const d = desktopCommand(n, this.#env);
      if ('none' in d) {
        out.desktop = d.none;
        this.#record('desktop', d.none);
      } else {
        jobs.push(
          runNotifier(d.cmd, d.args, this.#env).then((why) => {
            out.desktop = why;
            this.#record('desktop', why);
          }),
        );
      }
    }
    if (c.command) {
      jobs.push(
        runNotifier('/bin/sh', ['-c', c.command], { ...this.#env, ...commandEnv(n) }).then(
          (why) => {
            out.command = why && why.replace(/^\/bin\/sh/, '--notify-cmd');
            this.#record('command', out.command);
          },
        ),
      );
    }
    if (c.push) {
      jobs.push(
        c.push.send(n, force).then((why) => {
          out.push = why;
          this.#record('push', why);
        }),
      );
    }
    await Promise.all(jobs);
    return out;
  }
}

/** What a {@link createNotifier} needs besides the settings. */
export interface NotifierDeps {
  /** Writes to the terminal the person sees (run's or the board's); none: no terminal notices. */
  terminal?: (bytes: string) => void;
  /** See {@link NotifyChannels.focused}. */
  focused?: (id: string) => boolean;
  /** Called once per channel and distinct failure. */
  onFailure?: (channel: ChannelName, error: string) => void;
  env?: NodeJS.ProcessEnv;
}

/**
 * A notifier for the settings in force (config's `[notify]` and the flags, see
 * notify-config.ts).
 * @throws Error naming --notify-url when the URL is unusable.
 */
export function createNotifier(o: NotifyOptions, deps: NotifierDeps = {}): Notifier {
  return new Notifier(
    {
      terminal: o.terminal ? deps.terminal : undefined,
      desktop: o.desktop,
      command: o.command,
      push: o.url
        ? new PushChannel({ url: o.url, format: o.format, includeText: o.includeText })
        : undefined,
      env: deps.env,
      focused: deps.focused,
    },
    { done: o.done },
    deps.onFailure,
  );
}
