/**
 * A host adopts what its sessions leave running (src/runtime/adoption.ts): `agentwatch run`
 * (a real process, in a PTY) whose agent leaves a background process behind, its parent
 * gone: the orphan is re-parented to `run`, not to init, is registered in the host registry
 * as adopted while it runs, and once it ends `run` reaps it (no zombie is left under `run`).
 * About 10 s. Linux only (elsewhere a host does not adopt).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REGISTRY_DIR } from '../src/runtime/host-registry.ts';
import { agentwatchArgv } from './support/cli.ts';
import { startPty } from './support/pty-driver.ts';
import { until } from './support/until.ts';

/** /proc/PID/stat's state and ppid, or null when the process is gone. */
function stat(pid: number): { state: string; ppid: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], ppid: Number(f[1]) };
  } catch {
    return null;
  }
}

if (process.platform !== 'linux') {
  test.skip("a host adopts its sessions' orphans (Linux only)");
} else {
  test('run adopts what its agent leaves running, registers it, and reaps it once it ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-adopt-'));
    const env: Record<string, string> = { ...process.env as Record<string, string> };
    env.AGENTWATCH_DIR = dir;
    delete env.AGENTWATCH_SESSION;
    delete env.AGENTWATCH_SOCKET;
    const pidFile = join(dir, 'orphan.pid');
    const goFile = join(dir, 'go');
    // the orphan waits for `go`, then ends; its parent (a subshell) is gone at once
    const agent =
      `(bash -c 'echo $$ > ${pidFile}; while [ ! -e ${goFile} ]; do sleep 0.1; done' &); ` +
      'exec sleep 600';
    const run = await startPty({
      command: process.execPath,
      args: agentwatchArgv(['run', '--name', 'adopt', '--no-hooks', '--', 'bash', '-c', agent]),
      env,
      cwd: dir,
    });
    try {
      const orphan = await until('the orphan', () => {
        const t = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : '';
        return t ? Number(t) : false;
      }, 30_000);
      await until(
        "the orphan's parent is run",
        () => stat(orphan)?.ppid === run.pid,
        10_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}: ${JSON.stringify(stat(orphan))}, run ${run.pid}`);
      });
      const registered = () => {
        try {
          const data = JSON.parse(readFileSync(join(REGISTRY_DIR, `${run.pid}.json`), 'utf8'));
          return {
            subreaper: data.subreaper,
            adopted: data.adopted.map((a: { pid: number }) => a.pid),
          };
        } catch {
          return null;
        }
      };
      await until(
        'the orphan registered as adopted',
        () => registered()?.adopted.includes(orphan),
        10_000,
      );
      assert.is(registered()?.subreaper, true);
      // it ends: reaped by run (a zombie under run would stay in /proc)
      writeFileSync(goFile, '');
      await until('the orphan reaped', () => stat(orphan) === null, 10_000).catch((e: Error) => {
        throw new Error(`${e.message}: ${JSON.stringify(stat(orphan))}`);
      });
      await until('no longer registered', () => !registered()?.adopted.includes(orphan), 10_000);
    } finally {
      await run.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test.run();
