/**
 * src/cli/board/hosted.ts: a session typed at the board's n key (or a `watch -- CMD` group)
 * is started headless on the board's host with its name, agent and folder, sized as the
 * board's terminal; a folder that does not exist is refused before anything starts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sessionSize, startHosted } from '../src/cli/board/hosted.ts';
import type { SessionHost, StartOptions } from '../src/runtime/host.ts';

function fakeHost() {
  const started: StartOptions[] = [];
  const host = {
    start: (o: StartOptions) => {
      started.push(o);
      return Promise.resolve({ id: `${o.name ?? o.command}-0001` });
    },
  } as unknown as SessionHost;
  return { host, started };
}

const tty = { isTTY: true, rows: 40, columns: 150 } as NodeJS.WriteStream;
const pipe = { isTTY: false } as NodeJS.WriteStream;

test('startHosted: the typed name, agent and folder; the default agent; the terminal size', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-hosted-'));
  try {
    const { host, started } = fakeHost();
    const id = await startHosted(
      host,
      { argv: ['npx', 'claude', '--resume'], name: 'web', agent: 'claude', cwd: dir },
      'codex',
      tty,
    );
    assert.is(id, 'web-0001');
    assert.equal(started[0], {
      command: 'npx',
      args: ['claude', '--resume'],
      agent: 'claude',
      name: 'web',
      cwd: dir,
      headless: true,
      rows: 40,
      cols: 150,
    });
    await startHosted(host, { argv: ['bash'] }, 'codex', pipe);
    assert.equal(started[1], {
      command: 'bash',
      args: [],
      agent: 'codex',
      headless: true,
      rows: 32,
      cols: 120,
    });
    try {
      await startHosted(host, { argv: ['bash'], cwd: join(dir, 'nope') }, undefined, tty);
      assert.unreachable();
    } catch (e) {
      assert.match((e as Error).message, /no such folder: .*nope/);
    }
    assert.is(started.length, 2, 'nothing started for a missing folder');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sessionSize: the terminal when there is one, else the captures 32x120', () => {
  assert.equal(sessionSize(tty), { rows: 40, cols: 150 });
  assert.equal(sessionSize(pipe), { rows: 32, cols: 120 });
  assert.equal(sessionSize({ isTTY: true, rows: 0, columns: 0 } as NodeJS.WriteStream), {
    rows: 32,
    cols: 120,
  });
});

test.run();
