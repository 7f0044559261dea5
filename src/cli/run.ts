/**
 * `agentwatch run [--agent ID] [--name NAME] -- CMD ARGS...`: runs one agent in a PTY inside
 * the person's own terminal, fully transparent (raw mode, keys, paste, mouse, resize, the
 * child's exit code), while the sweep follows it, its state is published on its control
 * socket and notifications go out. The terminal is restored on exit, on a signal and on a
 * crash.
 */
import { adoptOrphans } from '../runtime/adoption.ts';
import {
  type Command,
  type Io,
  type OptionValues,
  refuseBlank,
  stringList,
  stringOption,
} from './command.ts';
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
import { createHost } from '../runtime/default-host.ts';
import { loadConfig } from '../runtime/config.ts';
import { createNotifier } from '../runtime/notify.ts';
import type { SessionHost } from '../runtime/host.ts';
import type { Session } from '../runtime/session.ts';
import { RunTitle, setsTitle } from './run-title.ts';
import { splitCommand } from './argv.ts';
import { guardTerminal, RESTORE_MODES, setRaw, SHOW_CURSOR } from './board/tty.ts';
import { runDetached } from './run-detach.ts';
import { isTerminalReport } from '../runtime/terminal-report.ts';
import { saveEnded } from '../runtime/ended-sessions.ts';
import { socketDir } from '../runtime/paths.ts';

/**
 * What a caller of `run` may watch or filter (`record` uses it). Every hook is optional; a
 * hook that throws is the caller's bug and ends the run like a crash.
 */
export interface RunTap {
  /** Called once the session started, before any of its output is read. */
  started?(session: Session, host: SessionHost): void;
  /** Sees each chunk the person's terminal sends; returns the bytes to pass to the agent. */
  input?(data: Buffer): Uint8Array;
  /** Called after the person's terminal was resized, with the new size in cells. */
  resized?(rows: number, cols: number): void;
  /** Called once the agent exited and the host closed, with the exit code `run` returns. */
  exited?(code: number): void;
}

