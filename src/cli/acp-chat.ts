/**
 * How `agentwatch acp`'s line-mode chat shows an ACP session: streamed message text as it
 * comes, thoughts collapsed to one line per block, tool calls with their kind and status,
 * plans as checklists, permission requests with their options, the end of each turn. Every
 * text from the agent is made printable first (no escape sequence or control character but
 * newline and tab reaches the person's terminal).
 */
import type { AcpEvent } from '../runtime/acp-session.ts';
import { oneLine } from '../runtime/acp-state.ts';

const ESCAPES =
  // deno-lint-ignore no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;

/** `text` with escape sequences and control characters removed, newlines and tabs kept. */
export function printableText(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(ESCAPES, '').replace(/\r\n?/g, '\n').replace(
    /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g,
    '',
  );
}

const STATUS_MARK: Record<string, string> = {
  pending: '…',
  in_progress: '⋯',
  completed: '✓',
  failed: '✗',
};
const PLAN_MARK: Record<string, string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' };

/** Turns session events into chat text; remembers what it needs between events. */
export class ChatRenderer {
  /** True while the cursor is not at the start of a line. */
  #midLine = false;
  #inThought = false;
  readonly #tools = new Map<string, { title: string; kind: string; status: string }>();

  constructor(readonly sessionId: string) {}

  /** A line of our own, started on a new line. */
  #line(text: string): string {
    const out = (this.#midLine ? '\n' : '') + text + '\n';
    this.#midLine = false;
    this.#inThought = false;
    return out;
  }

  /** The text to print for `e` ('' when nothing shows). */
  render(e: AcpEvent): string {
    switch (e.type) {
      case 'update':
        return this.#update(e.update as unknown as Record<string, unknown>);
      case 'permission': {
        const t = e.ask.toolCall;
        const lines = [`⚠ permission asked: ${t.kind} tool call: ${t.title}`];
        for (const c of t.content) lines.push(`    ${c}`);
        e.ask.options.forEach((o, i) => lines.push(`  ${i + 1}. ${o.name} (${o.kind})`));
        lines.push(
          `  answer: type a number, an option's name or kind here, or \`agentwatch answer ${this.sessionId} N\``,
        );
        return this.#line(lines.join('\n'));
      }
      case 'answered':
        return this.#line(`  → ${e.ask.toolCall.title}: ${e.outcome}`);
      case 'prompt':
        return e.from === 'send'
          ? this.#line(`> ${oneLine(e.text, 500)}   (sent with agentwatch send)`)
          : '';
      case 'stop':
        return this.#line(`[turn ended: ${e.stopReason}]`);
      case 'error':
        return this.#line(`! ${e.message}`);
      case 'note':
        return this.#line(`[${e.message}]`);
      case 'stderr':
        return this.#line(`  (agent stderr) ${oneLine(e.line, 300)}`);
      case 'exit':
        return this.#line(
          `[agent exited ${e.signal ? `on signal ${e.signal}` : `with code ${e.code}`}]`,
        );
    }
  }

  #update(u: Record<string, unknown>): string {
    switch (u.sessionUpdate) {
      case 'agent_message_chunk': {
        const c = u.content as { type?: string; text?: string } | undefined;
        if (c?.type !== 'text' || !c.text) return '';
        const text = printableText(c.text);
        let out = '';
        if (this.#inThought) {
          out = '\n';
          this.#midLine = false;
        }
        this.#inThought = false;
        out += text;
        if (text) this.#midLine = !text.endsWith('\n');
        return out;
      }
      case 'agent_thought_chunk':
        if (this.#inThought) return '';
        {
          const out = this.#line('(thinking…)');
          this.#inThought = true;
          return out;
        }
      case 'tool_call': {
        const id = String(u.toolCallId ?? '');
        const t = {
          title: oneLine(u.title ?? '(tool call)'),
          kind: oneLine(u.kind ?? 'other', 40),
          status: oneLine(u.status ?? 'pending', 40),
        };
        this.#tools.set(id, t);
        return this.#line(`⚙ ${t.title} [${t.kind}] ${STATUS_MARK[t.status] ?? ''} ${t.status}`);
      }
      case 'tool_call_update': {
        const id = String(u.toolCallId ?? '');
        const t = this.#tools.get(id) ?? { title: id, kind: 'other', status: '' };
        if (typeof u.title === 'string') t.title = oneLine(u.title);
        const status = typeof u.status === 'string' ? oneLine(u.status, 40) : t.status;
        this.#tools.set(id, t);
        if (status === t.status) return '';
        t.status = status;
        return this.#line(`  ${STATUS_MARK[status] ?? '·'} ${t.title} ${status}`);
      }
      case 'plan': {
        const entries = Array.isArray(u.entries) ? u.entries : [];
        const lines = ['plan:'];
        for (const p of entries as { content?: unknown; status?: unknown }[]) {
          lines.push(`  ${PLAN_MARK[String(p.status)] ?? '[ ]'} ${oneLine(p.content)}`);
        }
        return this.#line(lines.join('\n'));
      }
      default:
        return ''; // modes, commands, usage and others are not shown
    }
  }
}
