/**
 * `agentwatch notify --test [notify flags]`: sends a test notice on every channel the
 * settings turn on (the desktop, this terminal, --notify-cmd, --notify-url) and prints, per
 * channel, whether it worked and why not. Exit 0 when every channel turned on worked, 1
 * otherwise. Inside tmux it also reads tmux's `allow-passthrough` and warns when the terminal
 * notice cannot leave tmux.
 */
import { execFile } from 'node:child_process';
import type { Io, OptionValues } from './command.ts';
import { notifySettings } from './sweep-options.ts';
import { type ChannelName, createNotifier } from '../runtime/notify.ts';
import { notice } from '../runtime/notify-gate.ts';
import type { SessionInfo } from '../runtime/protocol.ts';

/** Where each channel's notice goes, for the printout. */
const WHAT: Record<ChannelName, string> = {
  desktop: process.platform === 'darwin' ? 'osascript' : 'notify-send',
  terminal: 'OSC 9, OSC 777 and BEL on this terminal',
  command: '--notify-cmd',
  push: '--notify-url',
};

/** How long `tmux show` may take before the check gives up, ms. */
const TMUX_TIMEOUT_MS = 3000;

/**
 * tmux's `allow-passthrough` for this pane (`$TMUX_PANE`, else the session's current one),
 * inherited values included (`tmux show -Apv`): 'on', 'off' or 'all' (tmux 3.4); 'on' too for
 * a tmux older than 3.3, which has no such option and passes every DCS through (tmux(1),
 * CHANGES 3.3). Resolves `{error}` when tmux cannot be asked (not on PATH, no server): never
 * rejects.
 */
export function tmuxPassthrough(env: NodeJS.ProcessEnv): Promise<
  { value: string } | {
    error: string;
  }
> {
  const pane = env.TMUX_PANE ? ['-t', env.TMUX_PANE] : [];
  return new Promise((resolve) => {
    execFile(
      'tmux',
      ['show', '-Apv', ...pane, 'allow-passthrough'],
      { env, timeout: TMUX_TIMEOUT_MS, encoding: 'utf8' },
      (e, stdout, stderr) => {
        if (!e) return resolve({ value: stdout.trim() || 'off' });
        if (/invalid option|unknown option/.test(stderr)) return resolve({ value: 'on' });
        const code = (e as NodeJS.ErrnoException).code;
        resolve({
          error: code === 'ENOENT'
            ? 'tmux is not on PATH'
            : (stderr.trim().split('\n')[0] || e.message).slice(0, 200),
        });
      },
    );
  });
}

/** What `notify --test` adds about tmux under the terminal line, or undefined. */
async function tmuxNote(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (!env.TMUX) return undefined;
  const turnOn = 'turn it on with: tmux set -g allow-passthrough on (and put ' +
    "'set -g allow-passthrough on' in ~/.tmux.conf)";
  const r = await tmuxPassthrough(env);
  if ('error' in r) {
    return `note: inside tmux, but its allow-passthrough could not be read (${r.error}); ` +
      `the popup leaves tmux only when it is on: ${turnOn}`;
  }
  if (r.value === 'on' || r.value === 'all') return undefined;
  return `warning: inside tmux with allow-passthrough ${r.value}: the OSC 9/777 popup cannot ` +
    `leave tmux (only the bell marks the window); ${turnOn}`;
}

/** Runs the test; resolves to the exit code. */
export async function notifyTest(
  values: OptionValues,
  io: Io,
  deps: { isTTY?: boolean; write?: (s: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  const o = notifySettings(values, deps.env);
  const tty = deps.isTTY ?? process.stdout.isTTY === true;
  const notifier = createNotifier(o, {
    terminal: tty ? (deps.write ?? ((s) => process.stdout.write(s))) : undefined,
    env: deps.env,
  });
  const now = Date.now();
  const info: SessionInfo = {
    id: 'test',
    name: 'agentwatch',
    agent: 'test',
    state: 'blocked',
    since: now,
    reason: 'notify --test',
    by: 'report',
    question: 'This is a test notice. Does it reach you?',
    options: ['1. Yes', '2. No'],
    details: ['Bash command', 'echo agentwatch notify --test'],
    pid: process.pid,
    command: ['agentwatch', 'notify', '--test'],
    foreground: '',
    rows: 0,
    cols: 0,
    startedAt: now,
    lastOutput: now,
    host: process.pid,
    socket: '-',
  };
  const out = await notifier.deliver(notice('blocked', info, true), true);
  const off: Partial<Record<ChannelName, string>> = {
    desktop: o.desktop ? undefined : 'off (--no-desktop or notify.desktop = false)',
    terminal: !o.terminal
      ? 'off (notify.terminal = false)'
      : tty
      ? undefined
      : 'not a terminal (stdout is not a TTY)',
    command: o.command ? undefined : 'not set (--notify-cmd)',
    push: o.url ? undefined : 'not set (--notify-url)',
  };
  let failed = 0;
  const lines: string[] = [];
  for (const c of ['desktop', 'terminal', 'command', 'push'] as ChannelName[]) {
    if (c in out) {
      const why = out[c];
      if (why) failed++;
      lines.push(`${c.padEnd(9)} ${why ? `FAILED: ${why}` : `sent (${WHAT[c]})`}`);
      const note = c === 'terminal' && !why ? await tmuxNote(deps.env ?? process.env) : undefined;
      if (note) lines.push(`${' '.repeat(10)}${note}`);
    } else lines.push(`${c.padEnd(9)} ${off[c] ?? 'skipped'}`);
  }
  io.stdout(lines.join('\n') + '\n');
  return failed ? 1 : 0;
}
