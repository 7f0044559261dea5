/**
 * The wire-independent half of the fake model servers for Qwen Code and Gemini CLI
 * (fake-openai.ts speaks OpenAI Chat Completions, fake-gemini.ts Gemini's
 * streamGenerateContent): what a turn looks like once decoded, the script that picks the
 * reply, and the request log. Both agents offer the same tool names for the shell
 * (`run_shell_command`, `{command, description}`) and for writing a file (`write_file`,
 * `{file_path, content}`): Qwen Code is a fork of Gemini CLI.
 *
 * The default script is keyed on `task-<name>` words in the latest prompt the person typed,
 * like test/support/fake-anthropic.ts. The request plumbing (log, body, errors as 500,
 * aborts, listen and close: {@link startLoggingServer}) serves fake-anthropic.ts too.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call of a scripted reply; `id` is made up when missing. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

/** What the server answers to one request. */
export interface ModelReply {
  /** Text streamed first (may be empty). */
  text?: string;
  /** Tool calls after the text. */
  toolCalls?: ToolCall[];
  /** Stall this long (ms) before sending anything, headers included. Default 0. */
  delayMs?: number;
  /** Delay between streamed pieces of text, ms; default the server's chunkDelayMs. */
  chunkDelayMs?: number;
  /** Text piece size in characters; default 24. */
  pieceChars?: number;
}

/** A tool's outcome the agent sent back, joined with the call this server issued. */
export interface ToolResult {
  /** The call id (OpenAI `tool_call_id`; Gemini `functionResponse.id` or a made-up one). */
  id: string;
  name: string;
  /** The result as text (JSON for structured results). */
  text: string;
  /** The call this server issued for it, with the rule that issued it; undefined if unknown. */
  call?: ToolCall & { rule: string };
}

/** What a script rule sees of one request, decoded from either wire format. */
export interface ModelTurn {
  /** The model asked for. */
  model: string;
  /** Names of the tools offered (empty for side requests: titles, routers, summaries). */
  tools: string[];
  /** True when the request streams (SSE). */
  stream: boolean;
  /** True when the request asks for JSON output (a response schema or `response_format`). */
  json: boolean;
  /** The JSON schema the reply must follow, when the request gives one. */
  schema?: unknown;
  /** Text of the latest user message the person typed (tool results and reminders left out). */
  promptText: string;
  /** The `task-<name>` word of `promptText` (lower case), or undefined. */
  task: string | undefined;
  /** Tool results in the latest user turn (empty unless a tool just ran). */
  toolResults: ToolResult[];
  /** The whole system text (system messages or systemInstruction), for side-request checks. */
  system: string;
  /** The whole request body as JSON text, to look things up in (e.g. {@link cwdOf}). */
  context: string;
}

/** One rule of a script: `match` picks the request, `reply` answers it. */
export interface ModelRule {
  /** Name put in the log, e.g. `task-bash/tool`. */
  name: string;
  match: (t: ModelTurn) => boolean;
  reply: (t: ModelTurn) => ModelReply;
}

/** One line of a server's request log. */
export interface ModelLogEntry extends RequestEntry {
  /** For model requests: the rule that answered and what was sent. */
  rule?: string;
  task?: string;
  model?: string;
  stream?: boolean;
  tools?: number;
  reply?: ModelReply;
  toolResults?: ToolResult[];
}

/** Options shared by both fake servers. */
export interface FakeModelOptions {
  /** Port to listen on; 0 (default) picks a free one. Always binds 127.0.0.1. */
  port?: number;
  /** Rules tried before the default script, first match wins. */
  rules?: ModelRule[];
  /** Replace the default script entirely (then only `rules` + this are used). */
  script?: ModelRule[];
  /** Stall of `task-slow` before streaming, ms. Default 9000. */
  slowMs?: number;
  /** Delay between streamed events, ms. Default 5. */
  chunkDelayMs?: number;
}

/** A running fake model server. */
export interface FakeModelServer {
  /** Base URL, e.g. `http://127.0.0.1:41234` (OpenAI clients add `/v1`). */
  url: string;
  port: number;
  /** Every request so far, in arrival order (live array). */
  log: ModelLogEntry[];
  /** Model requests (those a script answered) so far. */
  turns(): ModelLogEntry[];
  /** The log as JSON lines with bodies left out and lines cut short, for failure messages. */
  dump(maxChars?: number): string;
  /** Put rules in front of the script at run time (first match wins). */
  addRules(...rules: ModelRule[]): void;
  /** Stops listening, drops open connections and pending stalls. Never rejects. */
  close(): Promise<void>;
}

