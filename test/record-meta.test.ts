/**
 * What `agentwatch record` writes beside the bytes, and the size `cut` gives a cut:
 * - the agent is named in the meta as soon as it is known, not only at a state change: a Codex
 *   session whose state never changed (its start screen, then quit) was recorded with
 *   `"agent": ""`. A program named `codex` (so its agent comes from the command, as for the
 *   real one) in a real PTY draws the real capture fixtures/codex/codex.idle.initial.raw and
 *   quits on a key;
 * - `cut` of a session resized while it ran labels each cut with the size at its moment
 *   (fixtures/opencode/marked/ocq: 32x120, resized to 28x90, 20x60, back to 32x120).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cutRecording } from '../src/runtime/cut.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { readRecording } from '../src/runtime/recording.ts';
import { agentwatchArgv } from './support/cli.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { startPty } from './support/pty-driver.ts';

test('record names the agent of a session whose state never changed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-recmeta-'));
  try {
    const fixture = join(REPO_ROOT, 'fixtures', 'codex', 'codex.idle.initial.raw');
    const codex = join(dir, 'codex');
    writeFileSync(
      codex,
      `#!${process.execPath}\n` +
        `process.stdout.write(require('fs').readFileSync(${JSON.stringify(fixture)}));\n` +
        `process.stdin.setRawMode(true);\n` +
        `process.stdin.on('data', (d) => { if (d.includes(0x71)) process.exit(0); });\n`,
    );
    chmodSync(codex, 0o755);
    const rec = join(dir, 'rec');
    const driver = await startPty({
      command: process.execPath,
      args: [...agentwatchArgv([]), 'record', '--out', rec, '--name', 'cx', '--', codex],
      cwd: dir,
      env: { ...process.env, AGENTWATCH_DIR: join(dir, 'sockets') } as Record<string, string>,
    });
    await driver.waitForScreen(/Ask Codex to do anything/, 30_000);
    driver.send('q');
    assert.is((await driver.exited).exitCode, 0);
    const r = readRecording(join(rec, 'cx'));
    assert.is(r.meta.agent, 'codex');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cut labels each cut with the size at its moment, before, during and after resizes', () => {
  const rec = readRecording(join(REPO_ROOT, 'fixtures', 'opencode', 'marked', 'ocq'));
  const manifest = loadBundledManifests().get('opencode')!;
  assert.ok(rec.meta.resizes.length >= 3);
  const size = (at: number) => {
    const c = cutRecording(rec, at, manifest);
    return `${c.rows}x${c.cols}`;
  };
  assert.is(size(44.42), '32x120', 'before the first resize');
  assert.is(size(49.261), '28x90');
  assert.is(size(53.301), '20x60');
  assert.is(size(76.883), '32x120', 'after it was made large again');
});

test.run();
