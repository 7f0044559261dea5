/** Runs the agentwatch CLI from source as a real process, for tests. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');

/** What a CLI run gave: its exit code (null when killed by a signal) and its output. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `agentwatch ARGS` (node --import tsx src/cli/main.ts) with `env`, stdin closed; resolves
 * once it exited and its output closed. `detached` starts it in a new session (setsid), so it
 * has no controlling terminal (no /dev/tty to confirm on).
 */
export function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { detached?: boolean } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
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
