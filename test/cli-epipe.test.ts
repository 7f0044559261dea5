/**
 * `agentwatch watch --json | head -1`: once the reader of its output went away, the next
 * line it writes ends it quietly (exit 0, nothing on stderr), as other CLIs end on SIGPIPE,
 * instead of an uncaught EPIPE's stack trace. A real process whose stdout pipe is closed by
 * its reader, and a fake session socket whose state changes make it write.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentwatchArgv } from './support/cli.ts';
import { fakeInfo, fakeSession } from './support/fake-session.ts';
import { until } from './support/until.ts';

for (const args of [['watch', '--json'], ['watch']]) {
  test(`${args.join(' ')} | head -1: ends quietly with exit 0 when its reader went away`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-epipe-'));
    const socket = join(dir, 'pipe-1.sock');
    const state = { now: 'working' };
    const session = await fakeSession(
      socket,
      () => fakeInfo('pipe-1', socket, { state: state.now }),
    );
    try {
      const child = spawn(process.execPath, agentwatchArgv(args), {
        env: { ...process.env, AGENTWATCH_DIR: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
      // `head -1`: read the first line, then close the pipe.
      await new Promise<void>((resolve) => {
        let out = '';
        const onData = (d: Buffer) => {
          out += d.toString();
          if (!out.includes('\n')) return;
          child.stdout.off('data', onData);
          child.stdout.destroy();
          resolve();
        };
        child.stdout.on('data', onData);
      });
      // Every change makes it write again; the first write after the close meets EPIPE.
      let exit: number | null | undefined;
      void exited.then((c) => (exit = c));
      const states = ['idle', 'working'];
      await until('watch to end after its reader went away', () => {
        if (exit !== undefined) return true;
        state.now = states[(states.indexOf(state.now) + 1) % 2];
        session.push(fakeInfo('pipe-1', socket, { state: state.now }));
        return false;
      }, 30_000);
      assert.is(exit, 0, stderr);
      assert.is(stderr, '', 'no stack trace');
    } finally {
      await session.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test.run();