/** The shell command of `task-bash`: it writes, so no agent runs it without asking. */
export const BASH_COMMAND = 'touch hello.txt';
/** The shell command of `task-slowbash`: about 8 s, then it writes (an agent asks first). */
export const SLOW_BASH_COMMAND = "node -e 'setTimeout(()=>{},8000)' && touch bench.txt";
/** The reply of `task-question`: prose that ends in a question, never a prompt. */
export const QUESTION_REPLY = 'I fixed the off-by-one error in the loop bounds, so the last ' +
  'element is now processed.\n\nWould you like me to add a regression test?';

/** The model's final reply of task-bash round `n` (each round's differs: the screen tells them apart). */
export function roundReply(n: number): string {
  return `Touched hello.txt for round ${n}.`;
}

let idCounter = 0;
/** A fresh id with `prefix`, unique in this process. */
export function makeId(prefix: string): string {
  idCounter += 1;
  return `${prefix}_fake${Date.now().toString(36)}${idCounter.toString().padStart(6, '0')}`;
}

/** True when the latest tool results answer a call issued by a rule named `rulePrefix...`. */
export function answers(t: ModelTurn, rulePrefix: string): boolean {
  return t.toolResults.some((r) => r.call?.rule.startsWith(rulePrefix));
}

const shell = (command: string, description: string): ToolCall => ({
  name: 'run_shell_command',
  args: { command, description },
});

/**
 * The default script, for Qwen Code 0.24 and Gemini CLI 0.61 alike:
 * - JSON side requests (routers, classifiers) and requests with no tools: answered by the
 *   wire layer from the schema, or a short text;
 * - `task-bash`: `run_shell_command` {@link BASH_COMMAND}, then "Created hello.txt." (with
 *   `round N` in the prompt: {@link roundReply});
 * - `task-slowbash`: `run_shell_command` {@link SLOW_BASH_COMMAND}, then a text;
 * - `task-write`: `write_file` notes.txt (an edit approval), then a text;
 * - `task-slow`: stall `slowMs`, then a text;
 * - `task-question`: {@link QUESTION_REPLY};
 * - `task-essay`: a long reply streamed slowly (~10 s);
 * - anything else: "OK.".
 */
export function defaultModelScript(slowMs: number): ModelRule[] {
  const done = (task: string, text: string): ModelRule => ({
    name: `${task}/done`,
    match: (t) => t.task === task && answers(t, task),
    reply: () => ({ text }),
  });
  const tool = (task: string, reply: (t: ModelTurn) => ModelReply): ModelRule => ({
    name: `${task}/tool`,
    match: (t) => t.task === task && t.toolResults.length === 0,
    reply,
  });
  return [
    { name: 'side', match: (t) => t.json || t.tools.length === 0, reply: () => ({ text: 'OK.' }) },
    {
      name: 'task-bash/round-done',
      match: (t) =>
        t.task === 'task-bash' && /round \d+/.test(t.promptText) && answers(t, 'task-bash'),
      reply: (t) => ({ text: roundReply(Number(/round (\d+)/.exec(t.promptText)![1])) }),
    },
    done('task-bash', 'Created hello.txt.'),
    tool('task-bash', () => ({
      text: "I'll create the file.",
      toolCalls: [shell(BASH_COMMAND, 'Create an empty hello.txt')],
    })),
    done('task-slowbash', 'The slow benchmark finished.'),
    tool('task-slowbash', () => ({
      text: 'Running the benchmark.',
      toolCalls: [shell(SLOW_BASH_COMMAND, 'Run the slow benchmark')],
    })),
    done('task-write', 'Wrote notes.txt.'),
    {
      name: 'task-write/tool',
      match: (t) => t.task === 'task-write' && t.toolResults.length === 0,
      reply: (t) => ({
        text: "I'll write the notes.",
        toolCalls: [{
          name: 'write_file',
          args: { file_path: `${cwdOf(t)}/notes.txt`, content: 'Remember the milk.\n' },
        }],
      }),
    },
    {
      name: 'task-slow',
      match: (t) => t.task === 'task-slow' && t.toolResults.length === 0,
      reply: () => ({
        delayMs: slowMs,
        text: 'I checked the project; there is nothing to change.',
      }),
    },
    {
      name: 'task-question',
      match: (t) => t.task === 'task-question' && t.toolResults.length === 0,
      reply: () => ({ text: QUESTION_REPLY }),
    },
    {
      name: 'task-essay',
      match: (t) => t.task === 'task-essay' && t.toolResults.length === 0,
      reply: () => ({
        text: Array.from({ length: 60 }, (_, i) => `Testing matters, point ${i + 1}.`).join(' '),
        chunkDelayMs: 150,
        pieceChars: 16,
      }),
    },
    { name: 'fallback', match: () => true, reply: () => ({ text: 'OK.' }) },
  ];
}

