/**
 * `agentwatch demo` (what `npm start` runs), piped: the simulated agents go working, blocked
 * (with the dialog's question) and idle, the demo ends by itself with its summary, and its
 * sessions stay its own: `ls` and `wait --all` of the person's socket folder do not list them
 * (a fresh user saw them taken for real Claude sessions). Real processes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentwatchArgv, cli } from './support/cli.ts';
import { until } from './support/until.ts';

test("demo, piped: working, blocked with its question, idle; its sessions are not the person's", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-demo-'));
  const env = { ...process.env, AGENTWATCH_DIR: join(dir, 's') };
  try {
    const child = spawn(
      process.execPath,
      agentwatchArgv(['demo', '--agents', '2', '--speed', '4', '--duration', '12']),
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    await until(
      'a simulated agent to block',
      () => /-> blocked +Do you want to proceed\?/.test(stdout),
      60_000,
    );
    const ls = await cli(['ls', '--json'], env);
    assert.is(ls.code, 0, ls.stderr);
    assert.equal(JSON.parse(ls.stdout), [], "ls lists none of the demo's sessions");
    const waited = await cli(
      ['wait', '--all', '--until', 'blocked', '--any', '--timeout', '1'],
      env,
    );
    assert.is.not(waited.code, 0, `wait --all took a demo session: ${waited.stdout}`);
    assert.is(await exited, 0, stderr);
    assert.match(stdout, /^agentwatch demo: 2 simulated Claude Code sessions/m);
    assert.match(stdout, /working -> idle/);
    assert.match(stdout, /^agentwatch demo: 2 simulated sessions for/m);
    assert.match(stdout, /prompts answered/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
