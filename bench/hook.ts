/**
 * The wall time of one agent hook call, `agentwatch report working` with a live session's
 * socket (AGENTWATCH_SOCKET, as the session sets it for its agent), against `node -e 0`:
 * from source (`node --import tsx src/cli/main.ts`), from the plain bundle
 * (`node dist/agentwatch.cjs`) and from the single executable (`dist/agentwatch`) when
 * `npm run build` made them. Goal (DESIGN.md: hooks are "always quick"): at most 1.3x
 * `node -e 0`.
 *
 * The session is a real SessionHost in this process (a `sleep` in a PTY, rules of claude.toml)
 * in a temporary AGENTWATCH_DIR; every call must reach it (its event log is counted). Each
 * command runs N times, round-robin with the others so that a busy machine's load spreads
 * evenly; median and p90 are printed with the ratio of the median to `node -e 0`'s. Context
 * rows: `node --import tsx -e 0` (what tsx alone costs), `report working` with no session
 * (no socket I/O), `--version` (the full CLI's start-up, for the executable).
 *
 * Then where the time goes, for the bundle and the executable: the time from the end of
 * Node's own start-up (a `--require` preload; NODE_OPTIONS for the executable) to exit,
 * against `node -e 0`'s, and for the bundle a CPU profile of one call, summed by kind
 * (compiling the script, reading files, Node's built-in modules, the rest).
 *
 * Run: `node --import tsx bench/hook.ts [N]` (N defaults to 30).
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../src/runtime/default-host.ts';

const ROOT = join(import.meta.dirname, '..');
const N = Number(process.argv[2] ?? 30);
const GOAL = 1.3;

/** A command to time: what it runs, and whether it is a hook call that must reach the session. */
interface Case {
  name: string;
  argv: string[];
  /** Set AGENTWATCH_SOCKET (a hook call that must reach the session). */
  live: boolean;
  times: number[];
}

/** Runs `argv` once; resolves with its wall time, ms (spawn to exit), or rejects on failure. */
function timeOnce(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(argv[0], argv.slice(1), { env, cwd: ROOT, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code === 0) resolve(ms);
      else reject(new Error(`${argv.join(' ')} exited with ${code}`));
    });
  });
}

/** Runs `argv` once with `env`; resolves with its stderr. */
function stderrOf(argv: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      env,
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(err));
  });
}

/**
 * Milliseconds from the end of Node's start-up (when a `--require` preload runs) to exit,
 * median of `n` runs of `argv`; `viaEnv` passes the preload in NODE_OPTIONS (the executable
 * takes no Node flags on its command line).
 */
async function afterStartup(
  argv: string[],
  env: NodeJS.ProcessEnv,
  probe: string,
  viaEnv: boolean,
  n = 10,
): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const run = viaEnv
      ? stderrOf(argv, { ...env, NODE_OPTIONS: `--require ${probe}` })
      : stderrOf([argv[0], '--require', probe, ...argv.slice(1)], env);
    const m = /AFTER_STARTUP_MS ([\d.]+)/.exec(await run);
    if (m) ms.push(Number(m[1]));
  }
  return ms.length ? quantile(ms, 0.5) : NaN;
}

