/**
 * `agentwatch demo` (what `npm start` runs) keeps its simulated sessions to itself: while it
 * runs, the person's socket folder lists none of them (`ls`, `wait --all` and other boards took
 * them for real Claude Code sessions, and kept their rows after the demo: the tester's finding),
 * and the demo still sees and summarises its own. A real `agentwatch demo` process, piped.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listSessions } from '../src/runtime/session-directory.ts';
import { until } from './support/until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

test('demo: its simulated sessions are not in the socket folder of the person', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-demo-private-'));
  const sockets = join(dir, 'sockets');
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTWATCH_DIR: sockets };
  delete env.AGENTWATCH_SESSION;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'src', 'cli', 'main.ts'),
      'demo',
      '--agents',
      '2',
      '--duration',
      '120',
      '--speed',
      '4',
    ],
    { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  let code: number | null | undefined;
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.on('close', (c) => (code = c));
  try {
    await until(
      'a transition of a simulated session',
      () => / -> /.test(out) || code !== undefined,
      90_000,
    );
    assert.match(out, / -> /, `the demo ended first (${code}): ${out}${err}`);
    assert.equal(await listSessions(sockets), [], "none in the person's folder");
    child.kill('SIGTERM'); // ends the demo early, as q does: it still sums up
    await until('the demo to end', () => code !== undefined, 60_000);
    assert.is(code, 0, err);
    assert.match(out, /backend/);
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
