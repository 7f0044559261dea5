/**
 * The Claude Code integration (`[integrations] hooks = "claude-code"` in its manifest): which
 * hook events agentwatch listens to, the settings it adds when it starts Claude Code itself,
 * and what each hook event says about the agent's state ({@link reportFromHook}, pure).
 *
 * When agentwatch starts Claude Code it puts `--settings '<json>'` first, with hooks for that
 * launch only (the person's own hooks keep running), each calling this executable by its
 * absolute path as `... >/dev/null 2>&1 || true`, so a failing hook never disturbs the agent,
 * and each marked `async: true`, so the agent never waits for one (see {@link claudeHookSettings}).
 * The hook commands (`agentwatch report ...`, `agentwatch notify`, cli/hook.ts) forward to the
 * session's control socket; the session (runtime/host.ts) and the eval's replay of recorded
 * hooks (eval/replay.ts) read them with {@link reportFromHook}.
 *
 * Hook events and payloads: Claude Code 2.1.332 (fixtures/claude-code/README.md "Hooks",
 * recordings/hooks.hooks.jsonl): UserPromptSubmit, PreToolUse, PermissionRequest (fires at
 * once; Notification permission_prompt only about 6 s later), Notification
 * (`notification_type` permission_prompt | elicitation_dialog | idle_prompt | ...), Stop.
 */
import type { RuleState } from '../../detect/types.ts';

/**
 * The hooks agentwatch installs, in settings order: the event, the tool matcher (events that
 * take one) and the agentwatch command it runs (after this executable's own argv).
 */
export const CLAUDE_HOOKS: readonly {
  event: string;
  matcher?: string;
  command: string;
}[] = [
  { event: 'UserPromptSubmit', command: 'report working' },
  { event: 'PreToolUse', matcher: '*', command: 'report tool' },
  { event: 'PermissionRequest', matcher: '*', command: 'report blocked' },
  { event: 'Notification', command: 'notify' },
  { event: 'Stop', command: 'report done' },
];

/** Quotes one word for /bin/sh. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The hooks part of Claude Code's settings JSON, calling `self` (argv of this executable).
 *
 * Every hook is `async: true`: Claude Code 2.1.332 then starts it and goes on without waiting
 * ("If true, hook runs in background without blocking", the command hook schema in its
 * bundle; any event, except where Claude Code itself forces waiting: SessionStart and Setup at
 * start-up, MessageDisplay, some PostToolUse). Claude needs nothing from these hooks (their
 * output goes to /dev/null, their exit status is always 0), and a waited-for hook process costs
 * each prompt, tool call, permission dialog and end of turn its start-up, 0.3-0.7 s on a loaded
 * machine ("running Stop hook · 4s" seen). The price: a report can arrive after one that fired
 * later, so the session keeps the one that fired last (signals.ts `laterReport`).
 */
export function claudeHookSettings(self: readonly string[]): { hooks: Record<string, unknown[]> } {
  const hooks: Record<string, unknown[]> = {};
  for (const h of CLAUDE_HOOKS) {
    const cmd = {
      type: 'command',
      command: `${self.map(shellQuote).join(' ')} ${h.command} >/dev/null 2>&1 || true`,
      timeout: 5,
      async: true,
    };
    hooks[h.event] = [{ ...(h.matcher ? { matcher: h.matcher } : {}), hooks: [cmd] }];
  }
  return { hooks };
}

/**
 * The arguments to start an agent with, given its manifest's `hooks` integration: for
 * 'claude-code', `--settings <json>` is put first. Other values: the arguments unchanged.
 */
export function launchArgs(
  hooks: string | undefined,
  args: readonly string[],
  self: readonly string[],
): string[] {
  if (hooks === 'claude-code') {
    return ['--settings', JSON.stringify(claudeHookSettings(self)), ...args];
  }
  return [...args];
}

