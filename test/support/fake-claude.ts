/**
 * The fake Claude Code the runtime tests start (test/runtime-host.test.ts,
 * test/runtime-faults.test.ts): plain node, CommonJS, no tsx, so it starts in about 50 ms.
 * Installed as an executable named `claude`, so that the kernel names the process 'claude'
 * (comm) and the foreground reads as Claude Code; its arguments (the hooks' --settings) are
 * ignored. It draws full frames on the main screen (so a dialog stays visible after it exits)
 * in the shape of Claude Code 2.1.332 (fixtures/claude-code/claude.blocked.screen.txt), one
 * per key:
 * i idle footer, w spinner + working footer, b permission dialog in the bottom rows, x exit 0,
 * e exit 3 (after 'bye'), k SIGKILL itself, s its size as the kernel reports it (also drawn on
 * every SIGWINCH); c the frame with nothing at the bottom (a dialog erased after its answer);
 * p and r its in-band state alone, as Claude Code reports it to a terminal that answered its
 * probe: `OSC 7501 ; state=blocked` (before it draws its dialog) and `state=working`. It prints
 * READY once in raw mode, beside the idle frame.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionHost } from '../../src/runtime/host.ts';
import type { Session } from '../../src/runtime/session.ts';

/** The program's text (CommonJS, for `node`). */
export const FAKE_CLAUDE = String.raw`
const out = process.stdout;
const rows = () => out.rows || 32;
const cols = () => out.columns || 120;
const rule = () => '─'.repeat(cols());
function frame(bottom) {
  const lines = [' ✻ Claude Code v2.1.332 (fake)', '', '❯ please create hello.txt', '',
    "● I'll create the file."];
  while (lines.length < rows() - bottom.length) lines.push('');
  lines.push(...bottom);
  return '\x1b[H\x1b[2J' + lines.slice(-rows()).map((l, i) => '\x1b[' + (i + 1) + ';1H' + l).join('');
}
const screens = {
  i: () => frame([rule(), '❯ ', rule(), '  ⏸ manual mode on · ? for shortcuts']),
  w: () => frame(['✻ Working… (esc to interrupt)', '', rule(), '❯ ', rule(),
    '  ⏸ manual mode on · esc to interrupt']),
  b: () => frame([rule(), ' Bash command', '', '   touch hello.txt', '   Create empty hello.txt file',
    '', ' Do you want to proceed?', ' ❯ 1. Yes',
    "   2. Yes, and don't ask again for touch commands in /home/dev/proj", '   3. No', '',
    ' Esc to cancel · Tab to amend']),
  s: () => '\x1b[H\x1b[2Jsize ' + rows() + 'x' + cols(),
  c: () => frame([]),
  p: () => '\x1b]7501;state=blocked:app=claude-code:kind=permission\x07',
  r: () => '\x1b]7501;state=working:app=claude-code\x07',
};
if (process.stdin.isTTY) process.stdin.setRawMode(true);
out.write(screens.i() + '\x1b[1;60HREADY');
process.stdin.on('data', (d) => {
  for (const k of d.toString()) {
    if (screens[k]) out.write(screens[k]());
    else if (k === 'x') process.exit(0);
    else if (k === 'e') out.write('bye', () => process.exit(3));
    else if (k === 'k') process.kill(process.pid, 'SIGKILL');
  }
});
out.on('resize', () => out.write(screens.s()));
`;

/** Writes the fake Claude Code as the executable `dir/claude`; returns its path. */
export function writeFakeClaude(dir: string): string {
  const path = join(dir, 'claude');
  writeFileSync(path, `#!${process.execPath}\n${FAKE_CLAUDE}`, { mode: 0o755 });
  return path;
}

/**
 * A temporary AGENTWATCH_DIR (under the OS's temporary folder, named `prefix` and a random
 * tail) with the fake Claude Code in it: the folder, the agent's path, and process.env with
 * AGENTWATCH_DIR set to the folder.
 */
export function fakeClaudeDir(
  prefix: string,
): { dir: string; agent: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, agent: writeFakeClaude(dir), env: { ...process.env, AGENTWATCH_DIR: dir } };
}

/**
 * Starts an interactive bash in `host`, headless, with no rc files and an empty prompt: the
 * shell the fake Claude Code is typed into, as a person starts an agent.
 */
export function startShell(host: SessionHost): Promise<Session> {
  return host.start({
    command: 'bash',
    args: ['--norc', '--noprofile', '-i'],
    env: { PS1: '' },
    headless: true,
  });
}
