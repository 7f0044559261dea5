/**
 * An ACP session's state from protocol facts (Agent Client Protocol v1, as
 * @agentclientprotocol/sdk 2.4 types it), with no screen and no rules: pure functions of what
 * the connection has seen.
 * - the agent process exited -> `exited` (pending permission requests are dropped);
 * - a `session/request_permission` is pending -> `blocked`, showing the oldest;
 * - a `session/prompt` request is in flight -> `working`;
 * - otherwise `idle`, with the last turn's `stopReason` (end_turn, max_tokens,
 *   max_turn_requests, refusal, cancelled) in the reason.
 */
import type { SessionState } from '../detect/types.ts';
import type { PermissionAsk } from './protocol.ts';

/** What an ACP session's connection has seen, as far as its state goes. */
export interface AcpFacts {
  /** The agent process's exit, null while it runs. */
  exit: { code: number; signal?: number } | null;
  /** Pending permission requests, oldest first. */
  pending: readonly PermissionAsk[];
  /** True while a `session/prompt` request waits for its response. */
  turn: boolean;
  /** The last prompt response's stopReason, once a turn ended. */
  stopReason?: string;
  /** Why the session is not usable or the last turn failed (initialize, session/new, prompt error). */
  error?: string;
  /** True once `session/new` answered. */
  ready: boolean;
}

/** The state and its reason, as `explain` prints them after "decided by acp:". */
export function acpDecide(f: AcpFacts): { state: SessionState; reason: string } {
  if (f.exit) {
    const how = f.exit.signal ? `signal ${f.exit.signal}` : `code ${f.exit.code}`;
    return { state: 'exited', reason: `agent exited with ${how}` };
  }
  if (f.pending.length) {
    const t = f.pending[0].toolCall;
    const more = f.pending.length > 1 ? ` (+${f.pending.length - 1} more pending)` : '';
    return {
      state: 'blocked',
      reason: `session/request_permission (tool ${t.kind}: ${t.title})${more}`,
    };
  }
  if (f.turn) return { state: 'working', reason: 'session/prompt in flight' };
  if (f.error) return { state: 'idle', reason: f.error };
  if (f.stopReason) return { state: 'idle', reason: `turn ended: ${f.stopReason}` };
  return { state: 'idle', reason: f.ready ? 'session ready' : 'starting the agent' };
}

/** Longest text kept for a title or a content line, characters. */
const MAX_TEXT = 300;
/** Most content lines kept per tool call. */
const MAX_LINES = 8;

/** `text` on one line with control characters and escape sequences removed, at most `max` long. */
export function oneLine(text: unknown, max = MAX_TEXT): string {
  const s = String(text ?? '')
    // deno-lint-ignore no-control-regex
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b./g, '')
    .replace(/[\t\n\r]+/g, ' ')
    // deno-lint-ignore no-control-regex
    .replace(/[\x00-\x1f\x7f-\x9f]/g, '')
    .trim();
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What a tool call would do, one line each: `command: ...` (from rawInput.command, as Gemini
 * CLI, Qwen Code and claude-agent-acp send it for shell tools), `diff: PATH` for each diff,
 * `text: ...` for text content, `terminal: ID`, `file: PATH` for locations not named yet.
 */
export function toolCallLines(toolCall: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const raw = toolCall.rawInput;
  if (isObject(raw) && typeof raw.command === 'string') lines.push(`command: ${raw.command}`);
  const content = Array.isArray(toolCall.content) ? toolCall.content : [];
  for (const c of content) {
    if (!isObject(c)) continue;
    if (c.type === 'diff' && typeof c.path === 'string') lines.push(`diff: ${c.path}`);
    else if (c.type === 'terminal') lines.push(`terminal: ${c.terminalId}`);
    else if (c.type === 'content' && isObject(c.content) && c.content.type === 'text') {
      lines.push(`text: ${c.content.text}`);
    }
  }
  const locations = Array.isArray(toolCall.locations) ? toolCall.locations : [];
  for (const l of locations) {
    if (isObject(l) && typeof l.path === 'string' && !lines.some((x) => x.endsWith(` ${l.path}`))) {
      lines.push(`file: ${l.path}`);
    }
  }
  return lines.slice(0, MAX_LINES).map((l) => oneLine(l));
}

/**
 * A `session/request_permission` request's params as published ({@link PermissionAsk}), its
 * texts made one printable line each. `at`: when it came, ms since the epoch.
 */
export function askOf(
  params: { toolCall: Record<string, unknown>; options: readonly Record<string, unknown>[] },
  at: number,
): PermissionAsk {
  const t = params.toolCall;
  return {
    toolCall: {
      toolCallId: String(t.toolCallId ?? ''),
      title: oneLine(t.title ?? t.name ?? '(untitled tool call)'),
      kind: oneLine(t.kind ?? 'other', 40),
      content: toolCallLines(t),
    },
    options: params.options.map((o) => ({
      optionId: String(o.optionId ?? ''),
      name: oneLine(o.name ?? o.optionId),
      kind: oneLine(o.kind ?? '', 40),
    })),
    at,
  };
}

/** A pending request as the board, `answer` and notifications show a prompt. */
export interface AskPrompt {
  question: string;
  /** '1. Allow once (allow_once)', numbered like a screen prompt's options. */
  options: string[];
  details: string[];
  /** Per option: its kind and optionId, which CHOICE may name. */
  aliases: string[][];
}

/** The prompt of `ask`: its question, numbered options, details and option aliases. */
export function promptOf(ask: PermissionAsk): AskPrompt {
  const t = ask.toolCall;
  return {
    question: `Allow ${t.kind} tool call: ${t.title}?`,
    options: ask.options.map((o, i) => `${i + 1}. ${o.name}${o.kind ? ` (${o.kind})` : ''}`),
    details: [...t.content, `tool call ${t.toolCallId}`],
    aliases: ask.options.map((o) => [o.kind, o.optionId].filter(Boolean)),
  };
}
