/**
 * `agentwatch run` with piped stdin, as scripts use it: when the input ends the pane gets the
 * end-of-file key once it is quiet, so `echo cmd | agentwatch run -- bash` ends when bash does
 * (twice in a row, and with a command that runs a while); a pane showing a permission dialog
 * never gets that key: it comes only once the dialog is gone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentwatchArgv } from './support/cli.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'aw-stdin-'));
const env = { ...process.env, AGENTWATCH_DIR: dir };

/** Runs `agentwatch run ARGS` with `input` piped in (then closed); its exit code and stdout. */
function run(args: string[], input: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [...agentwatchArgv([]), 'run', '--no-desktop', ...args],
      {
        env,
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, out });
    });
    child.stdin!.end(input);
  });
}

test.after(() => rmSync(dir, { recursive: true, force: true }));

test('echo cmd | run -- bash: ends when bash does, twice in a row and after a slow command', async () => {
  for (const input of ['echo piped-one\n', 'echo piped-two\n', 'sleep 1; echo piped-slow\n']) {
    const r = await run(['--', 'bash', '--norc', '--noprofile'], input);
    assert.is(r.code, 0, `${JSON.stringify(input)}: ${r.out}`);
    assert.match(r.out, new RegExp(input.match(/piped-\w+/)![0] + '\\r?\\n'));
  }
});

/**
 * A fake Claude Code that shows a permission dialog for 3 s, then its idle footer; it logs
 * every key it reads with the phase it was in, and exits on Ctrl-D.
 */
const DIALOG_THEN_IDLE = String.raw`
const fs = require('node:fs');
const log = process.argv[2];
const out = process.stdout;
let phase = 'dialog';
const frame = (bottom) => '\x1b[H\x1b[2J' + bottom.map((l, i) => '\x1b[' + (20 + i) + ';1H' + l).join('');
const rule = '─'.repeat(80);
process.stdin.setRawMode(true);
out.write(frame([rule, ' Bash command', '   touch hello.txt', '', ' Do you want to proceed?',
  ' ❯ 1. Yes', '   2. No', '', ' Esc to cancel · Tab to amend']));
setTimeout(() => {
  phase = 'idle';
  out.write(frame([rule, '❯ ', rule, '  ⏸ manual mode on · ? for shortcuts']));
}, 3000);
process.stdin.on('data', (d) => {
  fs.appendFileSync(log, phase + ' ' + JSON.stringify(d.toString()) + '\n');
  if (d.includes(4) && phase === 'idle') process.exit(0);
});
`;

test('a pane showing a permission dialog gets no end-of-file key; it comes once the dialog goes', async () => {
  const agent = join(dir, 'claude');
  writeFileSync(agent, `#!${process.execPath}\n${DIALOG_THEN_IDLE}`, { mode: 0o755 });
  const log = join(dir, 'keys.log');
  writeFileSync(log, '');
  const r = await run(['--agent', 'claude', '--no-hooks', '--', agent, log], '');
  assert.is(r.code, 0, readFileSync(log, 'utf8'));
  const keys = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  assert.equal(keys.filter((k) => k.startsWith('dialog')), [], 'nothing typed into the dialog');
  assert.ok(keys.some((k) => k === 'idle "\\u0004"'), keys.join('\n'));
});

test.run();
