/**
 * One notifier per session, with real processes: a board (`agentwatch watch`, in its own PTY)
 * and a `run` session of the simulated agent in another PTY, sharing one AGENTWATCH_DIR and one
 * `--notify-cmd` that logs each notice. Two prompts in a row, each answered like a person:
 * - the command runs once per prompt (the session's host announces it; the board does not),
 * - the terminal notice (OSC 9) reaches the board's terminal, not run's (a board follows it),
 * - run's terminal title carries the state;
 * - run's push endpoint is down: the failure shows in `ls --json` (`notify`) and on the
 *   board's status line.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentwatchArgv, followSession, mark, runCli } from './support/agentwatch-e2e.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';
import { sleep, until } from './support/until.ts';

const text = (p: PtyDriver) => Buffer.concat(p.output.map((c) => c.data)).toString('utf8');

test('a board and a run session: one command per prompt, the terminal notice on the board', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-notify-board-'));
  const log = join(dir, 'notices.log');
  const script = join(dir, 'log.sh');
  writeFileSync(script, `echo "$AGENTWATCH_SESSION $AGENTWATCH_ACTION" >> ${log}\n`);
  const env = { ...process.env, AGENTWATCH_DIR: dir, TERM: 'xterm-256color' };
  const notify = ['--no-desktop', '--notify-cmd', `sh ${script}`];
  // a push endpoint that is down (a port nothing listens on any more): reported, not silent
  const srv = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => srv.once('listening', r));
  const down = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`;
  await new Promise((r) => srv.close(r));
  let board: PtyDriver | undefined;
  let run: PtyDriver | undefined;
  const lines = () =>
    (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [])
      .filter(Boolean);
  try {
    run = await startPty({
      command: process.execPath,
      args: agentwatchArgv([
        'run',
        '--agent',
        'claude',
        '--name',
        'far',
        ...notify,
        '--notify-url',
        down,
        '--',
        process.execPath,
        ...agentwatchArgv(['sim-agent', '--seed', '11', '--speed', '2']),
      ]),
      env,
      cwd: dir,
      cols: 120,
      rows: 32,
    });
    const f = await followSession(dir, 'far', 30_000);
    board = await startPty({
      command: process.execPath,
      args: agentwatchArgv(['watch', ...notify]),
      env,
      cwd: dir,
      cols: 120,
      rows: 32,
    });
    await board.waitForScreen(/far/, 30_000);
    for (let k = 1; k <= 2; k++) {
      // a task the simulated agent asks permission for (seeded: it asks on most tasks)
      let blocked = false;
      for (let attempt = 0; attempt < 6 && !blocked; attempt++) {
        const from = mark(f);
        await run.type(`task ${k}.${attempt}\r`);
        const reached = await Promise.race([
          f.waitFor('blocked', 30_000, from).then(() => 'blocked'),
          f.waitFor('idle', 30_000, from + 1).then(() => 'idle'),
        ]).catch(() => 'none');
        blocked = reached === 'blocked';
        if (!blocked) await f.waitFor('idle', 30_000, from).catch(() => {});
      }
      assert.ok(blocked, `prompt ${k} shown`);
      await until(`notice ${k}`, () => lines().length >= k, 30_000);
      await sleep(700); // as a person: read, then answer
      const from = mark(f);
      run.send('1');
      await f.waitFor('idle', 30_000, from);
    }
    await sleep(1_000); // a duplicate would come now
    assert.is(lines().length, 2, lines().join('\n'));
    assert.ok(lines().every((l) => l.startsWith(f.first.id)), lines().join('\n'));
    assert.ok(text(board).includes('\x1b]9;far (claude) needs you'), 'OSC 9 on the board');
    assert.not.ok(text(run).includes('\x1b]9;'), "none in run's terminal: a board follows it");
    assert.ok(text(run).includes('\x1b]2;[blocked]'), "run's title says blocked");
    // the push that fails: in ls --json (notify field) and on the board's status line
    const ls = await runCli(['ls', '--json'], env);
    const listed = JSON.parse(ls.stdout);
    const far = (Array.isArray(listed) ? listed : listed.sessions).find((s: { name: string }) =>
      s.name === 'far'
    );
    assert.match(far?.notify?.push ?? '', /ECONNREFUSED/, ls.stdout);
    await board.waitForScreen(/notify failed: push \(far: /, 10_000);
  } finally {
    await board?.close();
    await run?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
