/**
 * A throwaway HOME and project for running real Claude Code in tests, set up as in
 * fixtures/claude-code/README.md so that start-up goes straight to the input box: no
 * onboarding, theme, trust or "use this API key?" dialog, and nothing that reaches the internet.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (two levels above this file). */
export const REPO_ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Path of the Claude Code binary: env AGENTWATCH_CLAUDE_BIN if set, else the one installed as a
 * dev dependency (node_modules/.bin/claude). May be missing.
 */
export const CLAUDE_BIN: string = process.env.AGENTWATCH_CLAUDE_BIN ||
  join(REPO_ROOT, 'node_modules', '.bin', 'claude');

/** The fake key used by default; Claude Code approves it by its last 20 characters. */
export const FAKE_API_KEY =
  'sk-ant-api03-fake-0000000000000000000000000000000000000000-LABKEYabcdefghij0123';

/** The contents of the project dir by default (relative path -> text). */
export const DEFAULT_PROJECT_FILES: Readonly<Record<string, string>> = {
  'greet.py': 'def greet(name):\n    return "Hello, " + name\n\n\nprint(greet("world"))\n',
};

/** Options of {@link makeClaudeHome}. */
export interface ClaudeHomeOptions {
  /** ANTHROPIC_BASE_URL, e.g. the fake server's URL. Default `http://127.0.0.1:9` (refuses). */
  baseUrl?: string;
  /** ANTHROPIC_API_KEY; default {@link FAKE_API_KEY}. It is approved in ~/.claude.json. */
  apiKey?: string;
  /** Claude Code version written to lastOnboardingVersion etc.; default: the installed one. */
  version?: string;
  /** User settings written to ~/.claude/settings.json (e.g. `{hooks: {...}}`); none by default. */
  settings?: Record<string, unknown>;
  /** Top-level keys merged over the default ~/.claude.json. */
  claudeJson?: Record<string, unknown>;
  /** Keys merged over the default per-project entry of ~/.claude.json. */
  projectConfig?: Record<string, unknown>;
  /** Project files (relative path -> text); default {@link DEFAULT_PROJECT_FILES}. */
  files?: Record<string, string>;
  /** Extra environment variables, applied last (a value of undefined removes the key). */
  env?: Record<string, string | undefined>;
}

/** A prepared HOME; see {@link makeClaudeHome}. */
export interface ClaudeHome {
  /** The temp root holding `home/`, `proj/` and `tmp/` (TMPDIR) (realpath). */
  root: string;
  /** HOME for Claude Code. */
  home: string;
  /** The project dir (cwd for Claude Code), trusted in ~/.claude.json. */
  project: string;
  /** The whole environment for the child (not merged with process.env). */
  env: Record<string, string>;
  /** The API key in `env`. */
  apiKey: string;
  /** Path of ~/.claude.json. */
  claudeJsonPath: string;
  /** Path of ~/.claude/settings.json (exists only when `settings` was given). */
  settingsPath: string;
  /** Removes the whole temp root. Safe to call twice; never throws. */
  cleanup(): void;
}

/** The installed Claude Code version from its package.json, or `2.1.332` if unreadable. */
export function installedClaudeVersion(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(
        join(REPO_ROOT, 'node_modules', '@anthropic-ai', 'claude-code', 'package.json'),
        'utf8',
      ),
    ) as { version?: string };
    return pkg.version ?? '2.1.332';
  } catch {
    return '2.1.332';
  }
}

/**
 * Creates a throwaway HOME (mkdtemp under os.tmpdir()) with ~/.claude.json as in the fixtures'
 * README (onboarding done, theme dark, API key approved, project trusted), a project dir with
 * greet.py, and the environment to run Claude Code with: HOME, TERM=xterm-256color,
 * COLORTERM=truecolor, LANG=C.UTF-8, SHELL, USER, PATH, TMPDIR (inside the root),
 * ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY
 * and the switches that turn off the updater, telemetry, error reports, nonessential traffic and
 * the official plugin marketplace clone. Nothing else of process.env is passed on.
 *
 * Hooks can go either in `settings` (user settings file) or on the command line with
 * `--settings '<json>'`.
 *
 * @throws if the temp dir cannot be created or written.
 */
