/**
 * Runs the test files in parallel processes (one `uvu -r tsx test FILE` each, the pure files
 * ({@link PURE}) together in one; at most TEST_JOBS at once, default 4: most end-to-end files
 * wait on real agents and PTYs, not on a core; 3 at a time kept 2 cores 78% busy), the
 * longest first, prints each process's output whole when it ends, with its wall and CPU
 * time, then one summary in uvu's words
 * (`Total:`, `Passed:`, `Skipped:`), which .ci/run reads. A failed file's output is printed
 * once more just above the summary, since CI keeps only the log's tail. Exit 1 when any file
 * failed.
 *
 * Before the files run, it bundles src/cli/main.ts (esbuild, 0.4 s) into
 * .cache/test/agentwatch.mjs and names it in AGENTWATCH_TEST_BUNDLE: the agentwatch processes
 * the tests start through test/support/cli.ts then start in a quarter of the CPU time of the
 * source through tsx. They run the same source, bundled by esbuild as the executable's is
 * (though as ESM, with the packages and resources/ read from the repository). A file run
 * alone (`npx uvu -r tsx test FILE`) starts the source through tsx.
 *
 * Each uvu process runs with TMPDIR set to a folder of its own, inside one fresh folder of the
 * run's (`/tmp/aw-test-XXXXXX/N/`: short, since the tests' Unix socket paths under it must
 * stay within 107 bytes). A test removes what it made there, also when it fails; whatever a
 * file left in its folder once its process ended is printed as a failure line naming the
 * path (`✘ left in TMPDIR: …`) and counted as one failed test of that file, the folder is then
 * removed; what appeared in the run's folder after that (a process that outlived its file)
 * counts the same at the end, and the run's folder is removed. So `npm test` leaves nothing in
 * the temp folder of the person who runs it, and a test that does shows in CI as failed. One
 * entry is the runner's own: `tsx-UID`, tsx's transform cache, a symbolic link to the one in
 * the system's temp folder (the runner's tsx uses it too), so that each process need not
 * compile the sources again.
 *
 * usage: node --import tsx test/run.ts [REGEX]   (only the files whose name matches)
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { TEST_BUNDLE_ENV } from './support/cli.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const UVU = join(ROOT, 'node_modules', 'uvu', 'bin.js');
/** A file still running after this long is killed and counted as failed (ms). */
const FILE_TIMEOUT_MS = 15 * 60_000;
/**
 * About how long the slowest files take, s: the longest start first (longest processing time
 * first), so that no long file starts late and ends the run alone. Relative figures, from the
 * run of 2026-12-01 22:37 UTC (4 files at a time, on 2 cores shared with other work); a file
 * not listed counts {@link UNLISTED_S}. A stale figure only changes the order.
 */
const EXPECTED_S: Record<string, number> = {
  'agentwatch-qwen-gemini.test.ts': 108,
  'agentwatch-claude-notify.test.ts': 72,
  'answer-claude.test.ts': 60,
  'background-host.test.ts': 59,
  'answer-qwen-arrows.test.ts': 45,
  'acp.test.ts': 41,
  'hooks.test.ts': 34,
  'agentwatch-claude.test.ts': 31,
  'vt-fixtures.test.ts': 27,
  'eval-live.test.ts': 26,
  'send-hold.test.ts': 25, // alone, 2026-12-02
  'answer-confirm.test.ts': 24,
  'agentwatch-claude-hooks.test.ts': 24,
  'watch.test.ts': 24,
  'trust.test.ts': 23,
  'catalog.test.ts': 21,
  'send-hold-run.test.ts': 15, // alone, 2026-12-02
  'guard.test.ts': 21,
  'cli-bad-input.test.ts': 19,
  'claude-real.test.ts': 18,
  'eval-replay.test.ts': 17,
  'notify-board.test.ts': 16,
  'detect-literal.test.ts': 15,
  'detect-cache.test.ts': 14,
  'runtime-faults.test.ts': 14,
  'build.test.ts': 14,
  'record-cut.test.ts': 13,
  'board-detach.test.ts': 13,
  'acp-real.test.ts': 12,
  'vt-random.test.ts': 11,
  'record-claude.test.ts': 11,
  'sim-agent.test.ts': 10,
  'foreground.test.ts': 10,
  'run-stdin.test.ts': 10,
  'send-answer.test.ts': 10,
  'agentwatch-qwen-start.test.ts': 10,
  'manifests-live.test.ts': 9,
  'wait.test.ts': 8,
};
const UNLISTED_S = 5;

