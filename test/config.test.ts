/**
 * The config file (src/runtime/config.ts): defaults, every key, where each value came from,
 * unknown keys and bad values as errors naming the line, the environment override, `[notify]`
 * passed through; a broken file stops `run` with its error; and `[agents.ID] args` go before
 * the person's arguments.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, parseConfig, parseDuration } from '../src/runtime/config.ts';
import { UserError } from '../src/errors.ts';
import { runCli } from './support/agentwatch-e2e.ts';
import { until } from './support/until.ts';
import { parseManifest } from '../src/detect/manifest.ts';
import { SessionHost } from '../src/runtime/host.ts';

const dir = mkdtempSync(join(tmpdir(), 'aw-config-'));

function errorOf(text: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    parseConfig(text, 'config.toml', env);
  } catch (e) {
    if (e instanceof UserError) return e.message;
    throw e;
  }
  throw new Error('expected an error');
}

test('defaults: no catalog, updates on, 30 min, no keys set', () => {
  const { config, origins } = parseConfig('', 'config.toml');
  assert.is(config.catalogUrl, null);
  assert.is(config.catalogKeys, null);
  assert.is(config.update, true);
  assert.is(config.updateIntervalMs, 30 * 60_000);
  assert.equal(config.sweep, {});
  assert.is(origins.get('update'), 'default');
});

test('every key, with the line it came from; [notify] passed through', () => {
  const { config, origins } = parseConfig(
    [
      'catalog_url = "https://example.org/i.toml"',
      'catalog_keys = []',
      'update = false',
      'update_interval = "2h"',
      '[sweep]',
      'interval = 300',
      'adaptive = false',
      '[agents.claude]',
      'args = ["--permission-mode", "manual"]',
      '[notify]',
      'anything = { goes = "here" }',
    ].join('\n'),
    'config.toml',
  );
  assert.is(config.catalogUrl, 'https://example.org/i.toml');
  assert.equal(config.catalogKeys, []);
  assert.is(config.update, false);
  assert.is(config.updateIntervalMs, 2 * 3_600_000);
  assert.equal(config.sweep, { intervalMs: 300, adaptive: false });
  assert.equal(config.agents, { claude: { args: ['--permission-mode', 'manual'] } });
  assert.equal(JSON.parse(JSON.stringify(config.notify)), { anything: { goes: 'here' } });
  assert.is(origins.get('update_interval'), 'config.toml:4');
  assert.is(origins.get('sweep.adaptive'), 'config.toml:7');
  assert.is(origins.get('agents.claude.args'), 'config.toml:9');
});

test('unknown keys and bad values name the line', () => {
  assert.is(
    errorOf('update = true\ncatalog_ur = "x"\n'),
    "config.toml:2: catalog_ur: unknown key 'catalog_ur' (expected one of catalog_url, catalog_keys, update, update_interval, sweep, agents, notify)",
  );
  assert.match(
    errorOf('[sweep]\nintervall = 5\n'),
    /^config\.toml:2: sweep\.intervall: unknown key/,
  );
  assert.match(
    errorOf('\n[sweep]\ninterval = 5\n'),
    /^config\.toml:3: sweep\.interval: expected whole ms from 50 to 10000, got 5/,
  );
  assert.match(
    errorOf('catalog_url = "ftp://x"\n'),
    /^config\.toml:1: catalog_url: expected an http/,
  );
  assert.match(
    errorOf('update_interval = "soon"\n'),
    /^config\.toml:1: update_interval: expected a duration/,
  );
  assert.match(
    errorOf('[agents.codex]\nargs = [1]\n'),
    /^config\.toml:2: agents\.codex\.args: expected an array of strings/,
  );
  assert.match(errorOf('update = \n'), /^config\.toml:1: TOML syntax error/);
});

test('AGENTWATCH_MANIFEST_URL overrides catalog_url; empty turns the catalog off', () => {
  const text = 'catalog_url = "https://example.org/i.toml"\n';
  const over = parseConfig(text, 'c', { AGENTWATCH_MANIFEST_URL: 'file:///srv/i.toml' });
  assert.is(over.config.catalogUrl, 'file:///srv/i.toml');
  assert.is(over.origins.get('catalog_url'), 'AGENTWATCH_MANIFEST_URL');
  assert.is(parseConfig(text, 'c', { AGENTWATCH_MANIFEST_URL: '' }).config.catalogUrl, null);
});

test('durations', () => {
  assert.is(parseDuration('30m'), 1_800_000);
  assert.is(parseDuration('90s'), 90_000);
  assert.is(parseDuration(45), 45_000);
  assert.ok(Number.isNaN(parseDuration('3 days')));
});

test('loadConfig: a missing file is the defaults; run stops on a broken file', async () => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'cfg'),
    AGENTWATCH_DIR: join(dir, 's'),
  };
  delete env.AGENTWATCH_MANIFEST_URL;
  assert.is(loadConfig(env).config.catalogUrl, null);
  mkdirSync(join(dir, 'cfg', 'agentwatch'), { recursive: true });
  writeFileSync(join(dir, 'cfg', 'agentwatch', 'config.toml'), '[sweep]\nadaptiv = true\n');
  const r = await runCli(['run', '--', 'true'], env);
  assert.is(r.code, 1);
  assert.match(r.stderr, /config\.toml:2: sweep\.adaptiv: unknown key 'adaptiv'/);
});

test("[agents.ID] args go before the person's when the command is that agent", async () => {
  const agent = join(dir, 'toyagent');
  writeFileSync(agent, '#!/bin/sh\necho "ARGS: $*"\nexec sleep 30\n', { mode: 0o755 });
  const toy = parseManifest(
    'schema = 1\nid = "toyagent"\nname = "T"\nversion = "1"\nprocess = ["toyagent"]\n[[rules]]\nstate = "idle"\nany = [\'x\']\n',
    'toy.toml',
  );
  const host = new SessionHost({
    manifests: () => new Map([['toyagent', toy]]),
    foreground: () => null,
    agentArgs: (id) => (id === 'toyagent' ? ['--from-config'] : []),
    env: { AGENTWATCH_DIR: join(dir, 'sock') },
  });
  try {
    const s = await host.start({ command: agent, args: ['--mine'], headless: true });
    await until('the agent printed its args', () => /ARGS: .*/.exec(s.terminal.screenText())?.[0]);
    assert.match(s.terminal.screenText(), /ARGS: --from-config --mine/);
  } finally {
    await host.close();
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
