/**
 * `agentwatch kill` on real Qwen Code 0.24.4 (dev dependency; a headless session of a host of
 * this process, as `run --detach` runs it; fake model server on 127.0.0.1), twice in a row (each
 * round a fresh HOME). Qwen's launcher (node_modules/.bin/qwen) runs its CLI as a child process
 * in its process group; on SIGHUP the launcher exits at once while the CLI goes on shutting
 * down, writing ~/.qwen for a second or more. Before, the session read exited (`kill`
 * returned, `wait --until exited` too) while the CLI still ran. Now the session's exit is
 * published once its process group is empty: when it is, no process of the HOME runs (read at
 * the exit event itself), `kill` exits 0, and `kill` and `wait --until exited` return only
 * after the last process of the HOME was seen (polled every 25 ms). Skipped (with a printed
 * reason) when node_modules/.bin/qwen is missing. Whether Qwen's CLI outlives its launcher is
 * Qwen's timing (0.9 s once, 60 ms another time, none under heavy load), so the same is checked
 * against a launcher of ours whose child always does: a child that takes 800 ms to end after
 * SIGHUP ended before the session read exited; one that ignores SIGHUP is killed (SIGKILL)
 * GROUP_GRACE_MS after the launcher exited. About 40-80 s.
 */

/**
 * argv LOG MODE: runs itself as a child (AW_FAKE_CHILD=1, same group) and exits at once on
 * SIGHUP. The child logs its pid; on SIGHUP it logs `hup`, then (`slow`) logs `done` and
 * exits 800 ms later, or (`stubborn`) stays.
 */
const LAUNCHER = String.raw`
const fs = require('fs');
const [log, mode] = process.argv.slice(2);
if (!process.env.AW_FAKE_CHILD) {
  require('child_process').spawn(process.execPath, process.argv.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, AW_FAKE_CHILD: '1' },
  });
  process.on('SIGHUP', () => process.exit(0));
  process.stdout.write('launcher\r\n');
} else {
  fs.appendFileSync(log, 'child ' + process.pid + '\n');
  process.on('SIGHUP', () => {
    fs.appendFileSync(log, 'hup\n');
    if (mode === 'slow') {
      setTimeout(() => {
        fs.appendFileSync(log, 'done\n');
        process.exit(0);
      }, 800);
    }
  });
  setInterval(() => {}, 1000);
}
`;

/** Starts LAUNCHER in `mode`, kills the session; what the log said at the exit event, and more. */
async function killLauncher(mode: 'slow' | 'stubborn') {
  const h = privateHost('aw-kill-launcher-');
  try {
    const script = join(h.dir, 'launcher.cjs');
    const log = join(h.dir, 'log');
    writeFileSync(script, LAUNCHER);
    writeFileSync(log, '');
    const session = await h.host.start({
      command: process.execPath,
      args: [script, log, mode],
      headless: true,
    });
    const pane = h.host.ptyPane(session.id)!;
    await until('the child', () => readFileSync(log, 'utf8').includes('child '), 20_000);
    const child = Number(/child (\d+)/.exec(readFileSync(log, 'utf8'))![1]);
    let atExit: { log: string; childRuns: boolean } | undefined;
    session.onExit(() => (atExit = { log: readFileSync(log, 'utf8'), childRuns: runs(child) }));
    const started = Date.now();
    try {
      const exit = await pane.kill();
      return { exit, atExit, took: Date.now() - started, events: session.events(), child };
    } finally {
      // left running by a kill that did not wait for it (a failing run): not left behind
      if (runs(child)) process.kill(child, 'SIGKILL');
    }
  } finally {
    await h.close();
  }
}

