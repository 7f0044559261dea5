/**
 * A new session is looked at once, not at the host's next sweep (src/runtime/host.ts): real
 * PTYs, an interactive bash, the real foreground reader, and a host whose periodic sweep never
 * fires (a one-hour interval, no adaptive looks). Before its first look a session publishes its
 * initial record (`idle`, by `start`), which nobody looked at; `ls` straight after
 * `run --detach` showed it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from '../src/runtime/control-client.ts';
import { createHost } from '../src/runtime/default-host.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { until } from './support/until.ts';

test('a new session is looked at without a sweep: bash reads shell on its socket, twice in a row', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-first-'));
  const host = createHost({ intervalMs: 3_600_000, adaptive: false }, {
    ...process.env,
    AGENTWATCH_DIR: dir,
  });
  try {
    for (const name of ['first', 'second']) {
      const session = await host.start({
        command: 'bash',
        args: ['--norc', '--noprofile', '-i'],
        env: { PS1: '$ ' },
        name,
        headless: true,
      });
      const pane = host.ptyPane(session.id)!;
      await until(`${name}: its first look`, () => pane.record.state === 'shell', 10_000);
      assert.is(host.sweepStats.ticks, 0, 'no sweep ran');
      const info = await request<{ session: SessionInfo }>(session.spec.socket, { op: 'info' });
      assert.is(info.session.state, 'shell');
      assert.is(info.session.by, 'foreground');
      assert.is(info.session.foreground, 'bash');
    }
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
