/**
 * src/cli/board/tty.ts: the stop signals reach the caller until it removes its handlers, and
 * a crash while a full-screen command holds the terminal restores it, says what happened,
 * ends what must not outlive the process and exits 70 (process.exit stubbed here).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  guardTerminal,
  LEAVE_BOARD,
  onStopSignal,
  RESTORE_MODES,
  setRaw,
} from '../src/cli/board/tty.ts';

test('onStopSignal: SIGINT, SIGTERM and SIGHUP call stop until removed', () => {
  const got: string[] = [];
  const off = onStopSignal((s) => got.push(s));
  process.emit('SIGTERM', 'SIGTERM');
  process.emit('SIGHUP', 'SIGHUP');
  process.emit('SIGINT', 'SIGINT');
  off();
  assert.equal(got, ['SIGTERM', 'SIGHUP', 'SIGINT']);
  assert.is(process.listenerCount('SIGHUP'), 0, 'no handler left behind');
});

test('guardTerminal: a crash restores the terminal, prints the error, calls crashed, exits 70', () => {
  const events: string[] = [];
  let err = '';
  const realExit = process.exit;
  process.exit = ((code: number) => {
    events.push(`exit ${code}`);
  }) as typeof process.exit;
  const before = process.listenerCount('uncaughtException');
  const off = guardTerminal('demo', { stdout: () => {}, stderr: (s) => (err += s) }, {
    restore: () => events.push('restore'),
    crashed: () => events.push('crashed'),
  });
  try {
    (process.emit as (event: string, ...args: unknown[]) => boolean)(
      'uncaughtException',
      new Error('boom'),
    );
    assert.equal(events, ['restore', 'crashed', 'exit 70']);
    assert.match(err, /^agentwatch demo: internal error: Error: boom\n/);
  } finally {
    off();
    process.exit = realExit;
  }
  assert.is(process.listenerCount('uncaughtException'), before, 'uninstalled');
});

test('the sequences: modes off before the main screen comes back; raw mode on a gone terminal', () => {
  assert.ok(LEAVE_BOARD.startsWith(RESTORE_MODES));
  assert.ok(LEAVE_BOARD.endsWith('\x1b[?25h\x1b[?1049l'), 'cursor shown, main screen last');
  for (const mode of ['1000', '1002', '1003', '1006', '1004', '2004']) {
    assert.ok(RESTORE_MODES.includes(`\x1b[?${mode}l`), mode);
  }
  const gone = {
    setRawMode: () => {
      throw new Error('EBADF');
    },
  } as unknown as NodeJS.ReadStream;
  setRaw(gone, false); // no throw
  setRaw({} as NodeJS.ReadStream, true); // not a terminal: nothing to do
});

test.run();
