/**
 * A scripted ACP agent for tests, built on @agentclientprotocol/sdk's agent side and spoken to
 * over its stdio (run it as `node --import tsx test/support/acp-agent.ts`). What a prompt turn
 * does depends on the prompt's text:
 * - `permission`: asks to run `ls -la` (execute; options allow_once, allow_always,
 *   reject_once); allowed -> the tool call completes, end_turn; rejected -> it fails,
 *   end_turn; cancelled -> stopReason cancelled;
 * - `two`: asks two permissions at once (execute `echo one`, edit with a diff of
 *   /tmp/acp-two.txt) and ends once both are answered;
 * - `die`: asks a permission and exits with code 3 before any answer;
 * - `garbage`: writes a line that is not JSON on stdout, then answers normally;
 * - `stop REASON`: streams a thought, a plan and a line, then ends with that stopReason;
 * - `wait`: works until the client sends session/cancel (stopReason cancelled);
 * - anything else: says "echo: TEXT", end_turn.
 * Every request and outcome is appended as a JSON line to $ACP_AGENT_LOG when set.
 */
import { appendFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import {
  agent,
  type AgentContext,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type StopReason,
} from '@agentclientprotocol/sdk';

const logFile = process.env.ACP_AGENT_LOG;
function log(entry: Record<string, unknown>): void {
  if (logFile) appendFileSync(logFile, JSON.stringify({ at: Date.now(), ...entry }) + '\n');
}

/** Cancellation per session: resolved when session/cancel comes. */
const cancels = new Map<string, () => void>();

function say(client: AgentContext, sessionId: string, text: string): Promise<void> {
  return client.notify('session/update', {
    sessionId,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
  });
}

const OPTIONS: RequestPermissionRequest['options'] = [
  { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

async function ask(
  client: AgentContext,
  sessionId: string,
  toolCallId: string,
  title: string,
  extra: Partial<RequestPermissionRequest['toolCall']>,
): Promise<string> {
  await client.notify('session/update', {
    sessionId,
    update: {
      sessionUpdate: 'tool_call',
      toolCallId,
      title,
      kind: extra.kind ?? 'execute',
      status: 'pending',
    },
  });
  const r = await client.request('session/request_permission', {
    sessionId,
    toolCall: { toolCallId, title, ...extra },
    options: OPTIONS,
  });
  const outcome = r.outcome.outcome === 'selected' ? r.outcome.optionId : 'cancelled';
  log({ event: 'outcome', toolCallId, outcome });
  const ok = outcome === 'allow' || outcome === 'always';
  await client.notify('session/update', {
    sessionId,
    update: { sessionUpdate: 'tool_call_update', toolCallId, status: ok ? 'completed' : 'failed' },
  });
  return outcome;
}

const app = agent({ name: 'scripted-acp-agent' })
  .onRequest('initialize', (ctx) => {
    log({ event: 'initialize', clientCapabilities: ctx.params.clientCapabilities ?? null });
    return { protocolVersion: PROTOCOL_VERSION, agentCapabilities: {}, authMethods: [] };
  })
  .onRequest('session/new', () => ({ sessionId: `s-${process.pid}` }))
  .onNotification('session/cancel', (ctx) => {
    log({ event: 'cancel' });
    cancels.get(ctx.params.sessionId)?.();
  })
  .onRequest('session/prompt', async (ctx) => {
    const { sessionId } = ctx.params;
    const first = ctx.params.prompt[0];
    const text = first && first.type === 'text' ? first.text.trim() : '';
    log({ event: 'prompt', text });
    let cancelled = false;
    const cancelledNow = new Promise<void>((resolve) => {
      cancels.set(sessionId, () => {
        cancelled = true;
        resolve();
      });
    });
    const end = (stopReason: StopReason) => ({ stopReason: cancelled ? 'cancelled' : stopReason });
    const c = ctx.client;
    if (text === 'permission') {
      const outcome = await ask(c, sessionId, 'call-1', 'Run ls -la', {
        kind: 'execute',
        rawInput: { command: 'ls -la' },
      });
      if (outcome === 'cancelled') return { stopReason: 'cancelled' as StopReason };
      await say(c, sessionId, outcome === 'reject' ? 'not run\n' : 'ran ls -la\n');
      return end('end_turn');
    }
    if (text === 'two') {
      const outcomes = await Promise.all([
        ask(c, sessionId, 'call-a', 'Run echo one', {
          kind: 'execute',
          rawInput: { command: 'echo one' },
        }),
        ask(c, sessionId, 'call-b', 'Edit /tmp/acp-two.txt', {
          kind: 'edit',
          content: [{ type: 'diff', path: '/tmp/acp-two.txt', oldText: 'a', newText: 'b' }],
        }),
      ]);
      await say(c, sessionId, `outcomes: ${outcomes.join(', ')}\n`);
      return end('end_turn');
    }
    if (text === 'die') {
      void c.request('session/request_permission', {
        sessionId,
        toolCall: { toolCallId: 'call-die', title: 'Run rm -rf build', kind: 'execute' },
        options: OPTIONS,
      }).catch(() => {});
      setTimeout(() => process.exit(3), 200);
      await cancelledNow;
      return end('cancelled');
    }
    if (text === 'garbage') {
      process.stdout.write('this is not JSON {\n');
      await say(c, sessionId, 'still here\n');
      return end('end_turn');
    }
    const stop = /^stop (\w+)$/.exec(text);
    if (stop) {
      await c.notify('session/update', {
        sessionId,
        update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } },
      });
      await c.notify('session/update', {
        sessionId,
        update: {
          sessionUpdate: 'plan',
          entries: [{ content: 'say it', priority: 'high', status: 'completed' }],
        },
      });
      await say(c, sessionId, `stopping with ${stop[1]}\x1b[2J\x07\n`);
      return { stopReason: stop[1] as StopReason };
    }
    if (text === 'wait') {
      await cancelledNow;
      return end('cancelled');
    }
    await say(c, sessionId, `echo: ${text}\n`);
    return end('end_turn');
  });

// Only when run as a program: uvu imports every file under test/, this one too.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  app.connect(
    ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    ),
  ).closed.then(() => process.exit(0));
}
