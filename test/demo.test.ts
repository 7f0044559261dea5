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
import { agentwatchArgv, cli, cliInProcess } from './support/cli.ts';
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

test('demo --speed beyond what the sweep can follow is a usage error saying the most it can', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-demo-'));
  const env = { ...process.env, AGENTWATCH_DIR: join(dir, 's') };
  try {
    const fast = await cliInProcess(['demo', '--speed', '20'], env);
    assert.is(fast.code, 2, fast.stderr);
    assert.match(
      fast.stderr,
      /^agentwatch demo: --speed 20 is faster than the sweep can follow: the simulated person answers a prompt 150 ms after it shows, and the sweep looks at a changed screen up to 125 ms after it changed; with this sweep, at most --speed 12\n/,
    );
    const slow = await cliInProcess(['demo', '--speed', '4', '--no-adaptive'], env);
    assert.is(slow.code, 2, slow.stderr);
    assert.match(
      slow.stderr,
      /looks every 700 ms, up to 700 ms after it changed; .* at most --speed 2\.1/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