/** `run`; its `run` takes an optional {@link RunTap} after the usual arguments. */
export const runCommand: Command & {
  run(values: OptionValues, positionals: string[], io: Io, tap?: RunTap): Promise<number>;
} = {
  name: 'run',
  summary: 'run an agent in this terminal while agentwatch follows its state',
  usage:
    'run [--agent ID] [--manifest FILE]... [--name NAME] [--interval MS] [--no-hooks] -- CMD ARGS...\n' +
    '       agentwatch run --detach [--agent ID] [--name NAME] [--no-hooks] -- CMD ARGS...',
  passthrough: true,
  options: {
    agent: { type: 'string' },
    name: { type: 'string' },
    detach: { type: 'boolean' },
    'no-hooks': { type: 'boolean' },
    ...sourceOptionSpec,
    ...sweepOptionSpec,
    ...notifyOptionSpec,
  },
  placeholders: { agent: 'ID', manifest: 'FILE', name: 'NAME', ...optionPlaceholders },
  help: {
    agent: 'manifest id to use (default: from the foreground process name)',
    name: 'the name the board shows (default: the command name)',
    detach: 'start it in the background host instead (it outlives this terminal); print its id',
    'no-hooks':
      "start the agent without agentwatch's hooks (Claude Code: no --settings); the screen alone decides",
    ...sourceOptionHelp,
    ...sweepOptionHelp,
    ...notifyOptionHelp,
  },
  async run(values, positionals, io, tap: RunTap = {}) {
    refuseBlank(values, ['name', 'agent']);
    const { command, args } = splitCommand(positionals);
    if (values.detach === true) return await runDetached(values, command, args, io);
    const notifyOptions = notifySettings(values);
    // what its sessions leave running stays under it (adoption.ts: answer refuses it)
    adoptOrphans();
    const host = createHost(sweepChoice(values), process.env, {
      hooks: values['no-hooks'] !== true,
      files: stringList(values, 'manifest'),
      config: loadConfig().config,
      update: values['no-update'] !== true,
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
    // How it ended and its last screen stay in `ended/` of the socket folder, as a detached
    // session's do, for `ls`, `explain`, the board and `wait --until exited` (README: `kill
    // api; wait api --until exited` is reached): written as its command exits, before the host
    // closes its socket (which `kill` awaits), by a kill, a signal to `run` or its own end.
    session.onExit(() => keepEnded(host, session.id));
    // Who announces this session (README "Notifications"): this process, on the desktop,
    // --notify-cmd and --notify-url; its terminal notices go to this terminal unless a board
    // follows the session, which then writes them to the terminal the person watches.
    const notifier = createNotifier(notifyOptions, {
      terminal: tty
        ? (s) => {
          if (!host.boardFollows(session.id)) stdout.write(s);
        }
        : undefined,
      focused: (id) => host.focused(id, notifyOptions.focusMs),
    });
    host.notifyFailures = () => notifier.failures();
    notifier.observe(host.info(session.id));
    host.onPublish((info) => notifier.observe(info));
    const title = tty && notifyOptions.title ? new RunTitle((s) => stdout.write(s)) : null;
    title?.start();
    if (title) {
      host.onTransition(({ info }) => title.update(info.state, session.terminal.title));
    }

    let restored = false;
    const restore = () => {
      if (restored) return;
      restored = true;
      notifier.close();
      if (tty) {
        try {
          stdout.write(
            RESTORE_MODES + SHOW_CURSOR + (session.terminal.altScreen ? '\x1b[?1049l' : ''),
          );
          title?.restore();
        } catch {
          // the terminal is gone
        }
        setRaw(stdin, false);
      }
    };
    let ending = false;
    /**
     * Ends on `sig`: passes it on, restores the terminal, then closes the host: an agent that
     * ignores the signal is killed (with its process group) and the socket is removed; never an
     * orphan left behind. Its ended record is written as it exits (keepEnded).
     */
    const endOn = (sig: 'SIGTERM' | 'SIGHUP' | 'SIGQUIT') => {
      if (ending) return;
      ending = true;
      session.kill(sig);
      restore();
      const code = 128 + ({ SIGHUP: 1, SIGQUIT: 3, SIGTERM: 15 }[sig]);
      setTimeout(() => process.exit(code), 3000).unref();
      host.close().finally(() => process.exit(code));
    };
    // A terminal that hung up (its window closed, `tmux kill-pane`) fails the next write with
    // EIO before or after its SIGHUP arrives: the same ending, no crash (tester9: `run` crashed
    // on a write to the closed terminal and left no ended record).
    guardTerminal('run', io, {
      restore,
      crashed: () => session.kill('SIGHUP'),
      hungUp: () => endOn('SIGHUP'),
    });
    for (const sig of ['SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) process.on(sig, () => endOn(sig));
    // Ctrl-C reaches the agent as a key in raw mode; without a TTY, pass SIGINT on.
    process.on('SIGINT', () => session.kill('SIGINT'));

    session.onOutput((data) => {
      stdout.write(data);
      const state = host.pane(session.id)?.record.state ?? 'idle';
      title?.update(state, session.terminal.title, setsTitle(data));
    });
    if (tty) setRaw(stdin, true);
    stdin.on('data', (d: Buffer) => {
      // the terminal's answers to the agent's queries (a cursor position, device attributes:
      // Qwen Code asks after a resize) are no typing of the person's
      if (!isTerminalReport(d)) host.noteInput(session.id);
      session.write(tap.input ? tap.input(d) : d);
    });
    // Piped input that ends (`echo cmd | agentwatch run -- bash`): the PTY's end-of-file key
    // (VEOF, Ctrl-D) once the agent has gone quiet, as a person would press it at its prompt.
    // Sent at once it could reach the line discipline before the program reads its input and
    // be flushed with the next mode change (bash's readline), so it waits for output to settle
    // and is sent again after each quiet spell while the program lives.
    stdin.on('end', () => {
      if (!tty) {
        sendEofWhenQuiet(session, () => {
          const pane = host.pane(session.id);
          if (!pane) return 'exited';
          return pane.classifyNow().state;
        });
      }
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
    host.classifyNow(session.id);
    stdin.pause();
    restore();
    await host.close();
    const code = exit.signal ? 128 + exit.signal : exit.code;
    tap.exited?.(code);
    return code;
  },
};

/**
 * Keeps how session `id` of `host` ended and its last screen (ended-sessions.ts), read now
 * while its pane is there, classified afresh so that its info says `exited`. Never throws: a
 * record that cannot be kept is only a lost look (saveEnded skips a socket folder that fails
 * its check).
 */
function keepEnded(host: SessionHost, id: string): void {
  try {
    const pane = host.pane(id);
    if (!pane) return;
    host.classifyNow(id);
    saveEnded({
      info: host.info(id),
      screen: pane.screen().text,
      events: pane.events(),
      endedAt: Date.now(),
    }, socketDir());
  } catch {
    // the pane is gone already
  }
}

/** How long the PTY's output must have been quiet before an EOF key is sent (ms). */
const EOF_QUIET_MS = 300;
/** The least time between two EOF keys (ms). */
const EOF_GAP_MS = 1000;

/**
 * After piped stdin ended: writes Ctrl-D (VEOF in the PTY's default termios) each time the
 * pane has been quiet for {@link EOF_QUIET_MS} (at most every {@link EOF_GAP_MS}), until the
 * program exits. A key typed while a command runs can be lost when the shell's line editor
 * takes the terminal back, hence again after each quiet spell. Never into a prompt: the pane is
 * classified afresh first, and a blocked pane gets no key (the person answers it).
 */
function sendEofWhenQuiet(session: Session, classifyNow: () => string): void {
  let exited = false;
  let lastSent = 0;
  session.onExit(() => (exited = true));
  const tick = () => {
    if (exited) return;
    const now = Date.now();
    // Nothing before the program has drawn anything: a key read before it takes the terminal
    // into raw mode is garbled by the line discipline (it read as NUL here).
    if (session.lastOutput === 0) return void setTimeout(tick, EOF_QUIET_MS).unref();
    const wait = Math.max(EOF_QUIET_MS - (now - session.lastOutput), EOF_GAP_MS - (now - lastSent));
    if (wait > 0) return void setTimeout(tick, wait).unref();
    if (classifyNow() !== 'blocked') {
      session.write('\x04');
      lastSent = now;
    } else lastSent = now; // look again after a gap
    setTimeout(tick, EOF_GAP_MS).unref();
  };
  tick();
}
