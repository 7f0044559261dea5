/**
 * A tiny MCP server over stdio (newline-delimited JSON-RPC 2.0, protocol 2025-06-18) with one
 * tool, `lookup` ({term: string} -> a line of text), for capturing Claude Code's permission
 * dialog for an MCP tool (`--mcp-config`, tool name `mcp__tiny__lookup`). Answers `initialize`,
 * `tools/list`, `tools/call` and `ping`; ignores notifications; any other method gets
 * -32601.
 *
 * Run as `node --import tsx test/support/tiny-mcp-server.ts --tiny-mcp-server`; importing this
 * module (uvu loads every file under test/) runs nothing.
 */
import { createInterface } from 'node:readline';

/** The one tool, as `tools/list` describes it. */
export const LOOKUP_TOOL = {
  name: 'lookup',
  description: 'Looks a term up in the team glossary.',
  inputSchema: {
    type: 'object',
    properties: { term: { type: 'string', description: 'The term to look up' } },
    required: ['term'],
  },
};

/** The answer to one JSON-RPC request, or null for a notification. */
export function answer(msg: { id?: unknown; method?: string; params?: unknown }): unknown {
  if (msg.id === undefined || msg.id === null) return null;
  const ok = (result: unknown) => ({ jsonrpc: '2.0', id: msg.id, result });
  switch (msg.method) {
    case 'initialize':
      return ok({
        protocolVersion: (msg.params as { protocolVersion?: string })?.protocolVersion ??
          '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'tiny', version: '1.0.0' },
      });
    case 'tools/list':
      return ok({ tools: [LOOKUP_TOOL] });
    case 'tools/call': {
      const term = (msg.params as { arguments?: { term?: string } })?.arguments?.term ?? '';
      return ok({ content: [{ type: 'text', text: `${term}: a word in the glossary` }] });
    }
    case 'ping':
      return ok({});
    default:
      return {
        jsonrpc: '2.0',
        id: msg.id,
        error: { code: -32601, message: `no method ${msg.method}` },
      };
  }
}

function main(): void {
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    const out = answer(msg);
    if (out) process.stdout.write(JSON.stringify(out) + '\n');
  });
  rl.on('close', () => process.exit(0));
}

if (process.argv.includes('--tiny-mcp-server')) main();
