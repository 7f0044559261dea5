/**
 * `agentwatch run [--agent ID] [--name NAME] -- CMD ARGS...`: runs one agent in a PTY inside
 * the person's own terminal, fully transparent (raw mode, keys, paste, mouse, resize, the
 * child's exit code), while the sweep follows it, its state is published on its control
 * socket and notifications go out. The terminal is restored on exit, on a signal and on a
 * crash.
 */
import { type Command, type Io, type OptionValues, stringOption, UsageError } from './command.ts';
import {
  notifyOptionHelp,
  notifyOptionSpec,
  optionPlaceholders,
  stringNotifyChannels,
  sweepChoice,
  sweepOptionHelp,
  sweepOptionSpec,
} from './sweep-options.ts';
import { createHost } from '../runtime/default-host.ts';
import { Notifier } from '../runtime/notify.ts';
import type { SessionHost } from '../runtime/host.ts';
import type { Session } from '../runtime/session.ts';

/** Splits `-- CMD ARGS...` (as main passes it) into the command and its arguments. */
export function splitCommand(positionals: string[]): { command: string; args: string[] } {
  const dd = positionals.indexOf('--');
  if (dd !== 0 && positionals.length) {
    throw new UsageError(`put the command after '--': agentwatch run -- ${positionals.join(' ')}`);
  }
  const rest = positionals.slice(dd + 1);
  if (!rest.length) throw new UsageError("no command given after '--'");
  return { command: rest[0], args: rest.slice(1) };
}

/** Sequences that undo what an agent may leave on: mouse tracking, bracketed paste, focus events, hidden cursor, SGR. */
const RESTORE =
  '\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[?25h\x1b[0m';

export const runCommand: Command = {
  name: 'run',
  summary: 'run an agent in this terminal while agentwatch follows its state',
  usage: 'run [--agent ID] [--name NAME] [--interval MS] [--no-hooks] -- CMD ARGS...',
  passthrough: true,
  options: {
    agent: { type: 'string' },
    name: { type: 'string' },
    'no-hooks': { type: 'boolean' },
    ...sweepOptionSpec,
    ...notifyOptionSpec,
  },
  placeholders: { agent: 'ID', name: 'NAME', ...optionPlaceholders },
  help: {
    agent: 'manifest id to use (default: from the foreground process name)',
    name: 'the name the board shows (default: the command name)',
    'no-hooks':
      "start the agent without agentwatch's hooks (Claude Code: no --settings); the screen alone decides",
    ...sweepOptionHelp,
    ...notifyOptionHelp,
  },
  run: (values, positionals, io) => runInTerminal(values, positionals, io),
};

/**
 * What a caller of {@link runInTerminal} may watch or filter (`record` uses it). Every hook is
 * optional; a hook that throws is the caller's bug and ends the run like a crash.
 */
export interface RunTap {
  /** Called once the session started, before any of its output is read. */
  started?(session: Session, host: SessionHost): void;
  /** Sees each chunk the person's terminal sends; returns the bytes to pass to the agent. */
  input?(data: Buffer): Uint8Array;
  /** Called after the person's terminal was resized, with the new size in cells. */
  resized?(rows: number, cols: number): void;
  /** Called once the agent exited (before the host closes), with the exit code `run` returns. */
  exited?(code: number): void;
}

/**
 * `run`'s body: starts `-- CMD ARGS...` in a PTY attached to this process's terminal (raw
 * mode, keys, resize, signals, exit code), hosted with the sweep and a control socket.
 * @returns the child's exit code, or 128 + its signal.
 * @throws UsageError / UserError for a bad command line or a command that cannot start.
 */
export async function runInTerminal(
  values: OptionValues,
  positionals: string[],
  io: Io,
  tap: RunTap = {},
): Promise<number> {
  const { command, args } = splitCommand(positionals);
  const host = createHost(sweepChoice(values), process.env, {
    hooks: values['no-hooks'] !== true,
  });
  const stdin = process.stdin;
  const stdout = process.stdout;
  const tty = stdin.isTTY === true && stdout.isTTY === true;
  const session = await host.start({
    command,
    args,
    name: stringOption(values, 'name'),
    agent: stringOption(values, 'agent'),
    rows: stdout.rows || 32,
    cols: stdout.columns || 120,
    headless: !tty,
  });
  tap.started?.(session, host);
  const notifier = new Notifier(
    stringNotifyChannels(values, tty ? (s) => stdout.write(s) : undefined),
    {
      done: values['notify-done'] === true,
    },
  );
  host.onTransition(({ info, prev }) => notifier.transition(info, prev.state));

  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    if (tty) {
      try {
        stdout.write(RESTORE + (session.terminal.altScreen ? '\x1b[?1049l' : ''));
        stdin.setRawMode(false);
      } catch {
        // the terminal is gone
      }
    }
  };
  process.on('exit', restore);
  const onCrash = (e: unknown) => {
    restore();
    io.stderr(`agentwatch run: internal error: ${(e as Error)?.stack ?? e}\n`);
    session.kill('SIGHUP');
    process.exit(70);
  };
  process.on('uncaughtException', onCrash);
  for (const sig of ['SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) {
    process.on(sig, () => {
      // Pass the signal on, restore the terminal, then close the host: an agent that ignores
      // the signal is killed (with its process group) and the socket is removed; never an
      // orphan left behind.
      session.kill(sig);
      restore();
      const code = 128 + ({ SIGHUP: 1, SIGQUIT: 3, SIGTERM: 15 }[sig]);
      setTimeout(() => process.exit(code), 3000).unref();
      host.close().finally(() => process.exit(code));
    });
  }
  // Ctrl-C reaches the agent as a key in raw mode; without a TTY, pass SIGINT on.
  process.on('SIGINT', () => session.kill('SIGINT'));

  session.onOutput((data) => stdout.write(data));
  if (tty) stdin.setRawMode(true);
  stdin.on('data', (d: Buffer) => session.write(tap.input ? tap.input(d) : d));
  stdin.on('end', () => {
    if (!tty) session.write('\x04');
  });
  stdin.resume();
  if (tty) {
    stdout.on('resize', () => {
      session.resize(stdout.rows, stdout.columns);
      tap.resized?.(session.terminal.rows, session.terminal.cols);
    });
  }

  const exit = await new Promise<{ code: number; signal?: number }>((resolve) =>
    session.onExit(resolve)
  );
  host.sweep.evaluate(host.watched(session.id)!);
  stdin.pause();
  restore();
  await host.close();
  const code = exit.signal ? 128 + exit.signal : exit.code;
  tap.exited?.(code);
  return code;
}
