/**
 * Every command that takes a SESSION (send, answer, wait, explain, mark, cancel, kill) says the same for a name that matches several sessions
 * (the ids, exit 2, no usage text) and for one that matches none (exit 4). Fake session
 * sockets (no PTY); the commands run in-process (src/cli/app.ts `main`), the point being
 * their words and exit code.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliInProcess } from './support/cli.ts';
import { fakeInfo, type FakeSession, fakeSession } from './support/fake-session.ts';

const dir = mkdtempSync(join(tmpdir(), 'aw-names-'));
const env = { ...process.env, AGENTWATCH_DIR: dir, AGENTWATCH_SESSION: '' };
const open: FakeSession[] = [];

test.before(async () => {
  for (const id of ['api-1a2b', 'api-9f00']) {
    const socket = join(dir, `${id}.sock`);
    open.push(await fakeSession(socket, () => fakeInfo(id, socket, { state: 'blocked' })));
  }
});

test.after(async () => {
  for (const s of open) await s.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

/** Each SESSION command with `key` as its session. */
const commandsWith = (key: string) => [
  ['send', key, 'hello'],
  ['send', '--no-enter', key, 'hello'],
  ['answer', '--yes', key, '1'],
  ['wait', key, '--until', 'idle'],
  ['wait', key, '--until', 'idle', '--timeout', '0.3'],
  ['explain', key],
  ['mark', key, 'idle'],
  ['cancel', key],
  ['kill', key],
];

test('an ambiguous name: the same words and exit 2 from every SESSION command, no usage', async () => {
  const runs = await Promise.all(commandsWith('api').map((args) => cliInProcess(args, env)));
  runs.forEach((r, i) => {
    const args = commandsWith('api')[i].join(' ');
    assert.is(r.code, 2, `${args}: ${r.stderr}`);
    const [cmd] = commandsWith('api')[i];
    assert.is(
      r.stderr,
      `agentwatch ${cmd}: 'api' matches 2 sessions: api-1a2b, api-9f00 (give more of the id)\n`,
      args,
    );
    assert.is(r.stdout, '', args);
  });
});

test('a name that matches none: exit 4 from every SESSION command', async () => {
  const cmds = commandsWith('nobody').filter((a) => !(a[0] === 'wait' && a.length === 4));
  const runs = await Promise.all(cmds.map((args) => cliInProcess(args, env)));
  runs.forEach((r, i) => {
    assert.is(r.code, 4, `${cmds[i].join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /no session 'nobody' \(see 'agentwatch ls'\)\n$/);
    assert.not.match(r.stderr, /usage:/);
  });
});

test('an empty SESSION (an unset variable) names no session: exit 2 from every command, nothing ended', async () => {
  const cmds = commandsWith('').filter((a) => !(a[0] === 'wait' && a.length === 4));
  const runs = await Promise.all(cmds.map((args) => cliInProcess(args, env)));
  runs.forEach((r, i) => {
    assert.is(r.code, 2, `${cmds[i].join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /an empty SESSION names no session/);
  });
  const ls = await cliInProcess(['ls'], env);
  assert.match(ls.stdout, /api-1a2b/);
  assert.match(ls.stdout, /api-9f00/);
});

test('wait without --until says it is required', async () => {
  const r = await cliInProcess(['wait', 'api-1a2b'], env);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /--until is required/);
});

test.run();
