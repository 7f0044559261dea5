/**
 * How this executable starts itself again: for the hidden `sim-agent` subcommand and for the
 * agent hooks (`agentwatch report ...`), which must call this very executable by its
 * absolute path.
 */
import { createRequire } from 'node:module';
import { basename, isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * How to start this same executable again (to run its hidden `sim-agent` subcommand):
 * * in a Node single-executable application: `process.execPath` alone;
 * * from the bundle `dist/agentwatch` or from source (`node --import tsx src/cli/main.ts`):
 *   `process.execPath` with Node's own flags (`process.execArgv`, e.g. `--import tsx`) and
 *   the script (`process.argv[1]`);
 * * when the running script is something else (a test runner importing this module): the
 *   bundle the test runner built when it names one ({@link TEST_BUNDLE_ENV}, test/run.ts), else
 *   the source entry `src/cli/main.ts` beside this file, with `--import tsx`. A hook started
 *   through tsx's loader (Node 20, tsx 4) was seen to hang for good before its first line ran,
 *   its main thread waiting on the loader's thread (2 of 143 hook processes in one test run).
 */
export function selfCommand(): { command: string; args: string[] } {
  if (isSea()) return { command: process.execPath, args: [] };
  const script = process.argv[1];
  if (script && /^(main\.[cm]?[jt]s|agentwatch(\.[cm]?js)?)$/.test(basename(script))) {
    return { command: process.execPath, args: [...absoluteExecArgv(), resolve(script)] };
  }
  const bundle = process.env[TEST_BUNDLE_ENV];
  if (bundle && isAbsolute(bundle)) return { command: process.execPath, args: [bundle] };
  const main = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
  return { command: process.execPath, args: ['--import', tsxLoader(), main] };
}

/**
 * The environment variable in which the test runner (test/run.ts) names the bundle of
 * src/cli/main.ts it built (an absolute path), for the processes a test's in-process host
 * starts (hooks, sim agents).
 */
export const TEST_BUNDLE_ENV = 'AGENTWATCH_TEST_BUNDLE';

function isSea(): boolean {
  try {
    const sea = createRequire(import.meta.url)('node:sea') as { isSea?: () => boolean };
    return sea.isSea?.() === true;
  } catch {
    return false; // Node without node:sea (before 20.12): not a single-executable application
  }
}

/** The tsx loader's absolute URL, so that a child started in another cwd (a hook) finds it. */
function tsxLoader(): string {
  try {
    const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
    return pathToFileURL(resolve(pkg, '..', 'dist', 'loader.mjs')).href;
  } catch {
    return 'tsx';
  }
}

/** Node's own flags with `--import tsx` made absolute (from source only). */
function absoluteExecArgv(): string[] {
  return process.execArgv.map((
    a,
    i,
    all,
  ) => (a === 'tsx' && all[i - 1] === '--import' ? tsxLoader() : a));
}