export function makeClaudeHome(options: ClaudeHomeOptions = {}): ClaudeHome {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentwatch-claude-')));
  const home = join(root, 'home');
  const project = join(root, 'proj');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const tmp = join(root, 'tmp');
  mkdirSync(tmp, { recursive: true });

  const apiKey = options.apiKey ?? FAKE_API_KEY;
  const version = options.version ?? installedClaudeVersion();
  const cfg = {
    numStartups: 5,
    installMethod: 'npm-global',
    autoUpdates: false,
    theme: 'dark',
    hasCompletedOnboarding: true,
    lastOnboardingVersion: version,
    lastReleaseNotesSeen: version,
    hasSeenTasksHint: true,
    hasUsedBackgroundTask: true,
    bypassPermissionsModeAccepted: true,
    hasAcknowledgedCostThreshold: true,
    // Claude Code stores the last 20 characters of an approved ANTHROPIC_API_KEY.
    customApiKeyResponses: { approved: [apiKey.trim().slice(-20)], rejected: [] },
    tipsHistory: {},
    projects: {
      [project]: {
        allowedTools: [],
        mcpContextUris: [],
        mcpServers: {},
        enabledMcpjsonServers: [],
        disabledMcpjsonServers: [],
        hasTrustDialogAccepted: true,
        hasClaudeMdExternalIncludesApproved: false,
        hasClaudeMdExternalIncludesWarningShown: false,
        hasCompletedProjectOnboarding: true,
        projectOnboardingSeenCount: 5,
        ...options.projectConfig,
      },
    },
    ...options.claudeJson,
  };
  const claudeJsonPath = join(home, '.claude.json');
  writeFileSync(claudeJsonPath, JSON.stringify(cfg, null, 2));
  const settingsPath = join(home, '.claude', 'settings.json');
  if (options.settings) writeFileSync(settingsPath, JSON.stringify(options.settings, null, 2));

  for (const [rel, content] of Object.entries(options.files ?? DEFAULT_PROJECT_FILES)) {
    const path = join(project, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }

  const env: Record<string, string> = {
    HOME: home,
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    USER: process.env.USER ?? 'root',
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    ANTHROPIC_BASE_URL: options.baseUrl ?? 'http://127.0.0.1:9',
    ANTHROPIC_API_KEY: apiKey,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // Not in the fixtures' environment, but without it Claude Code 2.1.332 runs git and ssh to
    // clone github.com/anthropics/claude-plugins-official at start-up (seen with strace).
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    // Claude Code keeps task state in $TMPDIR/claude-<uid>/<project>/ and leaves it behind:
    // keep it inside the root so that cleanup() removes it.
    TMPDIR: tmp,
    CLAUDE_CODE_TMPDIR: tmp,
  };
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  let cleaned = false;
  return {
    root,
    home,
    project,
    env,
    apiKey,
    claudeJsonPath,
    settingsPath,
    cleanup() {
      if (cleaned) return;
      cleaned = true;
      try {
        rmSync(root, { recursive: true, force: true });
      } catch {
        // best effort: a temp dir left behind is not worth failing a test for
      }
    },
  };
}

/** Options of {@link claudeArgs}. */
export interface ClaudeArgsOptions {
  /** `--permission-mode`: `manual` (default), `plan`, `acceptEdits`, ...; null for none (auto mode). */
  permissionMode?: string | null;
  /** Passed as `--settings '<json>'` (e.g. `{hooks: {...}}`), on top of the user settings. */
  settings?: Record<string, unknown>;
  /** Appended as they are. */
  extra?: string[];
}

/**
 * The argv (without the program) for Claude Code as the fixtures ran it:
 * `['--permission-mode', 'manual']`, plus `--settings <json>` when settings are given.
 */
export function claudeArgs(options: ClaudeArgsOptions = {}): string[] {
  const mode = options.permissionMode === undefined ? 'manual' : options.permissionMode;
  const args = mode === null ? [] : ['--permission-mode', mode];
  if (options.settings) args.push('--settings', JSON.stringify(options.settings));
  return [...args, ...(options.extra ?? [])];
}