/**
 * Pure tests (no process, PTY, socket or timer of note), which take less time to run than
 * their process takes to start (Node and tsx, about 0.35 CPU-s): they run together, in one
 * uvu process, uvu's way of running several files (each file's suite in turn). 2 CPU-s in
 * all, against 10 in a process each.
 */
const PURE = new Set([
  'acp-claude',
  'agent-match',
  'argv',
  'board-hosted',
  'board-render',
  'board-tty',
  'board',
  'choice-index',
  'config',
  'demo-stats',
  'detect-evaluate',
  'detect-explain',
  'detect-manifest',
  'detect-prompt-agents',
  'ls',
  'manifests-sources',
  'notify-config',
  'notify-gate',
  'input-hold',
  'runtime-pure',
  'session-directory',
  'signals-late-report',
  'signals',
  'vt-cli',
  'vt-extension-replies',
  'vt-replies',
  'vt-screen',
  'vt-width',
].map((name) => `${name}.test.ts`));
const expected = (file: string) => EXPECTED_S[file] ?? UNLISTED_S;
/** A group of files run in one process: its first file's figure, or a few seconds when pure. */
const cost = (group: string[]) => group.length > 1 ? UNLISTED_S : expected(group[0]);

/**
 * GNU time, when present, measures each file's CPU: user + system seconds of the uvu process
 * and of every descendant it waited for (agents, PTY children, CLI runs; not a daemon that
 * left its parent, such as the background host).
 */
const TIME = '/usr/bin/time';
const timed = existsSync(TIME);
const timesDir = timed ? mkdtempSync(join(tmpdir(), 'agentwatch-test-run-')) : '';

/**
 * The run's temp folder: each uvu process gets TMPDIR = a numbered folder in it (see the top
 * of this file). Under /tmp, not the caller's TMPDIR, whatever its length: a test's socket
 * path (`TMPDIR/agentwatch-answer-arrows-XXXXXX/s/NAME-abcd.sock`) must fit in 107 bytes.
 * Mode 0711, as are the numbered folders: other users may pass through to a path they know,
 * as through /tmp, but not list it (test/trust.test.ts has another uid reach a socket in a
 * folder of its TMPDIR, to see the session itself refuse it); what the tests make in it is
 * theirs to keep private (mkdtemp makes 0700 folders).
 */
const runTmp = mkdtempSync('/tmp/aw-test-');
chmodSync(runTmp, 0o711);
/** tsx's transform cache (tsx 4: `os.tmpdir()/tsx-EUID`), linked into each process's TMPDIR. */
const TSX_CACHE = `tsx-${process.geteuid?.() ?? userInfo().username}`;
const tsxCache = join(tmpdir(), TSX_CACHE);

/**
 * A fresh TMPDIR for process number `n`, in {@link runTmp}, holding only the link to tsx's
 * cache (when that cache exists).
 */
function processTmp(n: number): string {
  const dir = join(runTmp, String(n));
  mkdirSync(dir, { mode: 0o711 });
  if (existsSync(tsxCache)) symlinkSync(tsxCache, join(dir, TSX_CACHE));
  return dir;
}

/**
 * What is in `dir` but the runner's own link to tsx's cache: one line per entry, its path,
 * what it is, and for a folder up to 5 of its entries (to tell whose it is).
 */
function leftovers(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n !== TSX_CACHE).sort().map((n) => {
    const path = join(dir, n);
    try {
      const st = lstatSync(path);
      if (!st.isDirectory()) return `${path} (${st.isSocket() ? 'socket' : 'file'})`;
      const inside = readdirSync(path);
      const shown = inside.slice(0, 5).join(', ') + (inside.length > 5 ? ', …' : '');
      return `${path}/ (${inside.length ? shown : 'empty'})`;
    } catch {
      return path;
    }
  });
}

/**
 * Bundles the CLI for the tests' agentwatch processes (see the top of this file): ESM, the
 * packages left to node_modules, two folders below the repository as src/runtime/ is (its
 * resources and the native addon are found relative to the module). Written under another
 * name, then renamed: a run going on beside this one never sees half a file. Returns its path,
 * or undefined (the tests then start the source) when esbuild fails, which is printed.
 */
