/**
 * `agentwatch ls` against fake session sockets in a temporary AGENTWATCH_DIR: what sessions
 * say about themselves (names, questions, reasons) is printed without control characters, and
 * a socket answering a malformed info is left out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lsCommand } from '../src/cli/ls.ts';
import { fakeInfo, type FakeSession, fakeSession } from './support/fake-session.ts';

/** Runs `ls` (with `args`' values) on `dir`; returns what it printed. */
async function ls(dir: string, values: Record<string, unknown> = {}): Promise<string> {
  const old = process.env.AGENTWATCH_DIR;
  process.env.AGENTWATCH_DIR = dir;
  let out = '';
  try {
    await lsCommand.run(values as never, [], {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
    });
  } finally {
    if (old === undefined) delete process.env.AGENTWATCH_DIR;
    else process.env.AGENTWATCH_DIR = old;
  }
  return out;
}

test('ls: escape sequences (and ages) in ids, agents, questions and reasons are not printed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-ls-'));
  const servers: FakeSession[] = [];
  const evil = '\x1b]0;pwned\x07\x1b[2J\x1b[H';
  try {
    const at = (n: string) => join(dir, `${n}.sock`);
    servers.push(
      await fakeSession(
        at('a'),
        () =>
          fakeInfo(`${evil}a-0001`, at('a'), {
            state: 'blocked',
            agent: `cl${evil}aude`,
            question: `\x1b[31mDelete everything?\x1b[0m\r\n${evil}`,
            startedAt: 1,
          }),
      ),
      await fakeSession(
        at('b'),
        () =>
          fakeInfo('b-0002', at('b'), {
            reason: `rule\x9b2J (idle) (4.1 s ago)\x07`, // an age is FOR's, computed now
            startedAt: 2,
          }),
      ),
    );
    const out = await ls(dir);
    assert.not.match(out.replace(/\n/g, ''), /[\x00-\x1f\x7f-\x9f]/, JSON.stringify(out));
    const lines = out.split('\n');
    assert.match(lines[1], /^a-0001 +claude +blocked +\d+s +Delete everything\? *$/);
    assert.match(
      lines[2],
      /^b-0002 +claude +idle +\d+[smh]\S* +done \d+ [smh] ago$/,
      'no rule internals',
    );
    // --json prints the infos as they came: JSON escapes the control characters.
    const json = await ls(dir, { json: true });
    assert.not.match(json, /[\x00-\x09\x0b-\x1f]/);
    assert.is(JSON.parse(json)[0].agent, `cl${evil}aude`);
  } finally {
    for (const s of servers) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ls: a socket answering a malformed info is left out', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-ls-'));
  const servers: FakeSession[] = [];
  try {
    const at = (n: string) => join(dir, `${n}.sock`);
    servers.push(
      await fakeSession(at('good'), () => fakeInfo('good-0001', at('good'))),
      await fakeSession(at('bad'), () => ({ ...fakeInfo('bad-0002', at('bad')), state: 42 })),
    );
    const out = await ls(dir);
    assert.match(out, /good-0001/);
    assert.not.match(out, /bad-0002/);
  } finally {
    for (const s of servers) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
