/**
 * `npm run bench:rss`: memory per session of the built executable (dist/agentwatch), one
 * background host serving N sessions beside one `agentwatch run` process per session, in the
 * same run. For each N (`--sessions 10,100`):
 *
 * - `host-N`: one `agentwatch __host` (the background host, started as `run --detach` starts
 *   it) with N sessions started in it, as `run --detach` does;
 * - `run-N`: N `agentwatch run -- CMD` processes, each with its stdin a pipe left open (a
 *   person's terminal that stays);
 * - `host-N+flags`, `run-N+flags`: the same with `--flags=...` in NODE_OPTIONS, so the effect
 *   of V8 flags on memory and CPU shows beside the case without them (with an executable
 *   built without them: NODE_OPTIONS cannot take back a flag built in);
 * - `host-N before`, `run-N before`: the same with `--before EXECUTABLE` (an older build, say
 *   one without build.ts's SEA_EXEC_ARGV), so a change shows beside what it replaced.
 *
 * Only agentwatch's own processes are measured (not the commands in the sessions), after
 * `--settle` seconds (default 20: V8 shrinks an idle heap after some seconds), from
 * /proc/PID/smaps_rollup: RSS, PSS (shared pages split between the processes that map them:
 * the executable's pages are shared by every `run`) and anon (pages backed by no file: the
 * JS heap, malloc, stacks; what a process costs beyond the executable's pages), summed over the case's processes and divided by N; CPU is the processes' user +
 * system time over the settle window, % of one core. `--cmd idle` (default) runs `bash
 * --norc` waiting at its prompt, `--cmd busy` a shell printing a line every 0.2 s. `--json`
 * prints `{cases: [{name, sessions, processes, rssMB, pssMB, anonMB, perSession: {rssMB,
 * pssMB, anonMB}, cpuPct}]}`; `--only host|run` runs only those cases. Linux only (/proc).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { listSessions } from '../src/runtime/session-directory.ts';
import { startDetached } from '../src/runtime/host-client.ts';
import { hostSocketPath } from '../src/runtime/host-protocol.ts';
import { socketAlive } from '../src/runtime/control-server.ts';

const ROOT = join(import.meta.dirname, '..');
const CLK_TCK = 100; // sysconf(_SC_CLK_TCK) on Linux x86-64 and arm64

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '10,100' },
    exe: { type: 'string', default: join(ROOT, 'dist', 'agentwatch') },
    cmd: { type: 'string', default: 'idle' },
    settle: { type: 'string', default: '20' },
    flags: { type: 'string' },
    only: { type: 'string' },
    before: { type: 'string' },
    json: { type: 'boolean' },
  },
});

const EXE = values.exe!;
if (!existsSync(EXE)) {
  console.error(`bench/rss: ${EXE} not found: run 'npm run build' first`);
  process.exit(2);
}
const COUNTS = values.sessions!.split(',').map(Number);
const SETTLE_MS = Number(values.settle) * 1000;
const COMMAND = values.cmd === 'busy'
  ? [
    'bash',
    '--norc',
    '-c',
    'exec 9<> <(sleep 100000); while :; do echo "working $SECONDS $RANDOM"; read -t 0.2 -u 9; done',
  ]
  : ['bash', '--norc'];

const FLAGS = values.flags ?? '';

interface Memory {
  rss: number;
  pss: number;
  /** Pages backed by no file (the JS heap, malloc, stacks): this process's own. */
  anon: number;
}

/** A process's memory from /proc/PID/smaps_rollup, in bytes (zeros when it is gone). */
function memoryOf(pid: number): Memory {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return {
      rss: kb('Rss') * 1024,
      pss: kb('Pss') * 1024,
      anon: kb('Anonymous') * 1024,
    };
  } catch {
    return { rss: 0, pss: 0, anon: 0 };
  }
}

/** A process's user + system CPU time so far, ms (fields 14 and 15 of /proc/PID/stat). */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return 0;
  }
}

interface CaseResult {
  name: string;
  sessions: number;
  processes: number;
  rssMB: number;
  pssMB: number;
  anonMB: number;
  perSession: { rssMB: number; pssMB: number; anonMB: number };
  cpuPct: number;
}

const mb = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;

/** Waits `SETTLE_MS`, then measures `pids` (CPU over the wait). */
async function measure(name: string, sessions: number, pids: number[]): Promise<CaseResult> {
  const cpu0 = pids.reduce((a, p) => a + cpuMs(p), 0);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const cpu1 = pids.reduce((a, p) => a + cpuMs(p), 0);
  const wall = Date.now() - t0;
  const sum = pids.map(memoryOf).reduce(
    (a, m) => ({ rss: a.rss + m.rss, pss: a.pss + m.pss, anon: a.anon + m.anon }),
    { rss: 0, pss: 0, anon: 0 },
  );
  return {
    name,
    sessions,
    processes: pids.length,
    rssMB: mb(sum.rss),
    pssMB: mb(sum.pss),
    anonMB: mb(sum.anon),
    perSession: {
      rssMB: mb(sum.rss / sessions),
      pssMB: mb(sum.pss / sessions),
      anonMB: mb(sum.anon / sessions),
    },
    cpuPct: Math.round(((cpu1 - cpu0) / wall) * 1000) / 10,
  };
}

