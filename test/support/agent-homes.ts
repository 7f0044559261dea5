/**
 * Throwaway HOMEs and projects for running real Qwen Code 0.24.4 and Gemini CLI 0.61.0 (dev
 * dependencies) against the fake model servers of this folder (fake-openai.ts,
 * fake-gemini.ts), set up as fixtures/qwen-code/README.md and fixtures/gemini-cli/README.md
 * tell: a fake key, the base URL on 127.0.0.1, no relaunch, no telemetry, no survey, and (for
 * Gemini) an auth type and a trusted project so that start-up goes straight to the composer.
 * Nothing of process.env is passed on but PATH and USER.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './claude-home.ts';
import { until } from './until.ts';

/** Qwen Code's launcher: env AGENTWATCH_QWEN_BIN, else node_modules/.bin/qwen. May be missing. */
export const QWEN_BIN: string = process.env.AGENTWATCH_QWEN_BIN ||
  join(REPO_ROOT, 'node_modules', '.bin', 'qwen');
/** Gemini CLI's launcher: env AGENTWATCH_GEMINI_BIN, else node_modules/.bin/gemini. May be missing. */
export const GEMINI_BIN: string = process.env.AGENTWATCH_GEMINI_BIN ||
  join(REPO_ROOT, 'node_modules', '.bin', 'gemini');

/** A prepared HOME; see {@link makeQwenHome} and {@link makeGeminiHome}. */
export interface AgentHome {
  /** The temp root holding `home/`, `proj/` and `tmp/` (realpath). */
  root: string;
  home: string;
  /** The project dir (the agent's cwd): `hello.txt` and `main.js`, trusted. */
  project: string;
  /** The whole environment for the child (not merged with process.env). */
  env: Record<string, string>;
  /**
   * Removes the whole temp root once no process runs with this HOME any more
   * ({@link homeGone}): call it after the agent was ended. Safe to call twice; never rejects.
   */
  cleanup(): Promise<void>;
}

/** Options of {@link makeQwenHome} and {@link makeGeminiHome}. */
export interface AgentHomeOptions {
  /** The fake server's URL (`http://127.0.0.1:PORT`, without `/v1`). */
  baseUrl: string;
  /** Settings merged over the defaults (top-level keys replace). */
  settings?: Record<string, unknown>;
  /** Gemini only: write the project into trustedFolders.json (default true). */
  trusted?: boolean;
  /** Extra environment variables, applied last (undefined removes the key). */
  env?: Record<string, string | undefined>;
}

function prepare(prefix: string, dot: string, settings: Record<string, unknown>) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const home = join(root, 'home');
  const project = join(root, 'proj');
  const tmp = join(root, 'tmp');
  for (const d of [join(home, dot), project, tmp]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, dot, 'settings.json'), JSON.stringify(settings, null, 2));
  writeFileSync(join(project, 'hello.txt'), 'Helo, world!\n');
  writeFileSync(
    join(project, 'main.js'),
    'for (let i = 0; i < a.length - 1; i++) console.log(a[i]);\n',
  );
  const env: Record<string, string> = {
    HOME: home,
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    USER: process.env.USER ?? 'root',
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    TMPDIR: tmp,
  };
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    cleaned ??= homeGone(home).then(() => {
      try {
        rmSync(root, { recursive: true, force: true, maxRetries: 3 });
      } catch {
        // left behind: test/run.ts names what a test left in its TMPDIR
      }
    });
  return { root, home, project, env, cleanup };
}

/**
 * The pids of the processes whose environment says HOME=`home` (Linux, /proc/PID/environ of
 * the processes we may read; none where there is no /proc): an agent started with that
 * HOME and whatever it started.
 */
export function processesWithHome(home: string): number[] {
  const want = Buffer.from(`\0HOME=${home}\0`);
  const pids: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = Buffer.concat([Buffer.from('\0'), readFileSync(`/proc/${name}/environ`)]);
      if (environ.includes(want)) pids.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}

/**
 * Resolves once no process runs with HOME=`home` ({@link processesWithHome}); those still
 * running after `timeoutMs` are killed (SIGKILL) and waited for up to 2 s more. Never
 * rejects. Needed before the home is removed: Qwen Code 0.24.4's launcher
 * (node_modules/.bin/qwen, cli-entry.js) runs the interactive CLI as a child process
 * (`node --expose-gc cli.js`) in its process group; on SIGHUP the launcher exits at once,
 * so the session reads exited, while the CLI goes on shutting down, writing
 * ~/.qwen/sessions/PID.json, tip_history.json and extension-store/ for seconds more on a
 * loaded machine (seen: the home made again after it was removed).
 */