/** One call of `argv` (a node script) under --cpu-prof: its self time summed by kind, ms. */
async function profile(argv: string[], env: NodeJS.ProcessEnv, dir: string) {
  const out = mkdtempSync(join(dir, 'prof-'));
  await stderrOf(
    [argv[0], '--cpu-prof', '--cpu-prof-interval', '50', '--cpu-prof-dir', out, ...argv.slice(1)],
    env,
  );
  const file = readdirSync(out).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return null;
  const p = JSON.parse(readFileSync(join(out, file), 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const kind = new Map<number, string>();
  for (const n of p.nodes) {
    const f = n.callFrame.functionName;
    kind.set(
      n.id,
      f === 'wrapSafe' || f === 'compileFunction'
        ? 'compiling the script'
        : /^read(FileUtf8|FileSync|Sync)$/.test(f)
        ? 'reading files'
        : f === 'compileForInternalLoader'
        ? "Node's built-in modules"
        : f === '(garbage collector)'
        ? 'garbage collection'
        : 'the rest (Node start-up, the hook, exit)',
    );
  }
  const sums = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const k = kind.get(id)!;
    sums.set(k, (sums.get(k) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return [...sums].sort((a, b) => b[1] - a[1]);
}

/** The `p` quantile (0..1) of `xs`. */
function quantile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-hook-'));
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTWATCH_DIR: dir };
  delete env.AGENTWATCH_SOCKET;
  const host = createHost({ intervalMs: 700 }, env);
  try {
    const session = await host.start({
      command: 'sleep',
      args: ['600'],
      name: 'bench',
      agent: 'claude',
      headless: true,
    });
    const node = process.execPath;
    const main = join(ROOT, 'src', 'cli', 'main.ts');
    const cjs = join(ROOT, 'dist', 'agentwatch.cjs');
    const sea = join(ROOT, 'dist', 'agentwatch');
    const cases: Case[] = [
      { name: 'node -e 0', argv: [node, '-e', '0'], live: false, times: [] },
      {
        name: 'node --import tsx -e 0',
        argv: [node, '--import', 'tsx', '-e', '0'],
        live: false,
        times: [],
      },
      {
        name: 'source: report working',
        argv: [node, '--import', 'tsx', main, 'report', 'working'],
        live: true,
        times: [],
      },
    ];
    if (existsSync(cjs)) {
      cases.push(
        {
          name: 'bundle: report working',
          argv: [node, cjs, 'report', 'working'],
          live: true,
          times: [],
        },
        {
          name: 'bundle: report (no session)',
          argv: [node, cjs, 'report', 'working'],
          live: false,
          times: [],
        },
      );
    }
    if (existsSync(sea)) {
      cases.push(
        {
          name: 'executable: report working',
          argv: [sea, 'report', 'working'],
          live: true,
          times: [],
        },
        {
          name: 'executable: report (no session)',
          argv: [sea, 'report', 'working'],
          live: false,
          times: [],
        },
        { name: 'executable: --version', argv: [sea, '--version'], live: false, times: [] },
      );
    }
    const liveEnv = { ...env, AGENTWATCH_SOCKET: session.spec.socket };
    // count the reports that reach the session
    let reports = 0;
    const setReport = session.setReport.bind(session);
    session.setReport = (r) => {
      reports++;
      setReport(r);
    };
    // one untimed run each (page cache, tsx's transform cache, the executable's native assets)
    for (const c of cases) await timeOnce(c.argv, c.live ? liveEnv : env);
    reports = 0;
    for (let i = 0; i < N; i++) {
      for (const c of cases) c.times.push(await timeOnce(c.argv, c.live ? liveEnv : env));
    }
    const live = cases.filter((c) => c.live).length * N;
    const base = quantile(cases[0].times, 0.5);
    const rows = cases.map((c) => {
      const med = quantile(c.times, 0.5);
      const ratio = med / base;
      const verdict = c.live ? (ratio <= GOAL ? '  ok' : `  over the ${GOAL}x goal`) : '';
      return `  ${c.name.padEnd(34)} median ${med.toFixed(1).padStart(6)} ms  p90 ${
        quantile(c.times, 0.9).toFixed(1).padStart(6)
      } ms  ${ratio.toFixed(2)}x${verdict}`;
    });
    console.log(
      `hook call wall time, N=${N} each (round-robin), ratio = median / node -e 0's median\n` +
        rows.join('\n') +
        `\n  reports that reached the session: ${reports} of ${live} live calls`,
    );
    if (!existsSync(sea)) console.log('  (no dist/agentwatch: `npm run build` makes it)');

    // Where the time goes.
    const probe = join(dir, 'probe.cjs');
    writeFileSync(
      probe,
      `const t0 = process.hrtime.bigint();\nprocess.on('exit', () => require('fs').writeSync(2, ` +
        `'AFTER_STARTUP_MS ' + Number(process.hrtime.bigint() - t0) / 1e6 + '\\n'));\n`,
    );
    const lines = [
      `  node -e 0                          ${
        (await afterStartup([node, '-e', '0'], env, probe, false)).toFixed(1)
      } ms`,
    ];
    if (existsSync(cjs)) {
      const ms = await afterStartup([node, cjs, 'report', 'working'], liveEnv, probe, false);
      lines.push(`  bundle: report working             ${ms.toFixed(1)} ms`);
    }
    if (existsSync(sea)) {
      const ms = await afterStartup([sea, 'report', 'working'], liveEnv, probe, true);
      const version = await afterStartup([sea, '--version'], env, probe, true);
      lines.push(`  executable: report working         ${ms.toFixed(1)} ms`);
      lines.push(`  executable: --version              ${version.toFixed(1)} ms`);
    }
    console.log(
      `after Node's own start-up (a --require preload) to exit, median of 10:\n${lines.join('\n')}`,
    );
    if (existsSync(cjs)) {
      const sums = await profile([node, cjs, 'report', 'working'], liveEnv, dir);
      if (sums) {
        console.log(
          `one bundle call under --cpu-prof, self time by kind (${
            statSync(cjs).size
          } bytes of script):\n` +
            sums.map(([k, v]) => `  ${k.padEnd(40)} ${v.toFixed(1)} ms`).join('\n'),
        );
      }
    }
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