/** True while process `pid` runs (a zombie does not). */
function runs(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

test('kill: a child that ends 800 ms after SIGHUP has ended when the session reads exited', async () => {
  const r = await killLauncher('slow');
  assert.ok(r.exit, 'it exited');
  assert.ok(r.atExit, 'the exit was published');
  assert.match(r.atExit!.log, /hup\ndone\n/, 'the child finished before the session read exited');
  assert.not.ok(r.atExit!.childRuns);
});

test('kill: a child that ignores SIGHUP is killed GROUP_GRACE_MS after its launcher exited', async () => {
  const r = await killLauncher('stubborn');
  assert.ok(r.exit, 'it exited');
  assert.ok(r.atExit, 'the exit was published');
  assert.not.ok(r.atExit!.childRuns, 'the child was killed before the session read exited');
  assert.ok(r.took >= GROUP_GRACE_MS, `kill took ${r.took} ms`);
  assert.ok(
    r.events.some((e) => /process group \d+ still runs: SIGKILL/.test(e)),
    r.events.join('\n'),
  );
});

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GROUP_GRACE_MS } from '../src/runtime/session.ts';
import { runCli } from './support/agentwatch-e2e.ts';
import { makeQwenHome, processesWithHome, QWEN_BIN } from './support/agent-homes.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import { privateHost, startHostedAgent } from './support/hosted-agent.ts';
import { until } from './support/until.ts';

if (!existsSync(QWEN_BIN)) {
  console.log(`kill-group: skipped: ${QWEN_BIN} is missing (npm ci installs it)`);
  test.skip('kill waits for Qwen Code CLI');
} else {
  test('kill: Qwen Code reads exited only once its CLI child has ended too, twice', async () => {
    const server = await startFakeOpenAI();
    try {
      for (const round of [1, 2]) {
        const home = makeQwenHome({ baseUrl: server.url });
        const a = await startHostedAgent(
          'aw-kill-group-',
          { command: QWEN_BIN, args: [], env: home.env, cwd: home.project },
          30,
          100,
        );
        const { session, pane } = a;
        let poll: ReturnType<typeof setInterval> | undefined;
        try {
          await until(
            'the composer, idle',
            () => {
              pane.classifyNow();
              return pane.record.state === 'idle' &&
                /Type your message/.test(session.terminal.screenText());
            },
            120_000,
            50,
          ).catch((e: Error) => {
            throw new Error(`${e.message}: ${session.terminal.screenText()}`);
          });
          const procs = processesWithHome(home.home);
          assert.ok(procs.length >= 2, `round ${round}: launcher and CLI (${procs})`);
          /** The processes of this HOME when the session published its exit. */
          let atExit: number[] | undefined;
          session.onExit(() => (atExit = processesWithHome(home.home)));
          /** When a process of this HOME was last seen running, ms since the epoch. */
          let lastSeen = Date.now();
          poll = setInterval(() => {
            if (processesWithHome(home.home).length) lastSeen = Date.now();
          }, 25);
          const dir = session.spec.socket.slice(0, session.spec.socket.lastIndexOf('/'));
          const env = { ...process.env, AGENTWATCH_DIR: dir };
          const waited = runCli(
            ['wait', session.id, '--until', 'exited', '--timeout', '60'],
            env,
            70_000,
          );
          const killed = await runCli(['kill', session.id], env, 60_000);
          const w = await waited;
          clearInterval(poll);
          assert.is(killed.code, 0, `round ${round}: ${killed.stdout}${killed.stderr}`);
          assert.match(killed.stdout, /^ended /);
          assert.is(w.code, 0, `round ${round}: wait: ${w.stdout}${w.stderr}`);
          assert.equal(atExit, [], `round ${round}: nothing of it ran when it read exited`);
          assert.equal(processesWithHome(home.home), [], `round ${round}: nothing of it runs`);
          assert.ok(
            lastSeen <= killed.endedAt && lastSeen <= w.endedAt,
            `round ${round}: a process of the session ran ${lastSeen - killed.endedAt} ms after ` +
              `kill returned, ${lastSeen - w.endedAt} ms after wait --until exited did`,
          );
        } finally {
          clearInterval(poll);
          await a.close();
          await home.cleanup();
        }
      }
    } finally {
      await server.close();
    }
  });
}

test.run();