export async function homeGone(home: string, timeoutMs = 15_000): Promise<void> {
  const none = () => processesWithHome(home).length === 0;
  try {
    await until(`the processes with HOME=${home} to end`, none, timeoutMs, 50);
  } catch {
    for (const pid of processesWithHome(home)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
    await until('the killed processes to end', none, 2000, 50).catch(() => {});
  }
}

function applyEnv(env: Record<string, string>, extra: AgentHomeOptions['env']) {
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
}

/**
 * A HOME for Qwen Code 0.24.4: OPENAI_API_KEY (fake), OPENAI_BASE_URL = `${baseUrl}/v1`,
 * OPENAI_MODEL=fake-model, QWEN_CODE_NO_RELAUNCH=true; ~/.qwen/settings.json turns off the
 * vendored ripgrep (npm installs it without its execute bit, and Qwen then prints a warning
 * box), the session survey (it shows at random) and usage statistics. The approval mode is
 * Qwen's default ("auto": a classifier asks the model; the fake server's answer is no verdict,
 * so every tool call opens the classifier's fallback dialog).
 * @throws if the temp dir cannot be created or written.
 */
export function makeQwenHome(options: AgentHomeOptions): AgentHome {
  const h = prepare('agentwatch-qwen-', '.qwen', {
    tools: { useRipgrep: false },
    ui: { enableUserFeedback: false },
    privacy: { usageStatisticsEnabled: false },
    // no update check: it asks the npm registry (tests talk to 127.0.0.1 only) and, unanswered
    // within 5 s, prints a line into the start screen
    general: { enableAutoUpdate: false },
    ...options.settings,
  });
  Object.assign(h.env, {
    OPENAI_API_KEY: 'sk-fake-0000',
    OPENAI_BASE_URL: `${options.baseUrl}/v1`,
    OPENAI_MODEL: 'fake-model',
    QWEN_CODE_NO_RELAUNCH: 'true',
  });
  applyEnv(h.env, options.env);
  return h;
}

/**
 * A HOME for Gemini CLI 0.61.0: GEMINI_API_KEY (fake), GOOGLE_GEMINI_BASE_URL = `baseUrl`,
 * GEMINI_CLI_NO_RELAUNCH=true, GEMINI_TELEMETRY_ENABLED=false; ~/.gemini/settings.json selects
 * the API key auth and turns off usage statistics; ~/.gemini/trustedFolders.json trusts the
 * project (unless `trusted: false`: then the start-up trust dialog asks).
 * @throws if the temp dir cannot be created or written.
 */
export function makeGeminiHome(options: AgentHomeOptions): AgentHome {
  const h = prepare('agentwatch-gemini-', '.gemini', {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    // no update check: it asks the npm registry (tests talk to 127.0.0.1 only) and, unanswered
    // within 5 s, prints a line into the start screen
    general: { enableAutoUpdate: false },
    ...options.settings,
  });
  if (options.trusted ?? true) {
    writeFileSync(
      join(h.home, '.gemini', 'trustedFolders.json'),
      JSON.stringify({ [h.project]: 'TRUST_FOLDER' }),
    );
  }
  Object.assign(h.env, {
    GEMINI_API_KEY: 'fake-gemini-key',
    GOOGLE_GEMINI_BASE_URL: options.baseUrl,
    GEMINI_CLI_NO_RELAUNCH: 'true',
    GEMINI_TELEMETRY_ENABLED: 'false',
  });
  applyEnv(h.env, options.env);
  return h;
}

/**
 * Writes the files opencode-ai 1.18.33 reads in `home` (made by the caller): an empty
 * `models.json` (no models.dev download) and `~/.config/opencode/opencode.json` with one
 * provider, `fake` (`@ai-sdk/openai-compatible`) at `baseUrl` + `/v1` (a fake Chat Completions
 * server on 127.0.0.1), its model `fake/fake-model`, no autoupdate or sharing, and bash and
 * edit asking permission.
 * @throws if the files cannot be written.
 */
export function writeOpencodeHome(home: string, baseUrl: string): void {
  mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
  writeFileSync(join(home, 'models.json'), '{}');
  writeFileSync(
    join(home, '.config', 'opencode', 'opencode.json'),
    JSON.stringify(
      {
        $schema: 'https://opencode.ai/config.json',
        model: 'fake/fake-model',
        autoupdate: false,
        share: 'disabled',
        permission: { bash: 'ask', edit: 'ask' },
        provider: {
          fake: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Fake local',
            options: { baseURL: `${baseUrl}/v1`, apiKey: 'fake' },
            models: { 'fake-model': { name: 'Fake Model', tool_call: true } },
          },
        },
      },
      null,
      1,
    ),
  );
}