/**
 * The agent's working directory as its context states it (Qwen Code 0.24 and Gemini CLI 0.61
 * both write "I'm currently working in the directory: /path" into the first user turn);
 * '.' when not found.
 */
export function cwdOf(t: ModelTurn): string {
  const m = /working in the directory:?\s*(\/[^\s`'"\\]+)/i.exec(t.context);
  return m ? m[1].replace(/[.,;:]+$/, '') : '.';
}

/** The task word of a prompt, e.g. `task-bash`. */
export function taskOf(text: string): string | undefined {
  return /\btask-[a-z0-9]+/i.exec(text)?.[0].toLowerCase();
}

/**
 * A value that satisfies a JSON schema as far as routers and classifiers need it: objects get
 * every property, strings the first `enum` value (else "fake"), numbers 0, booleans false,
 * arrays []. Accepts both JSON Schema and Gemini's OpenAPI subset (`type: "OBJECT"`).
 */
export function valueFromSchema(schema: unknown, depth = 0): unknown {
  if (depth > 8 || typeof schema !== 'object' || schema === null) return null;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0) return valueFromSchema(s.anyOf[0], depth + 1);
  const type = String(Array.isArray(s.type) ? s.type[0] : s.type ?? 'object').toLowerCase();
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = (s.properties ?? {}) as Record<string, unknown>;
      for (const [k, v] of Object.entries(props)) out[k] = valueFromSchema(v, depth + 1);
      return out;
    }
    case 'array':
      return [];
    case 'string':
      return 'fake';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleepUnless(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/** Splits `text` into pieces of `n` characters (at least one piece, maybe empty). */
export function pieces(text: string, n: number): string[] {
  const out = text.match(new RegExp(`[\\s\\S]{1,${n}}`, 'g')) ?? [];
  return out.length > 0 ? out : [''];
}

/** The log as JSON lines without bodies, each cut to `maxChars`. */
export function dumpLog(log: ReadonlyArray<{ body?: unknown }>, maxChars: number): string {
  return log.map((e) => {
    const { body: _body, ...rest } = e;
    const line = JSON.stringify(rest);
    return line.length > maxChars ? `${line.slice(0, maxChars)}…` : line;
  }).join('\n');
}

/** What every fake server logs of a request before it answers it. */
export interface RequestEntry {
  /** ms since the server started. */
  t: number;
  /** ms since the epoch. */
  epochMs: number;
  method: string;
  url: string;
  /** Parsed JSON body (the raw text when not JSON; undefined when empty). */
  body?: unknown;
  /** Set when the client went away before the reply was complete. */
  aborted?: boolean;
  status?: number;
}

/**
 * The request plumbing every fake model server shares (this file's and fake-anthropic.ts):
 * each request is logged (`log`, arrival order) with its body, then `answer` replies with
 * the request's path (no query) and its raw body text; an `answer` that throws gets a 500
 * JSON body made by `errorBody` from its message (and `error: MESSAGE` in the entry's `rule`),
 * so a broken script rule shows in the log rather than as a hang. Listens on 127.0.0.1
 * (`port` 0: a free one); `close()` also aborts every reply's signal ({@link replySignal}).
 * @throws if the port cannot be bound.
 */
export async function startLoggingServer<E extends RequestEntry>(
  port: number,
  log: E[],
  answer: (
    req: IncomingMessage,
    res: ServerResponse,
    entry: E,
    path: string,
    raw: string,
  ) => Promise<void>,
  errorBody: (message: string) => unknown,
): Promise<{ port: number; closing: AbortSignal; close(): Promise<void> }> {
  const start = Date.now();
  const closing = new AbortController();
  const server: Server = createServer((req, res) => {
    const entry = {
      t: Date.now() - start,
      epochMs: Date.now(),
      method: req.method ?? '',
      url: req.url ?? '',
    } as E;
    log.push(entry);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        try {
          const raw = Buffer.concat(chunks).toString('utf8');
          if (raw !== '') {
            try {
              entry.body = JSON.parse(raw);
            } catch {
              entry.body = raw;
            }
          }
          await answer(req, res, entry, (req.url ?? '').split('?')[0], raw);
        } catch (err) {
          entry.status = 500;
          (entry as { rule?: string }).rule = `error: ${(err as Error).message}`;
          if (!res.headersSent) {
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(JSON.stringify(errorBody((err as Error).message)));
          } else {
            res.end();
          }
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    closing: closing.signal,
    close() {
      closing.abort();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * The signal a reply stops on: aborted when the client goes away (then `entry.aborted` is set
 * if the reply was not complete) or when the server closes (`closing`).
 */
export function replySignal(
  res: ServerResponse,
  entry: RequestEntry,
  closing: AbortSignal,
): AbortSignal {
  const aborted = new AbortController();
  const onAbort = () => aborted.abort();
  closing.addEventListener('abort', onAbort);
  res.on('close', () => {
    if (!res.writableFinished) entry.aborted = true;
    aborted.abort();
    closing.removeEventListener('abort', onAbort);
  });
  return aborted.signal;
}

/** How one wire format reads requests and writes replies; see {@link startModelServer}. */
export interface ModelWire {
  /** Name used in error replies, e.g. `fake-openai`. */
  name: string;
  /**
   * Decodes a request into a turn, or returns undefined when it is not a model request (then
   * `other` answers it). `issued` maps call ids (and, for Gemini, names) to the calls issued.
   */
  decode(
    method: string,
    path: string,
    body: unknown,
    issued: ReadonlyMap<string, ToolCall & { rule: string }>,
  ): ModelTurn | undefined;
  /** Answers a request that is not a model request: status and JSON body. */
  other(method: string, path: string): { status: number; body: unknown };
  /**
   * Writes the reply (tool calls carry their ids). Resolves when done; stops early (without
   * throwing) when `signal` aborts.
   */
  send(
    res: ServerResponse,
    turn: ModelTurn,
    reply: ModelReply & { toolCalls: Array<ToolCall & { id: string }> },
    signal: AbortSignal,
    chunkDelayMs: number,
  ): Promise<void>;
}

/**
 * Starts a fake model server on 127.0.0.1 for one wire format. Every request is logged with
 * its time; a request whose script rule throws gets a 500 naming the error (and is logged),
 * so a broken rule shows in the log rather than as a hang.
 * @throws if the port cannot be bound.
 */
export async function startModelServer(
  options: FakeModelOptions,
  wire: ModelWire,
): Promise<FakeModelServer> {
  const rules: ModelRule[] = [
    ...(options.rules ?? []),
    ...(options.script ?? defaultModelScript(options.slowMs ?? 9000)),
  ];
  const chunkDelayMs = options.chunkDelayMs ?? 5;
  const issued = new Map<string, ToolCall & { rule: string }>();
  const log: ModelLogEntry[] = [];
  const server = await startLoggingServer<ModelLogEntry>(
    options.port ?? 0,
    log,
    async (_req, res, entry, path) => {
      const turn = wire.decode(entry.method, path, entry.body, issued);
      if (!turn) {
        const o = wire.other(entry.method, path);
        entry.status = o.status;
        res.writeHead(o.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(o.body));
        return;
      }
      const rule = rules.find((r) => r.match(turn));
      if (!rule) throw new Error('no script rule matched');
      const reply = rule.reply(turn);
      const toolCalls = (reply.toolCalls ?? []).map((c) => ({
        ...c,
        id: c.id ?? makeId('call'),
      }));
      for (const c of toolCalls) {
        issued.set(c.id, { ...c, rule: rule.name });
        issued.set(`name:${c.name}`, { ...c, rule: rule.name });
      }
      Object.assign(entry, {
        rule: rule.name,
        task: turn.task,
        model: turn.model,
        stream: turn.stream,
        tools: turn.tools.length,
        reply: { ...reply, toolCalls },
        toolResults: turn.toolResults,
      });
      const signal = replySignal(res, entry, server.closing);
      await sleepUnless(reply.delayMs ?? 0, signal);
      if (signal.aborted) return;
      entry.status = 200;
      await wire.send(res, turn, { ...reply, toolCalls }, signal, chunkDelayMs);
    },
    (message) => ({ error: { message: `${wire.name}: ${message}` } }),
  );
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    log,
    turns: () => log.filter((e) => e.rule !== undefined),
    dump: (maxChars = 400) => dumpLog(log, maxChars),
    addRules(...more) {
      rules.unshift(...more);
    },
    close: () => server.close(),
  };
}
