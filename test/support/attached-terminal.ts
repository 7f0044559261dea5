/**
 * A person's terminal attached to a session, as the board's Enter attaches one: a small
 * program in a PTY of the test's own (so it has a controlling terminal that is no session's,
 * as a person's board has; a session refuses `attach` from a process without one, or inside a
 * session: src/runtime/peer.ts), relaying its terminal's keys to the session's `attach` and the
 * session's output to its terminal. Run as a program: `attached-terminal.ts SOCKET ROWS COLS`;
 * it prints `ATTACH-READY` once attached and `ATTACH-FAILED: WHY` (exit 3) when refused.
 */
import { fileURLToPath } from 'node:url';
import { attach } from '../../src/runtime/control-client.ts';
import { type PtyDriver, startPty } from './pty-driver.ts';

const SELF = fileURLToPath(import.meta.url);

/**
 * Starts the attached terminal for the session at `socket`, `rows` x `cols` cells, and waits
 * until it is attached. Keys typed into the returned driver (`send`, `type`) go to the session.
 * @throws when the attach was refused (the message holds the session's reason) or took 30 s.
 */
export async function attachedTerminal(
  socket: string,
  rows: number,
  cols: number,
): Promise<PtyDriver> {
  const pty = await startPty({
    command: process.execPath,
    args: ['--import', 'tsx', SELF, socket, String(rows), String(cols)],
    cwd: process.cwd(),
    env: { ...process.env } as Record<string, string>,
    rows,
    cols,
  });
  try {
    const said = () => pty.output.map((c) => Buffer.from(c.data).toString('utf8')).join('');
    const t0 = Date.now();
    while (!said().includes('ATTACH-READY')) {
      const failed = said().match(/ATTACH-FAILED: [^\r\n]*/);
      if (failed) throw new Error(failed[0]);
      if (pty.exit || Date.now() - t0 > 30_000) {
        throw new Error(`not attached (${pty.exit ? 'exited' : 'after 30 s'}): ${said()}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return pty;
  } catch (e) {
    await pty.close();
    throw e;
  }
}

if (process.argv[1] === SELF) {
  const [socket, rows, cols] = process.argv.slice(2);
  process.stdin.setRawMode?.(true);
  const a = attach(socket, { rows: Number(rows), cols: Number(cols) }, {
    onReady: () => process.stdout.write('ATTACH-READY\r\n'),
    onOutput: (d) => process.stdout.write(d),
    onFail: (why) => {
      process.stdout.write(`ATTACH-FAILED: ${why}\r\n`, () => process.exit(3));
    },
    onEnd: () => process.exit(0),
  });
  process.stdin.on('data', (d: Buffer) => a.write(d));
}
