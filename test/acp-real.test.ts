/**
 * End to end with real agents that speak ACP natively, offline: `agentwatch acp qwen` (Qwen
 * Code 0.24.4 `--acp`, against test/support/fake-openai.ts) and `agentwatch acp gemini`
 * (Gemini CLI 0.61 `--acp`, against test/support/fake-gemini.ts), both on 127.0.0.1. The
 * model asks for the shell command `touch hello.txt`; the agent asks permission over ACP: the
 * session is blocked with the command; `agentwatch answer` (a separate process, as the person)
 * allows it once; the tool runs (the file exists) and the turn ends idle with end_turn. A
 * second round is rejected: no file, idle. Prints the blocked latency: permission request
 * received (the session's clock) -> blocked state received by a subscriber -> notice sent.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import { startFakeOpenAI } from './support/fake-openai.ts';
import { startFakeGemini } from './support/fake-gemini.ts';
import { report, tworounds, workspace } from './support/acp-rounds.ts';

test('Qwen Code 0.24.4 --acp: shell tool call blocked with the command, answered, runs, idle', async () => {
  const model = await startFakeOpenAI();
  const ws = workspace();
  try {
    const l = await tworounds(
      'qwen-acp',
      ['qwen', '--', '--approval-mode', 'default'],
      {
        HOME: ws.home,
        TMPDIR: ws.tmp,
        OPENAI_API_KEY: 'sk-fake',
        OPENAI_BASE_URL: `${model.url}/v1`,
        OPENAI_MODEL: 'fake-model',
        QWEN_CODE_NO_RELAUNCH: 'true',
      },
      ws.proj,
      model,
    );
    report('qwen', l);
  } finally {
    await model.close();
    ws.cleanup();
  }
});

test('Gemini CLI 0.61 --acp: shell tool call blocked with the command, answered, runs, idle', async () => {
  const model = await startFakeGemini();
  const ws = workspace();
  mkdirSync(join(ws.home, '.gemini'));
  writeFileSync(
    join(ws.home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { disableAutoUpdate: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    }),
  );
  try {
    const l = await tworounds(
      'gemini-acp',
      ['gemini'],
      {
        HOME: ws.home,
        TMPDIR: ws.tmp,
        GEMINI_API_KEY: 'fake',
        GOOGLE_GEMINI_BASE_URL: model.url,
        GEMINI_CLI_NO_RELAUNCH: 'true',
        GEMINI_TELEMETRY_ENABLED: 'false',
      },
      ws.proj,
      model,
    );
    report('gemini', l);
  } finally {
    await model.close();
    ws.cleanup();
  }
});

test.run();