async function bundleCli(): Promise<string | undefined> {
  const dir = join(ROOT, '.cache', 'test');
  const out = join(dir, 'agentwatch.mjs');
  const part = join(dir, `agentwatch.${process.pid}.part.mjs`);
  try {
    mkdirSync(dir, { recursive: true });
    await build({
      entryPoints: [join(ROOT, 'src', 'cli', 'main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile: part,
      logLevel: 'error',
    });
    renameSync(part, out);
    return out;
  } catch (e) {
    rmSync(part, { force: true });
    process.stdout.write(`test/run: bundling the CLI failed, the tests start the source: ${e}\n`);
    return undefined;
  }
}

const bundle = await bundleCli();
if (bundle) process.env[TEST_BUNDLE_ENV] = bundle;

const jobs = Math.max(1, Number(process.env.TEST_JOBS) || 4);
const only = process.argv[2] ? new RegExp(process.argv[2]) : undefined;
const files = readdirSync(join(ROOT, 'test'))
  .filter((f) => f.endsWith('.test.ts') && (!only || only.test(f)));
/** The uvu processes to run, each a list of files: the pure files together, the others alone. */
const groups: string[][] = [
  ...files.filter((f) => !PURE.has(f)).map((f) => [f]),
  files.filter((f) => PURE.has(f)),
].filter((g) => g.length > 0)
  .sort((a, b) => cost(b) - cost(a) || a[0].localeCompare(b[0]));

/** What one uvu process gave: uvu's counts (0 when it printed none) and its output. */
interface FileRun {
  /** Its file, or for a group `N pure files`. */
  file: string;
  /** The files it ran. */
  files: string[];
  code: number | null;
  total: number;
  passed: number;
  skipped: number;
  ms: number;
  /** CPU seconds (user + system) of the file's process tree; undefined when not measured. */
  cpu: number | undefined;
  /** Everything the file printed (stdout and stderr, interleaved as they came). */
  out: string;
  /** What its process left in its TMPDIR ({@link leftovers}); each counts one failed test. */
  left: string[];
}

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const count = (out: string, word: string) => {
  const m = new RegExp(`^\\s*${word}:\\s+(\\d+)`, 'm').exec(plain(out));
  return m ? Number(m[1]) : 0;
};

/** `12.3 s, cpu 20.1 s, exit 0`: one file's wall time, CPU time when measured, exit code. */
function figures(r: FileRun): string {
  const cpu = r.cpu === undefined ? '' : `, cpu ${r.cpu.toFixed(1)} s`;
  return `${(r.ms / 1000).toFixed(1)} s${cpu}, exit ${r.code}`;
}

/** The user + system seconds GNU time wrote to `path` (`%U %S`); undefined when unreadable. */
function cpuOf(path: string): number | undefined {
  try {
    const m = /(\d+\.\d+) (\d+\.\d+)\s*$/.exec(readFileSync(path, 'utf8'));
    return m ? Number(m[1]) + Number(m[2]) : undefined;
  } catch {
    return undefined;
  }
}

/** The pids of `pid`'s children, from /proc (empty where there is none). */
function childrenOf(pid: number | undefined): number[] {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
    return text.split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Removes a temp folder of the run's. A process still writing in it (one that outlived its
 * test file) can make that fail (ENOTEMPTY): then it is printed, not thrown, and what stays
 * is named by the check at the end.
 */
function removeTmp(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (e) {
    process.stdout.write(`test/run: could not remove ${dir}: ${e}\n`);
  }
}

/** The number of the next process's TMPDIR in {@link runTmp}. */
let nextTmp = 0;

/**
 * Runs test files in one uvu process, with a TMPDIR of its own; resolves with their counts
 * once it exited, what it left in that TMPDIR counted as failed (the folder is then removed).
 */
function runFiles(group: string[]): Promise<FileRun> {
  const started = Date.now();
  const tmp = processTmp(nextTmp++);
  const file = group.length === 1 ? group[0] : `${group.length} pure files`;
  const title = group.length === 1 ? file : `${file} (${group.join(', ')})`;
  return new Promise((resolve) => {
    const pattern = '^(' + group.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') +
      ')$';
    const timesFile = join(timesDir, group[0] + '.time');
    const argv = [process.execPath, UVU, '-r', 'tsx', 'test', pattern];
    if (timed) argv.unshift(TIME, '-o', timesFile, '-f', '%U %S');
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const killer = setTimeout(() => {
      out += `\n  test/run: ${file} still running after ${FILE_TIMEOUT_MS / 60_000} min: killed\n`;
      // Under time, uvu is time's child: end it first (time would wait on it).
      for (const pid of childrenOf(child.pid)) process.kill(pid, 'SIGKILL');
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(killer);
      const run: FileRun = {
        file,
        files: group,
        code,
        // uvu's Total leaves out the skipped tests (test.skip); here they are in it, so that
        // total = passed + skipped + failed, as .ci/run reads the summary
        total: count(out, 'Total') + count(out, 'Skipped'),
        passed: count(out, 'Passed'),
        skipped: count(out, 'Skipped'),
        ms: Date.now() - started,
        cpu: timed ? cpuOf(timesFile) : undefined,
        out,
        left: leftovers(tmp),
      };
      removeTmp(tmp);
      // A file that failed before its summary (a crash at import) counts one failure.
      if (code !== 0 && run.total === run.passed + run.skipped) run.total++;
      if (run.left.length) {
        run.total += run.left.length;
        run.out = out.trimEnd() + '\n\n' +
          run.left.map((l) => `  ✘ left in TMPDIR, not removed by its test: ${l}\n`).join('');
      }
      process.stdout.write(`\n── ${title} (${figures(run)})\n${run.out.trimEnd()}\n`);
      resolve(run);
    });
  });
}

// Interrupted (Ctrl-C reaches the uvu processes too, which end without their tests' finally
// blocks): what they left goes with the run's folder.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    removeTmp(runTmp);
    if (timed) removeTmp(timesDir);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

const started = Date.now();
const queue = [...groups];
const results: FileRun[] = [];
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let g = queue.shift(); g !== undefined; g = queue.shift()) results.push(await runFiles(g));
  }),
);
// What appeared in the run's folder after its files' folders were checked and removed: a
// process that outlived its test file (each counts one failed test, as a file's leftovers).
const late = leftovers(runTmp);
removeTmp(runTmp);
const sum = (k: 'total' | 'passed' | 'skipped') =>
  results.reduce((n, r) => n + r[k], 0) + (k === 'total' ? late.length : 0);
