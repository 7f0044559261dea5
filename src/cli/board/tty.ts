/**
 * The person's terminal while a full-screen command holds it (`watch`, `demo`, `run`): the
 * sequences that give it back as it was, the stop signals, and the guard that restores it
 * when the process crashes. Modes: DEC private modes 1000/1002/1003/1006 (mouse tracking and
 * its SGR encoding), 1004 (focus events), 2004 (bracketed paste), 25 (cursor shown), 1049
 * (alternate screen, cursor saved), as xterm's ctlseqs documents them.
 */
import type { Io } from '../command.ts';

/** Undoes what an agent (or an attached one) may have left on: mouse, focus, paste modes, SGR. */
export const RESTORE_MODES =
  '\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[0m';
/** Shows the cursor (DECTCEM set). */
export const SHOW_CURSOR = '\x1b[?25h';
/** Takes the alternate screen, hides the cursor, clears. */
export const ENTER_BOARD = '\x1b[?1049h\x1b[?25l\x1b[2J';
/** Gives the main screen back as it was, cursor shown, modes undone. */
export const LEAVE_BOARD = RESTORE_MODES + '\x1b[2J' + SHOW_CURSOR + '\x1b[?1049l';

/** The signals that stop a full-screen command (Ctrl-C without raw mode, kill, hangup). */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Calls `stop` on the first of SIGINT, SIGTERM, SIGHUP (and on each later one); returns a
 * function removing the handlers.
 */
export function onStopSignal(stop: (signal: string) => void): () => void {
  const handlers = STOP_SIGNALS.map((sig) => {
    const h = () => stop(sig);
    process.on(sig, h);
    return [sig, h] as const;
  });
  return () => {
    for (const [sig, h] of handlers) process.off(sig, h);
  };
}

/** What {@link guardTerminal} does. */
export interface TerminalGuard {
  /** Gives the terminal back; called on a crash and at the process's exit. Idempotent. */
  restore(): void;
  /** After a crash, once the terminal is restored: end what must not outlive the process. */
  crashed?(): void;
  /**
   * The terminal hung up: a read or write of it failed with EIO (its window closed, `tmux
   * kill-pane`), which is no crash: called instead of {@link crashed}, no message, no exit (a
   * SIGHUP comes with it; this is the same ending). Without it, EIO is a crash like any error.
   */
  hungUp?(): void;
}

/**
 * Keeps the person's terminal sane if this process crashes while it holds it: on an uncaught
 * exception restores it, prints `agentwatch LABEL: internal error: <stack>` to `io.stderr`,
 * calls `crashed` and exits 70 (EX_SOFTWARE) (an EIO with `hungUp` given: calls that instead);
 * at any exit, restores it. Returns a function
 * that uninstalls both handlers.
 */
export function guardTerminal(label: string, io: Io, guard: TerminalGuard): () => void {
  const crash = (e: unknown) => {
    if (guard.hungUp && (e as NodeJS.ErrnoException)?.code === 'EIO') {
      guard.hungUp();
      return;
    }
    guard.restore();
    io.stderr(`agentwatch ${label}: internal error: ${(e as Error)?.stack ?? e}\n`);
    try {
      guard.crashed?.();
    } finally {
      process.exit(70);
    }
  };
  const onExit = () => guard.restore();
  process.on('uncaughtException', crash);
  process.on('exit', onExit);
  return () => {
    process.off('uncaughtException', crash);
    process.off('exit', onExit);
  };
}

/** Sets raw mode on `stdin` when it is a terminal; a terminal gone meanwhile is no error. */
export function setRaw(stdin: NodeJS.ReadStream, raw: boolean): void {
  try {
    stdin.setRawMode?.(raw);
  } catch {
    // the terminal is gone
  }
}
