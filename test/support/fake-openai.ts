/**
 * A scripted fake of the OpenAI Chat Completions API, good enough for real Qwen Code 0.24 to
 * run against on 127.0.0.1 (OPENAI_BASE_URL=`${url}/v1`, any OPENAI_API_KEY). Nothing leaves
 * the machine.
 *
 * Wire (OpenAI's API reference, as Qwen Code uses it): `POST /v1/chat/completions` with
 * `messages` (roles system, user, assistant with `tool_calls`, tool with `tool_call_id`),
 * `tools: [{type: "function", function: {name, ...}}]`, `stream: true` and
 * `stream_options.include_usage`. A streamed reply is SSE `data: {chat.completion.chunk}` lines:
 * the role, text deltas, tool call deltas (`{index, id, type, function: {name, arguments}}`,
 * arguments in pieces), a chunk with `finish_reason` (`stop` or `tool_calls`), a usage chunk,
 * then `data: [DONE]`. `GET /v1/models` lists one model; anything else answers `200 {}`.
 */
import {
  type FakeModelOptions,
  type FakeModelServer,
  makeId,
  type ModelTurn,
  pieces,
  sleepUnless,
  startModelServer,
  taskOf,
  type ToolResult,
  valueFromSchema,
} from './fake-model.ts';

/** One message of a request as far as this server reads it. */
interface ChatMessage {
  role: string;
  content?: string | Array<{ type?: string; text?: string }> | null;
  tool_call_id?: string;
  tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
}

/** The body of `POST /v1/chat/completions` as far as this server reads it. */
interface ChatRequest {
  model?: string;
  stream?: boolean;
  messages?: ChatMessage[];
  tools?: Array<{ function?: { name?: string } }>;
  response_format?: { type?: string; json_schema?: { schema?: unknown } };
}

/** True for text an agent adds to a user message by itself (reminders, context blocks). */
function injected(text: string): boolean {
  return /^\s*<(system-reminder|context|environment)/.test(text);
}

/** A message's text: string content, or its text parts joined (injected parts left out). */
function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return injected(content) ? '' : content;
  if (Array.isArray(content)) {
    return content.map((p) => p.text ?? '').filter((t) => !injected(t)).join('\n');
  }
  return '';
}

/**
 * Starts the fake OpenAI server on 127.0.0.1 with the default script of fake-model.ts (or the
 * options' rules). Its `url` has no `/v1`: give Qwen Code `${url}/v1`.
 * @throws if the port cannot be bound.
 */
export function startFakeOpenAI(options: FakeModelOptions = {}): Promise<FakeModelServer> {
  return startModelServer(options, {
    name: 'fake-openai',
    decode(method, path, raw, issued): ModelTurn | undefined {
      if (method !== 'POST' || !path.endsWith('/chat/completions')) return undefined;
      const body = (raw ?? {}) as ChatRequest;
      const messages = body.messages ?? [];
      let promptText = '';
      for (let i = messages.length - 1; i >= 0 && promptText === ''; i--) {
        const m = messages[i];
        if (m.role !== 'user') continue;
        const t = textOf(m.content);
        if (t.trim() !== '') promptText = t;
      }
      // tool results of the latest turn: the tool messages after the last assistant message,
      // unless the person typed a new prompt after them (a denied call's result comes back
      // with the next prompt)
      const toolResults: ToolResult[] = [];
      const lastMsg = messages.at(-1);
      const newPrompt = lastMsg?.role === 'user' && textOf(lastMsg.content).trim() !== '';
      for (let i = messages.length - 1; i >= 0 && !newPrompt; i--) {
        const m = messages[i];
        if (m.role === 'assistant') break;
        if (m.role !== 'tool') continue;
        const id = String(m.tool_call_id ?? '');
        const call = issued.get(id);
        toolResults.unshift({ id, name: call?.name ?? '', text: textOf(m.content), call });
      }
      const schema = body.response_format?.json_schema?.schema;
      return {
        model: String(body.model ?? ''),
        tools: (body.tools ?? []).map((t) => String(t.function?.name ?? '')),
        stream: body.stream === true,
        json: body.response_format?.type === 'json_object' ||
          body.response_format?.type === 'json_schema',
        schema,
        promptText,
        task: taskOf(promptText),
        toolResults,
        system: messages.filter((m) => m.role === 'system').map((m) => textOf(m.content)).join(
          '\n',
        ),
        context: JSON.stringify(body),
      };
    },
    other(method, path) {
      if (method === 'GET' && path.endsWith('/models')) {
        return {
          status: 200,
          body: { object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'fake' }] },
        };
      }
      return { status: 200, body: {} };
    },
    async send(res, turn, reply, signal, chunkDelayMs) {
      const id = makeId('chatcmpl');
      const created = Math.floor(Date.now() / 1000);
      const model = turn.model || 'fake-model';
      let text = reply.text ?? '';
      if (turn.json && reply.toolCalls.length === 0) {
        text = JSON.stringify(turn.schema ? valueFromSchema(turn.schema) : {});
      }
      const finish = reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
      const usage = {
        prompt_tokens: 100,
        completion_tokens: Math.ceil(text.length / 4) + 10,
        total_tokens: 110 + Math.ceil(text.length / 4),
      };
      if (!turn.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{
            index: 0,
            message: {
              role: 'assistant',
              content: text === '' ? null : text,
              ...(reply.toolCalls.length > 0
                ? {
                  tool_calls: reply.toolCalls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: JSON.stringify(c.args) },
                  })),
                }
                : {}),
            },
            finish_reason: finish,
          }],
          usage,
        }));
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      const chunk = async (
        delta: Record<string, unknown>,
        finishReason: string | null,
        wait: number,
      ) => {
        if (signal.aborted) return;
        res.write(`data: ${
          JSON.stringify({
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            choices: [{ index: 0, delta, finish_reason: finishReason }],
          })
        }\n\n`);
        await sleepUnless(wait, signal);
      };
      await chunk({ role: 'assistant', content: '' }, null, chunkDelayMs);
      if (text !== '') {
        for (const p of pieces(text, reply.pieceChars ?? 24)) {
          await chunk({ content: p }, null, reply.chunkDelayMs ?? chunkDelayMs);
        }
      }
      for (const [index, c] of reply.toolCalls.entries()) {
        await chunk(
          {
            tool_calls: [{
              index,
              id: c.id,
              type: 'function',
              function: { name: c.name, arguments: '' },
            }],
          },
          null,
          chunkDelayMs,
        );
        for (const p of pieces(JSON.stringify(c.args), 32)) {
          await chunk({ tool_calls: [{ index, function: { arguments: p } }] }, null, chunkDelayMs);
        }
      }
      await chunk({}, finish, chunkDelayMs);
      if (signal.aborted) return;
      res.write(
        `data: ${
          JSON.stringify({
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            choices: [],
            usage,
          })
        }\n\n`,
      );
      res.write('data: [DONE]\n\n');
      res.end();
    },
  });
}
