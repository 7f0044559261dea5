/**
 * A scripted fake of the Gemini API, good enough for real Gemini CLI 0.61 to run against on
 * 127.0.0.1 (GOOGLE_GEMINI_BASE_URL=`url`, any GEMINI_API_KEY). Nothing leaves the machine.
 *
 * Wire (Gemini API reference, as Gemini CLI 0.61 uses it; see fixtures/gemini-cli/README.md):
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` with `contents` (roles user and
 * model; parts `text`, `functionCall {name, args}`, `functionResponse {name, id?, response}`),
 * `tools: [{functionDeclarations: [{name, ...}]}]` and `systemInstruction`. The reply is SSE
 * `data: {candidates: [{content: {role: "model", parts}}], usageMetadata}` lines, the last with
 * `finishReason: "STOP"`. The model router and other side requests use the non-streamed
 * `:generateContent` with a JSON response schema (`generationConfig.responseJsonSchema` or
 * `responseSchema`): answered with a value built from the schema. `:countTokens` answers
 * `{totalTokens: 100}`; anything else `200 {}`.
 */
import {
  type FakeModelOptions,
  type FakeModelServer,
  type ModelTurn,
  pieces,
  sleepUnless,
  startModelServer,
  taskOf,
  type ToolResult,
  valueFromSchema,
} from './fake-model.ts';

/** One part of a Gemini content, as far as this server reads it. */
interface Part {
  text?: string;
  thought?: boolean;
  functionCall?: { name?: string; args?: unknown; id?: string };
  functionResponse?: { name?: string; id?: string; response?: unknown };
}

/** The body of a generateContent request as far as this server reads it. */
interface GenerateRequest {
  contents?: Array<{ role?: string; parts?: Part[] }>;
  tools?: Array<{ functionDeclarations?: Array<{ name?: string }> }>;
  systemInstruction?: { parts?: Part[] } | string;
  generationConfig?: {
    responseMimeType?: string;
    responseSchema?: unknown;
    responseJsonSchema?: unknown;
  };
}

/** True for text Gemini CLI adds to a user turn by itself (its start-up context). */
function injected(text: string): boolean {
  return /^\s*(<(system-reminder|context|environment)|This is the Gemini CLI\.)/.test(text);
}

/**
 * Starts the fake Gemini server on 127.0.0.1 with the default script of fake-model.ts (or the
 * options' rules). Give Gemini CLI its `url` as GOOGLE_GEMINI_BASE_URL.
 * @throws if the port cannot be bound.
 */
export function startFakeGemini(options: FakeModelOptions = {}): Promise<FakeModelServer> {
  return startModelServer(options, {
    name: 'fake-gemini',
    decode(method, path, raw, issued): ModelTurn | undefined {
      const m = /\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(path);
      if (method !== 'POST' || !m) return undefined;
      const body = (raw ?? {}) as GenerateRequest;
      const contents = body.contents ?? [];
      let promptText = '';
      for (let i = contents.length - 1; i >= 0 && promptText === ''; i--) {
        const c = contents[i];
        if (c.role !== 'user') continue;
        const t = (c.parts ?? []).map((p) => p.text ?? '').filter((x) => !injected(x)).join('\n');
        if (t.trim() !== '') promptText = t;
      }
      const last = contents.at(-1);
      // a denied call's response comes back with the next prompt: not a result of this turn
      const newPrompt = (last?.parts ?? []).some((p) => p.text && !injected(p.text));
      const toolResults: ToolResult[] = last?.role === 'user' && !newPrompt
        ? (last.parts ?? []).filter((p) => p.functionResponse).map((p) => {
          const r = p.functionResponse!;
          const call = (r.id ? issued.get(r.id) : undefined) ?? issued.get(`name:${r.name}`);
          return {
            id: r.id ?? call?.id ?? '',
            name: String(r.name ?? ''),
            text: JSON.stringify(r.response ?? null),
            call,
          };
        })
        : [];
      const gc = body.generationConfig ?? {};
      const schema = gc.responseJsonSchema ?? gc.responseSchema;
      const sys = body.systemInstruction;
      return {
        model: m[1],
        tools: (body.tools ?? []).flatMap((t) =>
          (t.functionDeclarations ?? []).map((d) => String(d.name ?? ''))
        ),
        stream: m[2] === 'streamGenerateContent',
        json: gc.responseMimeType === 'application/json' || schema !== undefined,
        schema,
        promptText,
        task: taskOf(promptText),
        toolResults,
        system: typeof sys === 'string'
          ? sys
          : (sys?.parts ?? []).map((p) => p.text ?? '').join('\n'),
        context: JSON.stringify(body),
      };
    },
    other(method, path) {
      if (method === 'POST' && path.endsWith(':countTokens')) {
        return { status: 200, body: { totalTokens: 100 } };
      }
      return { status: 200, body: {} };
    },
    async send(res, turn, reply, signal, chunkDelayMs) {
      let text = reply.text ?? '';
      if (turn.json && reply.toolCalls.length === 0) {
        text = JSON.stringify(turn.schema ? valueFromSchema(turn.schema) : {});
      }
      const usage = {
        promptTokenCount: 100,
        candidatesTokenCount: Math.ceil(text.length / 4) + 10,
        totalTokenCount: 110 + Math.ceil(text.length / 4),
      };
      const calls: Part[] = reply.toolCalls.map((c) => ({
        functionCall: { name: c.name, args: c.args },
      }));
      const candidate = (parts: Part[], finish?: string) => ({
        candidates: [{
          content: { role: 'model', parts },
          index: 0,
          ...(finish ? { finishReason: finish } : {}),
        }],
        usageMetadata: usage,
        modelVersion: turn.model,
      });
      if (!turn.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(candidate([...(text ? [{ text }] : []), ...calls], 'STOP')));
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      const event = async (data: unknown, wait: number) => {
        if (signal.aborted) return;
        res.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
        await sleepUnless(wait, signal);
      };
      const textPieces = text === '' ? [] : pieces(text, reply.pieceChars ?? 24);
      for (const [i, p] of textPieces.entries()) {
        const lastEvent = i === textPieces.length - 1 && calls.length === 0;
        await event(
          candidate([{ text: p }], lastEvent ? 'STOP' : undefined),
          reply.chunkDelayMs ?? chunkDelayMs,
        );
      }
      if (calls.length > 0) await event(candidate(calls, 'STOP'), chunkDelayMs);
      if (textPieces.length === 0 && calls.length === 0) {
        await event(candidate([{ text: '' }], 'STOP'), 0);
      }
      res.end();
    },
  });
}
