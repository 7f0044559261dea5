/**
 * A scripted fake of the Anthropic Messages API, good enough for real Claude Code to run
 * against on 127.0.0.1. Nothing leaves the machine.
 *
 * What Claude Code 2.1.332 sends (seen by running it against this server; see
 * fixtures/claude-code/README.md): `POST /v1/messages?beta=true` with `stream: true`, a model
 * such as `claude-opus-5-5`, a `tools` array (Bash, Edit, Write, Read, ...), a `system` array
 * and the whole conversation in `messages`. A tool's outcome comes back as a user message whose
 * content holds a `tool_result` block that names the `tool_use_id` this server issued.
 *
 * The reply to each request is chosen by a script: an ordered list of rules, first match wins.
 * The default script is keyed on `task-<name>` words in the latest human prompt, as the lab
 * server that made the fixtures was. Tests can put their own rules in front. The request
 * plumbing (log, errors, aborts, listening) is fake-model.ts's, shared with the fake servers
 * of the other agents.
 */
import type { ServerResponse } from 'node:http';
import {
  dumpLog,
  makeId,
  replySignal,
  type RequestEntry,
  sleepUnless as sleep,
  startLoggingServer,
} from './fake-model.ts';

/** A text block of a scripted reply. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** A tool call of a scripted reply; `id` is made up when missing. */
export interface ToolUseBlock {
  type: 'tool_use';
  name: string;
  input: Record<string, unknown>;
  id?: string;
}

/** One block of a scripted reply. */
export type ReplyBlock = TextBlock | ToolUseBlock;

/** What the server answers to one request. */
export interface Reply {
  /** Blocks in order; a reply with a tool_use ends with stop_reason `tool_use`. */
  content: ReplyBlock[];
  /** Stall this long (ms) before sending anything, headers included. Default 0. */
  delayMs?: number;
  /** Overrides the stop reason (default `tool_use` if a tool_use block is present, else `end_turn`). */
  stopReason?: string;
}

/** A tool_result block of the latest user message, joined with the tool_use it answers. */
export interface ToolResultInfo {
  toolUseId: string;
  /** The result's text (text parts joined by `\n`). */
  text: string;
  isError: boolean;
  /** The tool_use this server issued with that id (undefined if unknown). */
  toolUse?: { name: string; input: Record<string, unknown>; rule: string };
}

/** What a script rule sees of one `POST /v1/messages` request. */
export interface TurnContext {
  /** The parsed request body. */
  body: MessagesRequest;
  model: string;
  /** Names of the tools offered (empty for side requests such as titles). */
  tools: string[];
  /** Text of the latest user message (text blocks only, `<system-reminder>` blocks dropped). */
  lastUserText: string;
  /** Text of the latest user message that holds human text (the prompt typed), reminders dropped. */
  promptText: string;
  /** The `task-<name>` word of `promptText`, e.g. `task-bash`, or undefined. */
  task: string | undefined;
  /**
   * Claude Code's working directory, from "Primary working directory: ..." in its environment
   * text (a `role: "system"` entry of `messages`, or the system prompt); '' if not found.
   */
  cwd: string;
  /** tool_result blocks of the latest user message (empty unless a tool just ran). */
  toolResults: ToolResultInfo[];
  /** Options of the server (slowMs and so on). */
  options: Required<Pick<FakeAnthropicOptions, 'slowMs' | 'slowBashCommand'>>;
}

/** One rule of a script: `match` picks the request, `reply` answers it. */
export interface ScriptRule {
  /** Name put in the log, e.g. `task-bash/tool`. */
  name: string;
  match: (ctx: TurnContext) => boolean;
  reply: (ctx: TurnContext) => Reply;
}

/** The body of `POST /v1/messages` as far as this server reads it. */
export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  max_tokens?: number;
  system?: unknown;
  tools?: Array<{ name?: string; [k: string]: unknown }>;
  messages?: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
  [k: string]: unknown;
}

/** One line of the server's request log. */
export interface LogEntry extends RequestEntry {
  /** For messages requests: the rule that answered, the task, and what was sent. */
  rule?: string;
  task?: string;
  model?: string;
  stream?: boolean;
  tools?: number;
  reply?: ReplyBlock[];
  toolResults?: ToolResultInfo[];
}

