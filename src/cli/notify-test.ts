/**
 * `agentwatch notify --test [notify flags]`: sends a test notice on every channel the
 * settings turn on (the desktop, this terminal, --notify-cmd, --notify-url) and prints, per
 * channel, whether it worked and why not. Exit 0 when every channel turned on worked, 1
 * otherwise.
 */
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

/** Runs the test; resolves to the exit code. */
export async function notifyTest(
  values: OptionValues,
  io: Io,
  deps: { isTTY?: boolean; write?: (s: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  const o = notifySettings(values);
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
    } else lines.push(`${c.padEnd(9)} ${off[c] ?? 'skipped'}`);
  }
  io.stdout(lines.join('\n') + '\n');
  return failed ? 1 : 0;
}
