/**
 * An agent started again in the same shell is a new run: after the first one worked and ended
 * (its shell back in the foreground: exited), the second one, idle, is "ready, no task yet",
 * not "done 7 s ago" (the tester's finding). An interactive bash in a real PTY hosted by a
 * SessionHost, the fake Claude Code (test/support/fake-claude.ts) typed into it twice.
 */
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { detailOf } from '../src/cli/board/rows.ts';
import { createHost } from '../src/runtime/default-host.ts';
import { fakeClaudeDir, startShell } from './support/fake-claude.ts';
import { until } from './support/until.ts';

test('the agent started again in its shell is ready, no task yet; not done', async () => {
  const { dir, agent, env } = fakeClaudeDir('aw-again-');
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const session = await startShell(host);
    const w = host.ptyPane(session.id)!;
    const state = (want: string, fg: string) =>
      until(`${want} with ${fg} in front`, () => {
        w.classifyNow();
        return w.record.state === want && w.foreground.name === fg && w.info();
      }, 60_000).catch((e) => {
        throw new Error(`${e.message}: ${w.record.state} (${w.record.reason})`);
      });
    await state('shell', 'bash');
    for (const run of [1, 2]) {
      session.write(`${agent}\r`);
      const ready = await state('idle', 'claude');
      assert.is(ready.fresh, true, `run ${run}: idle before any task`);
      assert.is(detailOf(ready), 'ready, no task yet', `run ${run}`);
      session.write('w'); // a task: working, then done
      await state('working', 'claude');
      session.write('i');
      const done = await state('idle', 'claude');
      assert.is(done.fresh, undefined, `run ${run}: a task was done`);
      assert.match(detailOf(done), /^done \d+ s ago$/);
      session.write('x'); // the agent ends, its shell is back
      const ended = await state('exited', 'bash');
      assert.match(detailOf(ended), /agent ended, shell \(bash\)/);
    }
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