/** Options of {@link startFakeAnthropic}. */
export interface FakeAnthropicOptions {
  /** Port to listen on; 0 (default) picks a free one. Always binds 127.0.0.1. */
  port?: number;
  /** Rules tried before the default script, first match wins. */
  rules?: ScriptRule[];
  /** Replace the default script entirely (then only `rules` + this are used). */
  script?: ScriptRule[];
  /** Stall of `task-slow` before streaming, ms. Default 9000 (as in the captures). */
  slowMs?: number;
  /**
   * Command of `task-slowbash`. Default `sleep 9 && touch build.log`. Claude Code 2.1.332
   * refuses a leading `sleep N` with N >= 25 s (tool_result error "Blocked: sleep 37 followed
   * by: ..."), and runs a command that only sleeps without asking, hence the `touch`.
   */
  slowBashCommand?: string;
  /** Delay between SSE events, ms. Default 5 (gives the UI a few frames of streaming). */
  chunkDelayMs?: number;
}

/** A running fake server; see {@link startFakeAnthropic}. */
export interface FakeAnthropic {
  /** Base URL for ANTHROPIC_BASE_URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  /** Every request so far, in arrival order (live array). */
  log: LogEntry[];
  /** All tool_result blocks seen so far. */
  toolResults(): ToolResultInfo[];
  /** Messages requests (POST /v1/messages) so far. */
  messages(): LogEntry[];
  /** The log as JSON lines with bodies cut short, for failure messages. */
  dump(maxChars?: number): string;
  /** Put rules in front of the script at run time (first match wins). */
  addRules(...rules: ScriptRule[]): void;
  /** Stops listening, drops open connections and pending stalls. Never rejects. */
  close(): Promise<void>;
}

function blockText(b: Record<string, unknown>): string {
  if (b.type === 'text' && typeof b.text === 'string') return b.text;
  return '';
}

function isReminder(text: string): boolean {
  return text.trimStart().startsWith('<system-reminder>');
}

function contentBlocks(
  content: string | Array<Record<string, unknown>>,
): Array<Record<string, unknown>> {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function humanText(content: string | Array<Record<string, unknown>>): string {
  return contentBlocks(content)
    .map(blockText)
    .filter((t) => t !== '' && !isReminder(t))
    .join('\n');
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((c) => (typeof c?.text === 'string' ? c.text : '')).join('\n');
  }
  return '';
}

function findCwd(body: MessagesRequest): string {
  const texts: string[] = [];
  const collect = (c: unknown) => {
    if (typeof c === 'string') texts.push(c);
    else if (Array.isArray(c)) {
      for (const b of c) texts.push(typeof b?.text === 'string' ? b.text : '');
    }
  };
  collect(body.system);
  for (const m of body.messages ?? []) if (m.role !== 'assistant') collect(m.content);
  for (const t of texts) {
    const m = /Primary working directory: (.+)/.exec(t);
    if (m) return m[1].trim();
  }
  return '';
}

const text = (t: string): TextBlock => ({ type: 'text', text: t });
const bash = (command: string, description: string): ToolUseBlock => ({
  type: 'tool_use',
  name: 'Bash',
  input: { command, description },
});

/** True when the latest user message answers a tool_use of `rule` (a rule name prefix). */
function answers(ctx: TurnContext, rulePrefix: string): boolean {
  return ctx.toolResults.some((r) => r.toolUse?.rule.startsWith(rulePrefix));
}

/**
 * The default script, as the lab server had it:
 * - no tools offered (title, plan-file name and other side requests): a short text;
 * - `task-bash`: text + Bash `touch hello.txt`, then on its tool_result "Created hello.txt in
 *   the project directory.". The command writes on purpose: in manual mode Claude Code runs
 *   read-only commands (`sleep`, `echo`) without asking, so they would never block;
 * - `task-slowbash`: Bash `slowBashCommand`, then "The long-running command finished.";
 * - `task-write`: Write hello.py, then a text; `task-ask`: AskUserQuestion, then a text;
 * - `task-slow`: stall `slowMs`, then "I checked the project; there is nothing else to change.";
 * - `task-question`: a reply ending "Would you like me to add a regression test?";
 * - anything else: "OK.".
 */
