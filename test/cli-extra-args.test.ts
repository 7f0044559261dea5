/**
 * Every command refuses a positional argument it does not take: exit 2, a message naming the
 * argument, nothing done. The CLI runs in-process (src/cli/app.ts `main`, whose code main.ts
 * exits with; test/cli-argv.test.ts checks that through the real process) in empty folders
 * (no sessions, no config). `report` and the `notify` hook are left out: a hook always exits 0.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliInProcess } from './support/cli.ts';
import { commands } from '../src/cli/commands.ts';

const home = mkdtempSync(join(tmpdir(), 'aw-extra-'));
const env = {
  ...process.env,
  AGENTWATCH_DIR: join(home, 'run'),
  XDG_CONFIG_HOME: join(home, 'config'),
  XDG_CACHE_HOME: join(home, 'cache'),
  XDG_STATE_HOME: join(home, 'state'),
  AGENTWATCH_SESSION: '',
};
const FILE = 'fixtures/claude-code/claude.blocked.raw';

/** Each command line with one argument too many, the word `extra`. */
const lines: string[][] = [
  ['run', 'extra', '--', 'true'],
  ['acp', 'gemini', 'extra'],
  ['watch', 'extra'],
  ['demo', 'extra'],
  ['eval', 'extra'],
  ['ls', 'extra'],
  ['ls', '--json', 'extra'],
  ['send', 'api', 'hello', 'extra'],
  ['answer', '--yes', 'api', '1', 'extra'],
  ['cancel', 'api', 'extra'],
  ['notify', '--test', '--no-desktop', 'extra'],
  ['explain', FILE, 'extra'],
  ['screen', FILE, 'extra'],
  ['manifests', 'list', 'extra'],
  ['manifests', 'where', 'extra'],
  ['manifests', 'pull', 'extra'],
  ['manifests', 'keygen', join(home, 'key'), 'extra'],
  ['config', 'extra'],
  ['record', '--out', join(home, 'rec'), 'extra', '--', 'true'],
  ['mark', 'api', 'idle', 'a note', 'extra'],
  ['cut', join(home, 'rec', 'x'), 'extra', '--at', '1', '--label', 'idle'],
  ['sim-agent', 'extra'],
  ['kill', 'api', 'extra'],
  ['__host', 'extra'],
];

test.after(() => rmSync(home, { recursive: true, force: true }));

test('every command that takes a fixed number of arguments is listed here', () => {
  // wait (SESSION...), classify (FILE...) take any number; report is a hook (always exit 0).
  const many = ['wait', 'classify', 'report'];
  const listed = new Set(lines.map((l) => l[0]));
  for (const c of commands) {
    if (!many.includes(c.name)) assert.ok(listed.has(c.name), `${c.name} is not tested`);
  }
});

test('an extra argument: exit 2, named, nothing done', async () => {
  for (const line of lines) {
    const r = await cliInProcess(line, env);
    const args = line.join(' ');
    assert.is(r.code, 2, `${args}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /'?extra'?/, args);
    assert.not.match(r.stderr, /internal error/, args);
  }
  assert.equal(readdirSync(home).filter((n) => n.startsWith('key') || n === 'rec'), []);
});

test('the message names the argument and what the command takes', async () => {
  const r = await cliInProcess(['ls', 'extra'], env);
  assert.match(r.stderr, /^agentwatch ls: unexpected argument 'extra' \(ls takes no arguments\)\n/);
  const s = await cliInProcess(['send', 'api', 'hello', 'extra'], env);
  assert.match(s.stderr, /^agentwatch send: unexpected argument 'extra' \(send takes at most 2\)/);
});

test.run();