/**
 * Notification types that mean a dialog waits for the person (Claude Code 2.1.332's binary):
 * `permission_prompt`; `elicitation_dialog` (an MCP server's question); `worker_permission_prompt`
 * (a worker agent's permission); `agent_needs_input`, which every dialog of its registry that
 * waits for a choice sends ("Auto mode can't check actions in this session", the classifier
 * billing notice, a cloud session's question, a background agent that "needs your input").
 */
export const NEEDS_PERSON: ReadonlySet<string> = new Set([
  'permission_prompt',
  'elicitation_dialog',
  'worker_permission_prompt',
  'agent_needs_input',
]);

/** Tools whose PreToolUse means a menu waits for the person (Claude Code 2.1.332). */
export const MENU_TOOLS: ReadonlySet<string> = new Set(['AskUserQuestion', 'ExitPlanMode']);

/**
 * What one hook event says: a state and where it came from (the {@link Report} source), or
 * an error to log when its payload is malformed (the state is then left alone).
 */
export type HookReading =
  | { ok: true; state: RuleState; source: string }
  | { ok: false; error: string };

/** The most of a tool name kept in a report's source, characters. */
const MAX_TOOL_NAME = 40;

/**
 * What Claude Code's hook `event` with `payload` (the JSON text the hook reads on stdin) says
 * about the agent; null for an event agentwatch does not install ({@link CLAUDE_HOOKS}).
 * - UserPromptSubmit -> working; PermissionRequest -> blocked; Stop -> idle (their payloads
 *   are not read; sources 'report working', 'report blocked', 'report done');
 * - PreToolUse -> blocked for a {@link MENU_TOOLS} tool (under `--dangerously-skip-permissions`
 *   no other hook announces those menus), else working, source `hook PreToolUse NAME`; the
 *   name is found even in a payload cut short (a large `tool_input`), malformed -> working;
 * - Notification: a `notification_type` of {@link NEEDS_PERSON} -> blocked; idle_prompt and
 *   anything else -> idle (so the 60 s idle reminder is never taken for a permission
 *   request), source `notify TYPE`; a payload that is not a JSON object -> error.
 * Pure: no I/O, no clock.
 */
export function reportFromHook(event: string, payload: string): HookReading | null {
  switch (event) {
    case 'UserPromptSubmit':
      return { ok: true, state: 'working', source: 'report working' };
    case 'PermissionRequest':
      return { ok: true, state: 'blocked', source: 'report blocked' };
    case 'Stop':
      return { ok: true, state: 'idle', source: 'report done' };
    case 'PreToolUse': {
      const name = toolName(payload);
      return {
        ok: true,
        state: name !== undefined && MENU_TOOLS.has(name) ? 'blocked' : 'working',
        source: `hook PreToolUse ${name ?? ''}`.trim(),
      };
    }
    case 'Notification':
      return readNotification(payload);
    default:
      return null;
  }
}

/** The `tool_name` of a PreToolUse payload (cut to 40 characters), also of one cut short. */
function toolName(payload: string): string | undefined {
  try {
    const name = (JSON.parse(payload) as { tool_name?: unknown } | null)?.tool_name;
    if (typeof name === 'string') return name.slice(0, MAX_TOOL_NAME);
  } catch {
    // cut short or not JSON: look for the field in the text
  }
  return /"tool_name"\s*:\s*"([^"\\]{1,40})"/.exec(payload)?.[1];
}

/** What a Notification payload says (see {@link reportFromHook}). */
function readNotification(payload: string): HookReading {
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch {
    return {
      ok: false,
      error: `notify: payload is not JSON: ${JSON.stringify(payload.slice(0, 80))}`,
    };
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, error: 'notify: payload is not a JSON object' };
  }
  const type = (data as { notification_type?: unknown }).notification_type;
  const kind = typeof type === 'string' ? type : '(none)';
  const state: RuleState = NEEDS_PERSON.has(kind) ? 'blocked' : 'idle';
  return { ok: true, state, source: `notify ${kind}` };
}
