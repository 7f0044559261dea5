/**
 * Qwen Code's idle composer rule reads the idle screens of 0.24.4 as well as 0.15's: under the
 * composer's lower rule 0.24 draws two footer rows (`➜ proj · fake-model`, the mode), and the
 * rule's region of four rows missed the upper rule, so every 0.24 idle screen read idle only
 * because no rule matched (the tester's finding in `explain`). Every full-size Qwen idle
 * fixture (the real captures of fixtures/qwen-code) is now read by that rule.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { Terminal } from '../src/vt/terminal.ts';

const FIXTURES = new URL('../fixtures/qwen-code/', import.meta.url);

test('every 32x120 Qwen Code idle fixture is read by its idle composer rule', () => {
  const qwen = loadBundledManifests().get('qwen')!;
  const labels = JSON.parse(readFileSync(new URL('labels.json', FIXTURES), 'utf8')) as Record<
    string,
    unknown
  >;
  const idle = Object.entries(labels).filter(([, e]) => e === 'idle').map(([f]) => f);
  assert.ok(idle.filter((f) => f.includes('v24')).length >= 10, idle.join(' '));
  const wrong: string[] = [];
  for (const file of idle) {
    const t = new Terminal(32, 120);
    t.write(readFileSync(new URL(file, FIXTURES)));
    const ev = evaluate(t.snapshot(), qwen);
    if (ev.state !== 'idle' || !/idle composer/.test(ev.reason)) {
      wrong.push(`${file}: ${ev.reason}`);
    }
  }
  assert.equal(wrong, []);
});

test.run();
