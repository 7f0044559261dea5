/**
 * What agentwatch adds when it starts an agent itself, as the agent's manifest declares it
 * (`[integrations] hooks = "claude-code"`): for Claude Code, `--settings '<json>'` with hooks
 * for that launch only (the person's own hooks keep running), each calling this executable by
 * its absolute path as `... >/dev/null 2>&1 || true`, so a failing hook never disturbs the
 * agent. And how a hook's payload maps to a state.
 *
 * Hook events and payloads: Claude Code 2.1.332 (fixtures/claude-code/README.md "Hooks",
 * recordings/hooks.hooks.jsonl): UserPromptSubmit, PreToolUse, PermissionRequest (fires at
 * once; Notification permission_prompt only about 6 s later), Notification
 * (`notification_type` permission_prompt | elicitation_dialog | idle_prompt | ...), Stop.
 */
import type { RuleState } from '../detect/types.ts';

/** Quotes one word for /bin/sh. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The hooks part of Claude Code's settings JSON, calling `self` (argv of this executable). */
export function claudeHookSettings(self: readonly string[]): { hooks: Record<string, unknown[]> } {
  const cmd = (args: string) => ({
    type: 'command',
    command: `${self.map(shellQuote).join(' ')} ${args} >/dev/null 2>&1 || true`,
    timeout: 5,
  });
  return {
    hooks: {
      UserPromptSubmit: [{ hooks: [cmd('report working')] }],
      PreToolUse: [{ matcher: '*', hooks: [cmd('report tool')] }],
      PermissionRequest: [{ matcher: '*', hooks: [cmd('report blocked')] }],
      Notification: [{ hooks: [cmd('notify')] }],
      Stop: [{ hooks: [cmd('report done')] }],
    },
  };
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

/** What a Notification payload means. */
export type NotificationReading =
  | { ok: true; state: RuleState; source: string }
  | { ok: false; error: string };

/**
 * Maps a Claude Code Notification hook payload (JSON text) to a state: `notification_type`
 * permission_prompt or elicitation_dialog -> blocked; idle_prompt and anything else -> idle
 * (so the 60 s idle reminder is never taken for a permission request). Malformed -> an error
 * to log; the state is left alone.
 */
export function readNotification(payload: string): NotificationReading {
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
  const state: RuleState = kind === 'permission_prompt' || kind === 'elicitation_dialog'
    ? 'blocked'
    : 'idle';
  return { ok: true, state, source: `notify ${kind}` };
}

/** Tools whose PreToolUse means a menu waits for the person (Claude Code 2.1.332). */
export const MENU_TOOLS: ReadonlySet<string> = new Set(['AskUserQuestion', 'ExitPlanMode']);

/** The state `report tool` gives for a PreToolUse payload: blocked for a menu tool, else working. */
export function toolState(payload: string): 'blocked' | 'working' {
  try {
    const p = JSON.parse(payload) as { tool_name?: unknown };
    return typeof p.tool_name === 'string' && MENU_TOOLS.has(p.tool_name) ? 'blocked' : 'working';
  } catch {
    return 'working';
  }
}
