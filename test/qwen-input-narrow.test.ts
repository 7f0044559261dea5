/**
 * Qwen Code 0.24.4 in a narrow pane: its empty composer's placeholder wraps (`>   Type your
 * message or` / `@path/to/file` at 30 columns), and that is an empty input box, not a draft
 * someone typed: `send` types into it (it was refused at every narrow width: the tester's
 * finding). The real capture fixtures/qwen-code-narrow/qwen-code.idle.v24-narrow.raw through the
 * bundled manifest, then real Qwen Code at 8x30 under a SessionHost, its fake model server on
 * 127.0.0.1 (skipped, with a printed reason, when node_modules/.bin/qwen is missing).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inputBox } from '../src/detect/evaluate.ts';
import { createHost } from '../src/runtime/default-host.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { makeQwenHome, QWEN_BIN } from './support/agent-homes.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import { until } from './support/until.ts';

const qwen = loadBundledManifests().get('qwen')!;

test('the wrapped placeholder of the captured 8x30 composer is an empty input box', () => {
  const t = new Terminal(8, 30);
  t.write(
    readFileSync(
      new URL('../fixtures/qwen-code-narrow/qwen-code.idle.v24-narrow.raw', import.meta.url),
    ),
  );
  assert.match(t.screenText(), />\s{3}Type your message or\n\s{2}@path\/to\/file/);
  assert.is(inputBox(t.snapshot(), qwen), 'empty');
});

test('real Qwen Code at 8x30: send types into its empty composer', async () => {
  if (!existsSync(QWEN_BIN)) {
    console.log(`  skipped: ${QWEN_BIN} is missing (npm ci installs Qwen Code)`);
    return;
  }
  const server = await startFakeOpenAI();
  const home = makeQwenHome({ baseUrl: server.url });
  const dir = mkdtempSync(join(tmpdir(), 'aw-qwen-narrow-'));
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  try {
    const session = await host.start({
      command: QWEN_BIN,
      args: [],
      name: 'tiny',
      cwd: home.project,
      env: home.env,
      fullEnv: true,
      headless: true,
      rows: 8,
      cols: 30,
    });
    const w = host.ptyPane(session.id)!;
    await until('its composer, idle', () => {
      w.classifyNow();
      return w.record.state === 'idle' && /@path\/to\/file/.test(session.terminal.screenText());
    }, 90_000).catch((e) => {
      throw new Error(`${e.message}: ${w.record.reason}\n${session.terminal.screenText()}`);
    });
    const written = await w.send('hi', { enter: false, append: false });
    assert.is(written, 2);
    await until('the text in its composer', () => />\s+hi/.test(session.terminal.screenText()));
    // and now it holds a draft: a second send without --append is refused
    assert.is(inputBox(session.terminal.snapshot(), qwen), 'text');
  } finally {
    await host.close();
    await home.cleanup();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