/** A private folder with sockets, config, state and cache, and the environment for it. */
function sandbox(nodeOptions = ''): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'aw-rss-'));
  mkdirSync(join(dir, 's'), { mode: 0o700 });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AGENTWATCH_DIR: join(dir, 's'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_CACHE_HOME: join(process.env.HOME ?? dir, '.cache'), // the extracted native parts
  };
  if (nodeOptions) env.NODE_OPTIONS = nodeOptions;
  else delete env.NODE_OPTIONS;
  return { dir, env };
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 120_000) {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`bench/rss: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** N sessions in one background host of the executable. */
async function hostCase(
  n: number,
  name: string,
  nodeOptions = '',
  exe = EXE,
): Promise<CaseResult> {
  const { dir, env } = sandbox(nodeOptions);
  const host = spawn(exe, ['__host'], { env, detached: true, stdio: 'ignore' });
  try {
    await until('the host', () => socketAlive(hostSocketPath(env)));
    for (let i = 0; i < n; i += 10) {
      await Promise.all(
        Array.from(
          { length: Math.min(10, n - i) },
          (_, k) =>
            startDetached({
              command: COMMAND[0],
              args: COMMAND.slice(1),
              name: `s${i + k}`,
              env: env as Record<string, string>,
              cwd: dir,
            }, env),
        ),
      );
    }
    await until(`${n} sessions`, async () => (await listSessions(env.AGENTWATCH_DIR)).length === n);
    return await measure(name, n, [host.pid!]);
  } finally {
    host.kill('SIGTERM');
    await until('the host to end', () => !alive(host.pid!), 30_000).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

/** N `agentwatch run` processes, with `nodeOptions` in their environment. */
async function runCase(
  n: number,
  name: string,
  nodeOptions = '',
  exe = EXE,
): Promise<CaseResult> {
  const { dir, env } = sandbox(nodeOptions);
  const runs: ChildProcess[] = [];
  try {
    for (let i = 0; i < n; i++) {
      runs.push(
        spawn(exe, ['run', '--no-update', '--name', `r${i}`, '--', ...COMMAND], {
          env,
          cwd: dir,
          stdio: ['pipe', 'ignore', 'ignore'],
        }),
      );
    }
    await until(
      `${n} run sessions`,
      async () => (await listSessions(env.AGENTWATCH_DIR)).length === n,
    );
    return await measure(name, n, runs.map((r) => r.pid!));
  } finally {
    for (const r of runs) r.kill('SIGTERM');
    await until('the runs to end', () => runs.every((r) => !alive(r.pid!)), 30_000).catch(
      () => {},
    );
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const results: CaseResult[] = [];
  for (const n of COUNTS) {
    if (values.only !== 'run') {
      results.push(await hostCase(n, `host-${n}`));
      if (FLAGS) results.push(await hostCase(n, `host-${n}+flags`, FLAGS));
      if (values.before) results.push(await hostCase(n, `host-${n} before`, '', values.before));
    }
    if (values.only !== 'host') {
      results.push(await runCase(n, `run-${n}`));
      if (FLAGS) results.push(await runCase(n, `run-${n}+flags`, FLAGS));
      if (values.before) results.push(await runCase(n, `run-${n} before`, '', values.before));
    }
  }
  if (values.json) {
    console.log(JSON.stringify({ cases: results }));
    return;
  }
  console.log(
    `bench/rss: ${EXE}, sessions run '${COMMAND.join(' ')}', measured after ${
      SETTLE_MS / 1000
    } s; ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
  );
  if (FLAGS) console.log(`+flags: NODE_OPTIONS='${FLAGS}'`);
  if (values.before) console.log(`before: ${values.before}`);
  const head = [
    'case',
    'procs',
    'RSS MB',
    'PSS MB',
    'anon MB',
    'per session: RSS',
    'PSS',
    'anon',
    'CPU %',
  ];
  const rows = results.map((r) => [
    r.name,
    String(r.processes),
    r.rssMB.toFixed(1),
    r.pssMB.toFixed(1),
    r.anonMB.toFixed(1),
    r.perSession.rssMB.toFixed(2),
    r.perSession.pssMB.toFixed(2),
    r.perSession.anonMB.toFixed(2),
    r.cpuPct.toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [head, ...rows]) {
    console.log(r.map((c, i) => (i ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  '));
  }
  // The host's cost of one more session: the slope between the two host cases.
  const hosts = results.filter((r) => /^host-\d+$/.test(r.name));
  for (let i = 1; i < hosts.length; i++) {
    const a = hosts[i - 1];
    const b = hosts[i];
    console.log(
      `host: each session from ${a.sessions} to ${b.sessions} adds ${
        ((b.rssMB - a.rssMB) / (b.sessions - a.sessions)).toFixed(2)
      } MB RSS, ${((b.anonMB - a.anonMB) / (b.sessions - a.sessions)).toFixed(2)} MB anon`,
    );
  }
}

await main();