const failed = results.filter((r) => r.code !== 0 || r.total !== r.passed + r.skipped);
// CI keeps only the log's tail: each failed file's output again, just above the summary.
for (const r of failed) {
  process.stdout.write(
    `\n══ failed: ${r.files.join(', ')} (${figures(r)})\n${r.out.trimEnd()}\n`,
  );
}
for (const l of late) {
  process.stdout.write(`\n  ✘ left in the run's temp folder after its test file ended: ${l}\n`);
}
if (timed) removeTmp(timesDir);
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 5)
  .map((r) => `${r.file} ${(r.ms / 1000).toFixed(0)} s`).join(', ');
const cpu = results.reduce((n, r) => n + (r.cpu ?? 0), 0);
const busiest = [...results].sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0)).slice(0, 5)
  .map((r) => `${r.file} ${(r.cpu ?? 0).toFixed(0)} s`).join(', ');
const wallSum = results.reduce((n, r) => n + r.ms, 0) / 1000;
process.stdout.write(
  `\n  ${files.length} files in ${results.length} processes, ${jobs} at a time; slowest: ${slowest}\n` +
    `  sum over processes: ${wallSum.toFixed(0)} s wall` +
    (timed ? `, ${cpu.toFixed(0)} s cpu (user + system); most cpu: ${busiest}\n` : '\n') +
    (failed.length ? `  failed: ${failed.map((r) => r.file).join(', ')}\n` : '') +
    (late.length ? `  left in the run's temp folder: ${late.length}\n` : '') +
    `\n  Total:     ${sum('total')}\n  Passed:    ${sum('passed')}\n` +
    `  Skipped:   ${sum('skipped')}\n  Duration:  ${Date.now() - started}ms\n\n`,
);
process.exitCode = failed.length || late.length ? 1 : 0;
