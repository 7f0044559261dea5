/**
 * `agentwatch watch --json | head -1`: once the reader is gone, the next line's write fails
 * with EPIPE, and agentwatch ends quietly (exit 0, nothing on stderr), as a program that gets
 * SIGPIPE does; it crashed with an unhandled 'error' event's stack (the tester's finding). A
 * real `watch --json` process, its stdout a pipe closed after the first line; a bash session
 * hosted here changes state afterwards, so that a second line is written.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { until } from './support/until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

test('watch --json whose reader went away ends quietly with 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-epipe-'));
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTWATCH_DIR: dir };
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const session = await host.start({
      command: 'bash',
      args: ['--norc', '--noprofile', '-i'],
      env: { PS1: '' },
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    await until('the shell', () => w.record.state === 'shell', 15_000);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'watch', '--json'],
      { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    let code: number | null | undefined;
    child.on('close', (c) => (code = c));
    let first = '';
    await new Promise<void>((resolve) =>
      child.stdout!.once('data', (d: Buffer) => {
        first = d.toString();
        child.stdout!.destroy(); // as head -1 does after its line
        resolve();
      })
    );
    assert.match(first, /"state":"shell"/);
    session.write('sleep 30\r'); // a state change: the next line meets the closed pipe
    await until('watch to end', () => code !== undefined, 30_000).finally(() => child.kill());
    assert.is(code, 0, stderr);
    assert.not.match(stderr, /EPIPE|Error/);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
