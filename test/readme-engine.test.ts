/**
 * The README's rule engine number is ENGINE_VERSION, and its catalog index example asks for no
 * newer engine than this one and than the bundled manifest it names (a fresh user read "(1)"
 * while the bundled manifests needed 2).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ENGINE_VERSION } from '../src/detect/schema.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

test('the README names the rule engine of this agentwatch', () => {
  const stated = [...README.matchAll(/rule engine \((\d+)/g)].map((m) => Number(m[1]));
  assert.ok(stated.length > 0, 'the README states no rule engine number');
  for (const n of stated) assert.is(n, ENGINE_VERSION);
});

test("the README's catalog index example matches the bundled manifest it names", () => {
  const block = /```toml\n(schema = 1\n\[\[manifests\]\][\s\S]*?)```/.exec(README);
  assert.ok(block, 'no catalog index example in the README');
  const index = parse(block![1]) as { manifests: { id: string; min_engine?: number }[] };
  const bundled = loadBundledManifests();
  for (const entry of index.manifests) {
    const m = bundled.get(entry.id);
    assert.ok(m, `the example names '${entry.id}', which is not bundled`);
    assert.ok((entry.min_engine ?? 1) <= ENGINE_VERSION);
    assert.is(entry.min_engine ?? 1, m!.minEngine, `min_engine of '${entry.id}'`);
  }
});

test.run();