export function defaultScript(): ScriptRule[] {
  return [
    {
      name: 'side',
      match: (c) => c.tools.length === 0,
      reply: () => ({ content: [text('Fake title')] }),
    },
    {
      name: 'task-bash/done',
      match: (c) => c.task === 'task-bash' && answers(c, 'task-bash'),
      reply: () => ({ content: [text('Created hello.txt in the project directory.')] }),
    },
    {
      name: 'task-bash/tool',
      match: (c) => c.task === 'task-bash' && c.toolResults.length === 0,
      reply: () => ({
        content: [
          text("I'll create the file."),
          bash('touch hello.txt', 'Create empty hello.txt file'),
        ],
      }),
    },
    {
      name: 'task-slowbash/done',
      match: (c) => c.task === 'task-slowbash' && answers(c, 'task-slowbash'),
      reply: () => ({ content: [text('The long-running command finished.')] }),
    },
    {
      name: 'task-slowbash/tool',
      match: (c) => c.task === 'task-slowbash' && c.toolResults.length === 0,
      reply: (c) => ({
        content: [
          text('Running the build.'),
          bash(c.options.slowBashCommand, 'Run the slow build'),
        ],
      }),
    },
    {
      name: 'task-write/done',
      match: (c) => c.task === 'task-write' && answers(c, 'task-write'),
      reply: () => ({ content: [text('Wrote hello.py.')] }),
    },
    {
      name: 'task-write/tool',
      match: (c) => c.task === 'task-write' && c.toolResults.length === 0,
      reply: (c) => ({
        content: [text("I'll write the file."), {
          type: 'tool_use',
          name: 'Write',
          input: {
            file_path: c.cwd ? `${c.cwd}/hello.py` : 'hello.py',
            content: 'print("hello")\n',
          },
        }],
      }),
    },
    {
      name: 'task-ask/done',
      match: (c) => c.task === 'task-ask' && answers(c, 'task-ask'),
      reply: () => ({ content: [text('Thanks, I will use that.')] }),
    },
    {
      name: 'task-ask/tool',
      match: (c) => c.task === 'task-ask' && c.toolResults.length === 0,
      reply: () => ({
        content: [{
          type: 'tool_use',
          name: 'AskUserQuestion',
          input: {
            questions: [{
              question: 'Which test framework should I use?',
              header: 'Framework',
              multiSelect: false,
              options: [
                { label: 'pytest', description: 'The common choice' },
                { label: 'unittest', description: 'In the standard library' },
              ],
            }],
          },
        }],
      }),
    },
    {
      name: 'task-slow',
      match: (c) => c.task === 'task-slow' && c.toolResults.length === 0,
      reply: (c) => ({
        delayMs: c.options.slowMs,
        content: [text('I checked the project; there is nothing else to change.')],
      }),
    },
    {
      name: 'task-question',
      match: (c) => c.task === 'task-question' && c.toolResults.length === 0,
      reply: () => ({
        content: [
          text(
            'I fixed the off-by-one error in the loop bounds, so the last element is now ' +
              'processed.\n\nWould you like me to add a regression test?',
          ),
        ],
      }),
    },
    { name: 'fallback', match: () => true, reply: () => ({ content: [text('OK.')] }) },
  ];
}

function usage(out: number) {
  return {
    input_tokens: 100,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: out,
  };
}

/**
 * Starts the fake API on 127.0.0.1.
 *
 * Endpoints: `POST /v1/messages` (any query, e.g. `?beta=true`) answers by the script, as SSE
 * when `stream` is true, else as one JSON message; `POST /v1/messages/count_tokens` answers
 * `{input_tokens: 100}`; any other request gets `200 {}`. Every request is logged with its time.
 * A request whose script rule throws gets a 500 with the error (and is logged), so a broken
 * rule shows up in the log rather than as a hang.
 *
 * @returns the running server; call `close()` when done (it never rejects).
 * @throws if the port cannot be bound.
 */
