/**
 * `agentwatch manifests list` and `agentwatch manifests check FILE...`, with captured output.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Io, UsageError } from '../src/cli/command.ts';
import { manifestsCommand, runManifests } from '../src/cli/manifests.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentwatch-manifests-cli-'));

function capture(): Io & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
  };
  return io;
}

const MANIFEST = (examples: string) =>
  `schema = 1\nid = "mine"\nname = "Mine"\nversion = "3"\nprocess = ["mine"]\n` +
  `[[rules]]\nname = "dialog"\nstate = "blocked"\nregion = { bottom = 1 }\nany = ['^Allow\\?$']\n` +
  examples;

const EMPTY_HOME = {
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, 'cfg'),
  XDG_CACHE_HOME: join(dir, 'cache'),
  XDG_STATE_HOME: join(dir, 'state'),
};

test('list: every source with id, version, source, in force, last check, result, file', () => {
  const io = capture();
  assert.is(runManifests({}, ['list'], io, EMPTY_HOME), 0);
  const lines = io.out.trimEnd().split('\n');
  assert.match(lines[0], /^ID\s+VERSION\s+SOURCE\s+IN FORCE\s+CHECKED\s+RESULT\s+FILE$/);
  assert.is(lines.length, 7);
  assert.is(
    lines[6],
    'catalog: none (set catalog_url in the config file; agentwatch manifests where)',
  );
  const claude = lines.find((l) => l.startsWith('claude '))!;
  assert.match(
    claude,
    /^claude\s+\d{4}\.\d+\.\d+\s+bundled\s+yes\s+-\s+bundled\s+resources\/agent-detection\/claude\.toml$/,
  );
});

test('list --json: one object per source', () => {
  const io = capture();
  assert.is(runManifests({ json: true }, ['list'], io, EMPTY_HOME), 0);
  const records = io.out.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(records.map((r) => r.id), ['claude', 'codex', 'gemini', 'opencode', 'qwen']);
  assert.equal(records[1], {
    id: 'codex',
    name: 'Codex CLI',
    version: records[1].version,
    process: ['codex'],
    rules: records[1].rules,
    examples: records[1].examples,
    source: 'resources/agent-detection/codex.toml',
    bundled: true,
    from: 'bundled',
    inForce: true,
    lastCheck: null,
    lastResult: 'bundled',
    lastError: null,
  });
  assert.match(records[1].version, /^\d{4}\.\d{2}\.\d{2}$/);
  assert.ok(records[1].rules >= 6);
  assert.ok(records[1].examples >= 5);
});

test('check: all examples pass -> exit 0, per-example lines', () => {
  const path = join(dir, 'ok.toml');
  writeFileSync(
    path,
    MANIFEST(
      `[[examples]]\nname = "asks"\nstate = "blocked"\nscreen = "text\\nAllow?"\n[[examples]]\nstate = "idle"\nscreen = "Allow?\\nfooter"\n`,
    ),
  );
  const io = capture();
  assert.is(runManifests({}, ['check', path], io), 0);
  assert.is(
    io.out,
    `${path}: manifest 'mine' 3, 1 rule, 2 examples\n` +
      `  ok    examples[0] asks: blocked\n` +
      `  ok    examples[1]: idle\n` +
      `${path}: 2 passed, 0 failed\n`,
  );
  assert.is(io.err, '');
});

test('check: a failing example -> exit 1 with expected, got and reason', () => {
  const path = join(dir, 'fail.toml');
  writeFileSync(path, MANIFEST(`[[examples]]\nstate = "blocked"\nscreen = "Allow?\\nfooter"\n`));
  const io = capture();
  assert.is(runManifests({}, ['check', path], io), 1);
  assert.ok(
    io.out.includes('  FAIL  examples[0]: expected blocked, got idle (no rule matched)\n'),
    io.out,
  );
  assert.ok(io.out.endsWith(`${path}: 0 passed, 1 failed\n`));
});

test('check: a broken file prints the ManifestError and exits 1; other files are still checked', () => {
  const broken = join(dir, 'broken.toml');
  writeFileSync(broken, MANIFEST('').replace('any = [', 'al = ['));
  const io = capture();
  assert.is(runManifests({}, ['check', broken, 'resources/agent-detection/claude.toml'], io), 1);
  assert.is(
    io.err,
    `${broken}:10: rules[0].al: unknown key 'al' (expected one of state, name, region, any, all, none)\n`,
  );
  assert.match(io.out, /resources\/agent-detection\/claude\.toml: \d+ passed, 0 failed\n$/);
});

test('check: every bundled manifest passes', () => {
  const io = capture();
  const files = ['claude', 'codex', 'gemini', 'qwen', 'opencode'].map((id) =>
    `resources/agent-detection/${id}.toml`
  );
  assert.is(runManifests({}, ['check', ...files], io), 0);
  assert.not.match(io.out, /FAIL/);
});

test('usage errors: no subcommand, unknown subcommand, check without files', () => {
  assert.throws(() => runManifests({}, [], capture()), (e: unknown) => e instanceof UsageError);
  assert.throws(() => runManifests({}, ['pull'], capture()), /unknown subcommand 'pull'/);
  assert.throws(() => runManifests({}, ['check'], capture()), /at least one FILE/);
  assert.is(manifestsCommand.name, 'manifests');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
