/**
 * Runs the agentwatch CLI for tests: in this process ({@link cliInProcess}, for what a command
 * says and returns) or as a real process ({@link cli}; {@link agentwatchArgv}: the run's bundle
 * or the source), where the process boundary is the point: exit on a signal, a terminal, a
 * hook's budget, memory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as pty from 'node-pty';
import { TEST_BUNDLE_ENV } from '../../src/runtime/self-command.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');

/**
 * The environment variable by which test/run.ts names the bundle it built from this source
 * before the run (.cache/test/agentwatch.mjs: esbuild, ESM, packages left to node_modules; two
 * folders down, as src/runtime/ is, so that its resources and the native addon are found the
 * same way). A process of it starts in a quarter of the CPU time of the source through tsx.
 */
export { TEST_BUNDLE_ENV };

/**
 * The argv after `process.execPath` that starts `agentwatch ARGS...` in a test, from any
 * working directory: the bundle test/run.ts built ({@link TEST_BUNDLE_ENV}), else the source
 * through tsx (its loader by absolute URL). A CLI process started either way starts itself
 * again (sim-agent, hooks, the background host) the same way (src/runtime/self-command.ts).
 */
export function agentwatchArgv(args: string[]): string[] {
  const bundle = process.env[TEST_BUNDLE_ENV];
  if (bundle) return [bundle, ...args];
  const loader = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return ['--import', loader, MAIN, ...args];
}

/** What a CLI run gave: its exit code (null when killed by a signal) and its output. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** In-process runs go one at a time: each swaps process.env and captures the process's output. */
let inProcessTurn: Promise<unknown> = Promise.resolve();

/**
 * Runs `agentwatch ARGS` in this process, as main.ts would (src/cli/app.ts `main`), with
 * `env` as process.env for the run (default: process.env as it is); resolves with its exit
 * code and what it wrote, to its Io and to process.stdout and process.stderr (captured for the
 * run, so nothing a command writes past its Io is missed). Runs are serialized. Not for the
 * hook commands (`report`, `notify` without `--test`: main.ts routes them to hook.ts) nor for
 * a command that runs a terminal UI or starts sessions.
 */
export function cliInProcess(args: string[], env?: NodeJS.ProcessEnv): Promise<CliRun> {
  const run = inProcessTurn.then(async (): Promise<CliRun> => {
    const { main } = await import('../../src/cli/app.ts');
    let stdout = '';
    let stderr = '';
    const savedEnv = process.env;
    const out = process.stdout.write;
    const err = process.stderr.write;
    const capture = (add: (t: string) => void) =>
      ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        add(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
        const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
        done?.();
        return true;
      }) as typeof process.stdout.write;
    process.stdout.write = capture((t) => (stdout += t));
    process.stderr.write = capture((t) => (stderr += t));
    if (env) process.env = { ...env };
    try {
      const code = await main(args, {
        stdout: (t) => void (stdout += t),
        stderr: (t) => void (stderr += t),
      });
      return { code, stdout, stderr };
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
      process.env = savedEnv;
    }
  });
  inProcessTurn = run.catch(() => {});
  return run;
}

/**
 * How a test starts agentwatch as a command (a session's sim-agent, a board): Node and
 * {@link agentwatchArgv}, the shape of src/runtime/self-command.ts's `selfCommand()`.
 */
export function agentwatchCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: agentwatchArgv([]) };
}

/**
 * Runs `agentwatch ARGS` ({@link agentwatchArgv}) with `env`, stdin closed; resolves
 * once it exited and its output closed. `detached` starts it in a new session (setsid), so it
 * has no controlling terminal (no /dev/tty to confirm on). `tty` runs it as a person does, in
 * a terminal of its own: a new PTY (node-pty, hosted by no session) is its controlling terminal
 * and its stdout; its stderr goes to a file, read back.
 */
export function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { detached?: boolean; tty?: boolean } = {},
): Promise<CliRun> {
  if (opts.tty) return inPty([process.execPath, ...agentwatchArgv(args)], env);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, agentwatchArgv(args), {
      env,
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: opts.detached === true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs `argv` as a person does, in a terminal of its own: a new PTY (node-pty, hosted by no
 * session) is its controlling terminal and its stdout (CRLF read as LF); its stderr goes to a
 * file, read back. Resolves once it exited; it is killed (SIGKILL) after `timeoutMs`.
 */
export function inPty(
  argv: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<CliRun> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-cli-tty-'));
  const errPath = join(dir, 'stderr');
  return new Promise((resolve) => {
    let child: pty.IPty;
    try {
      child = pty.spawn(
        '/bin/sh',
        [
          '-c',
          'err=$1; shift; exec "$@" 2>"$err"',
          'sh',
          errPath,
          ...argv,
        ],
        { cwd: ROOT, env: env as Record<string, string>, cols: 200, rows: 50, encoding: null },
      );
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw e; // rejects the promise
    }
    let stdout = '';
    child.onData((d: string | Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // node-pty emits exit only once the master read all output (its socket closed)
    child.onExit(({ exitCode, signal }) => {
      clearTimeout(timer);
      let stderr = '';
      try {
        stderr = readFileSync(errPath, 'utf8');
      } catch {
        // never opened
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code: signal ? null : exitCode, stdout: stdout.replace(/\r\n/g, '\n'), stderr });
    });
  });
}

/**
 * Sends one control request to `socket` from a process in a terminal of its own ({@link inPty}),
 * as the person's `answer` does: resolves with the reply, or rejects with an Error whose
 * message and `exitCode` are the refusal's.
 */
export async function personRequest<T>(
  socket: string,
  req: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Promise<T> {
  const client = join(ROOT, 'src', 'runtime', 'control-client.ts');
  const code = `import(${JSON.stringify(client)}).then((c) => c.request(` +
    `${JSON.stringify(socket)}, ${JSON.stringify(req)})).then(` +
    `(a) => console.log(JSON.stringify({ a })), ` +
    `(e) => console.log(JSON.stringify({ e: e.message, code: e.exitCode })))`;
  const run = await inPty([process.execPath, '--import', 'tsx', '-e', code], env);
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  let out: { a?: T; e?: string; code?: number };
  try {
    out = JSON.parse(line);
  } catch {
    throw new Error(`personRequest: no reply (${run.stdout}${run.stderr})`);
  }
  if (out.e !== undefined) throw Object.assign(new Error(out.e), { exitCode: out.code });
  return out.a as T;
}