export async function startFakeAnthropic(
  options: FakeAnthropicOptions = {},
): Promise<FakeAnthropic> {
  const opts = {
    slowMs: options.slowMs ?? 9000,
    slowBashCommand: options.slowBashCommand ?? 'sleep 9 && touch build.log',
  };
  const chunkDelayMs = options.chunkDelayMs ?? 5;
  const rules: ScriptRule[] = [...(options.rules ?? []), ...(options.script ?? defaultScript())];
  const issued = new Map<string, { name: string; input: Record<string, unknown>; rule: string }>();
  const log: LogEntry[] = [];

  async function onMessages(
    res: ServerResponse,
    entry: LogEntry,
    raw: string,
  ) {
    const body = JSON.parse(raw) as MessagesRequest;
    const messages = body.messages ?? [];
    const last = messages.length > 0 ? messages[messages.length - 1] : undefined;
    const lastBlocks = last && last.role === 'user' ? contentBlocks(last.content) : [];
    let promptText = '';
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (m.role !== 'user') continue;
      const t = humanText(m.content);
      if (t.trim() !== '') {
        promptText = t;
        break;
      }
    }
    const toolResults: ToolResultInfo[] = lastBlocks
      .filter((b) => b.type === 'tool_result')
      .map((b) => ({
        toolUseId: String(b.tool_use_id),
        text: resultText(b.content),
        isError: b.is_error === true,
        toolUse: issued.get(String(b.tool_use_id)),
      }));
    const ctx: TurnContext = {
      body,
      model: String(body.model ?? ''),
      tools: (body.tools ?? []).map((t) => String(t.name ?? '')),
      lastUserText: last && last.role === 'user' ? humanText(last.content) : '',
      promptText,
      task: /\btask-[a-z0-9]+/i.exec(promptText)?.[0].toLowerCase(),
      cwd: findCwd(body),
      toolResults,
      options: opts,
    };
    const rule = rules.find((r) => r.match(ctx));
    if (!rule) throw new Error('no script rule matched');
    const reply = rule.reply(ctx);
    const content = reply.content.map((b) =>
      b.type === 'tool_use' ? { ...b, id: b.id ?? makeId('toolu') } : b
    );
    for (const b of content) {
      if (b.type === 'tool_use') {
        issued.set(b.id!, { name: b.name, input: b.input, rule: rule.name });
      }
    }
    Object.assign(entry, {
      rule: rule.name,
      task: ctx.task,
      model: ctx.model,
      stream: body.stream === true,
      tools: ctx.tools.length,
      reply: content,
      toolResults,
    });

    const signal = replySignal(res, entry, server.closing);
    await sleep(reply.delayMs ?? 0, signal);
    if (signal.aborted) return;

    const hasTool = content.some((b) => b.type === 'tool_use');
    const stopReason = reply.stopReason ?? (hasTool ? 'tool_use' : 'end_turn');
    const msgId = makeId('msg');
    const model = ctx.model || 'claude-fake';
    const outTokens = content.reduce(
      (n, b) => n + Math.ceil((b.type === 'text' ? b.text : JSON.stringify(b.input)).length / 4),
      0,
    );

    if (body.stream !== true) {
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': makeId('req') });
      res.end(JSON.stringify({
        id: msgId,
        type: 'message',
        role: 'assistant',
        model,
        content: content.map((b) =>
          b.type === 'text'
            ? { type: 'text', text: b.text }
            : { type: 'tool_use', id: b.id, name: b.name, input: b.input }
        ),
        stop_reason: stopReason,
        stop_sequence: null,
        usage: usage(outTokens),
      }));
      return;
    }

    entry.status = 200;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': makeId('req'),
    });
    const send = async (event: string, data: unknown) => {
      if (signal.aborted) return;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      await sleep(chunkDelayMs, signal);
    };
    await send('message_start', {
      type: 'message_start',
      message: {
        id: msgId,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage(1),
      },
    });
    await send('ping', { type: 'ping' });
    for (let index = 0; index < content.length; index++) {
      const b = content[index];
      if (b.type === 'text') {
        await send('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        });
        for (const piece of b.text.match(/[\s\S]{1,24}/g) ?? []) {
          await send('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'text_delta', text: piece },
          });
        }
      } else {
        await send('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
        });
        const json = JSON.stringify(b.input);
        for (const piece of json.match(/[\s\S]{1,32}/g) ?? []) {
          await send('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: piece },
          });
        }
      }
      await send('content_block_stop', { type: 'content_block_stop', index });
    }
    await send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outTokens },
    });
    await send('message_stop', { type: 'message_stop' });
    res.end();
  }

  const server = await startLoggingServer<LogEntry>(
    options.port ?? 0,
    log,
    async (req, res, entry, path, raw) => {
      if (req.method === 'POST' && path === '/v1/messages') {
        await onMessages(res, entry, raw);
      } else if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        entry.status = 200;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 100 }));
      } else {
        entry.status = 200;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      }
    },
    (message) => ({
      type: 'error',
      error: { type: 'api_error', message: `fake-anthropic: ${message}` },
    }),
  );
  const port = server.port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log,
    toolResults: () => log.flatMap((e) => e.toolResults ?? []),
    messages: () =>
      log.filter((e) => e.method === 'POST' && e.url.split('?')[0] === '/v1/messages'),
    dump: (maxChars = 400) => dumpLog(log, maxChars),
    addRules(...more: ScriptRule[]) {
      rules.unshift(...more);
    },
    close: () => server.close(),
  };
}
