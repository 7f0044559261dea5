/**
 * `agentwatch acp`'s line mode in a terminal echoes what the person types, and keeps the line
 * they sent in the scrollback above the reply (tester3 #9: with opencode and Qwen Code nothing
 * typed once the session was ready showed, and the prompt never appeared: readline took the
 * keys raw with no output to echo them to). The scripted ACP agent (test/support/acp-agent.ts)
 * in a real PTY.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import { agentwatchCommand } from './support/cli.ts';
import { SCRIPTED_AGENT } from './support/acp-run.ts';
import { startPty } from './support/pty-driver.ts';

test('typed text shows as it is typed, and stays above the reply once sent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-acp-echo-'));
  const self = agentwatchCommand();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  delete env.AGENTWATCH_SESSION;
  Object.assign(env, { AGENTWATCH_DIR: dir, ACP_AGENT_LOG: join(dir, 'agent.jsonl') });
  const pty = await startPty({
    command: self.command,
    args: [...self.args, 'acp', '--no-desktop', '--name', 'echo', '--', ...SCRIPTED_AGENT],
    cwd: process.cwd(),
    env,
  });
  try {
    await pty.waitForScreen(/Ctrl-C cancels a turn/, 30_000);
    await pty.type('echo check one');
    await pty.waitForScreen(/^echo check one$/m, 30_000);
    await pty.type('\r');
    await pty.waitForScreen(/^echo check one\n(?:.*\n)*.*echo: echo check one/m, 30_000);
    // the second line too
    await pty.type('and two\r');
    await pty.waitForScreen(/^and two\n(?:.*\n)*.*echo: and two/m, 30_000);
  } finally {
    await pty.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
