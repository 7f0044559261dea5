/**
 * Manifest sources: the bundled set, user files (with clear errors for a missing file, a
 * directory, bytes that are not UTF-8, a broken manifest) and manifestFor.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManifestError } from '../src/detect/errors.ts';
import { bundledManifestTexts } from '../src/runtime/bundled-manifests.ts';
import {
  isBundled,
  loadBundledManifests,
  loadManifestFile,
  manifestFor,
} from '../src/runtime/manifest-sources.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentwatch-manifests-'));
const GOOD =
  `schema = 1\nid = "mine"\nname = "Mine"\nversion = "3"\nprocess = ["mine"]\n[[rules]]\nstate = "blocked"\nany = ['Allow\\?']\n`;

function errorOf(fn: () => unknown): ManifestError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ManifestError) return e;
    throw e;
  }
  throw new Error('expected a ManifestError');
}

test('bundledManifestTexts reads the resources folder by file name', () => {
  const texts = bundledManifestTexts();
  assert.ok(texts['claude.toml'].includes('id = "claude"'));
  assert.is(Object.keys(texts).length, 5);
});

test('loadBundledManifests: keyed by id, sources name the resource', () => {
  const all = loadBundledManifests();
  assert.is(all.get('gemini')?.source, 'resources/agent-detection/gemini.toml');
  assert.ok(isBundled(all.get('gemini')!));
});

test('loadManifestFile parses a user file, its source is the path', () => {
  const path = join(dir, 'mine.toml');
  writeFileSync(path, '\uFEFF' + GOOD);
  const m = loadManifestFile(path);
  assert.is(m.id, 'mine');
  assert.is(m.source, path);
  assert.not.ok(isBundled(m));
});

test('loadManifestFile: missing file, directory, not UTF-8, broken manifest', () => {
  const missing = errorOf(() => loadManifestFile(join(dir, 'nope.toml')));
  assert.is(missing.message, `${join(dir, 'nope.toml')}: cannot read: no such file`);
  assert.match(
    errorOf(() => loadManifestFile(dir)).message,
    /: is a directory, not a file/,
  );
  const latin1 = join(dir, 'latin1.toml');
  writeFileSync(
    latin1,
    Buffer.concat([
      Buffer.from('schema = 1\nname = "caf'),
      Buffer.from([0xe9]),
      Buffer.from('"\n'),
    ]),
  );
  const bad = errorOf(() => loadManifestFile(latin1));
  assert.is(bad.message, `${latin1}:2: not UTF-8 text (invalid byte 0xe9 at offset 22)`);
  const broken = join(dir, 'broken.toml');
  writeFileSync(broken, GOOD.replace("any = ['Allow\\?']", "any = ['Allow(']"));
  assert.is(
    errorOf(() => loadManifestFile(broken)).message,
    `${broken}:8: rules[0].any[0]: invalid regex 'Allow(': missing closing )`,
  );
});

test('manifestFor: by id, by process name, null for an unknown agent', () => {
  assert.is(manifestFor('claude')?.id, 'claude');
  assert.is(manifestFor('claude.exe')?.id, 'claude');
  assert.is(manifestFor('Codex')?.id, 'codex');
  assert.is(manifestFor('bash'), null);
  assert.is(manifestFor('gemini'), manifestFor('gemini'), 'parsed once');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
