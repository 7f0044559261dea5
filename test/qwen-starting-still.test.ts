/**
 * A starting agent (its manifest declares an input box, none is drawn yet, no rule matches)
 * reads working, but not for ever: a screen that stays still for STARTING_STILL_MS is no
 * start-up any more (a dialog no rule knows waits for the person) and reads idle, so that
 * `wait --until idle` returns and the board stops saying "starting". A screen that keeps
 * moving (a spinner) keeps reading working. On a virtual clock with the real sweep and the
 * real capture of Qwen Code 0.24.4's first-run provider dialog, read by the bundled Qwen
 * manifest without the rule that knows that dialog (as a newer Qwen's new dialog would be).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VirtualClock } from '../src/eval/clock.ts';
import type { Manifest } from '../src/detect/manifest.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { STARTING_STILL_MS } from '../src/runtime/signals.ts';
import { Sweep, type SweptSession } from '../src/runtime/sweep.ts';
import { Terminal } from '../src/vt/terminal.ts';

const ROOT = join(import.meta.dirname, '..');
const bundled = loadBundledManifests();
const qwen = bundled.get('qwen')!;
/** The Qwen manifest as if it did not know the provider dialog yet. */
const unknowing: Manifest = {
  ...qwen,
  rules: qwen.rules.filter((r) => !/provider dialog/.test(r.name ?? '')),
};
const provider = readFileSync(
  join(ROOT, 'fixtures', 'qwen-code', 'qwen-code.blocked.v24-provider.raw'),
);

class MemorySession implements SweptSession {
  readonly id = 'qw';
  readonly spec = { agent: 'qwen', command: 'qwen', args: [] as string[] };
  readonly terminal = new Terminal(32, 120);
  inputsVersion = 0;
  exit = null;
  report = null;
  readonly #listeners: ((d: Uint8Array) => void)[] = [];
  onOutput(l: (d: Uint8Array) => void) {
    this.#listeners.push(l);
    return () => {};
  }
  onExit() {
    return () => {};
  }
  output(data: Uint8Array | string): void {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    this.terminal.write(bytes);
    for (const l of this.#listeners) l(bytes);
  }
}

function setup(manifest: Manifest, start: number) {
  const clock = new VirtualClock(start);
  const manifests = new Map(bundled);
  manifests.set('qwen', manifest);
  const sweep = new Sweep<MemorySession>({
    manifests: () => manifests,
    foreground: () => ({ pgid: 1, name: 'qwen', argv: ['qwen'] }),
    onTransition: () => {},
    now: clock.now,
    timers: clock,
  });
  const s = new MemorySession();
  const pane = sweep.add(s);
  sweep.start();
  return { clock, sweep, s, pane };
}

test('a still screen no rule knows, before any input box: working, then idle after the bound', () => {
  assert.ok(!unknowing.rules.some((r) => /provider/.test(r.name ?? '')));
  const t0 = 1_000_000;
  const { clock, sweep, s, pane } = setup(unknowing, t0);
  s.output(new Uint8Array(provider));
  clock.advanceTo(t0 + 1_000);
  assert.is(pane.record.state, 'working', pane.record.reason);
  assert.match(pane.record.reason, /starting/);
  clock.advanceTo(t0 + STARTING_STILL_MS - 1_000);
  assert.is(pane.record.state, 'working', 'still starting before the bound');
  clock.advanceTo(t0 + STARTING_STILL_MS + 2_000);
  assert.is(pane.record.state, 'idle', pane.record.reason);
  assert.match(pane.record.reason, /no rule matched, no input box, the screen still for \d+ s/);
  // the person moves the selection: the screen changes, and it does not go back to starting
  s.output('\x1b[10;5H\x1b[1m›\x1b[0m');
  clock.advanceTo(t0 + STARTING_STILL_MS + 4_000);
  assert.is(pane.record.state, 'idle', pane.record.reason);
  sweep.stop();
});

test('a starting screen that keeps moving (a spinner no rule knows) keeps reading working', () => {
  const t0 = 2_000_000;
  const { clock, sweep, s, pane } = setup(unknowing, t0);
  s.output('\x1b[2J\x1b[H  ➜ proj · fake-model\r\n');
  for (let t = 0; t <= 2 * STARTING_STILL_MS; t += 500) {
    clock.advanceTo(t0 + t);
    s.output(`\x1b[2;1H\x1b[2K  ${'⠋⠙⠹⠸⠼⠴'[(t / 500) % 6]} Loading extensions...`);
  }
  clock.advanceTo(t0 + 2 * STARTING_STILL_MS + 1_000);
  assert.is(pane.record.state, 'working', pane.record.reason);
  sweep.stop();
});

test('the bundled Qwen manifest reads the provider dialog blocked at once', () => {
  const t0 = 3_000_000;
  const { clock, sweep, s, pane } = setup(qwen, t0);
  s.output(new Uint8Array(provider));
  clock.advanceTo(t0 + 1_000);
  assert.is(pane.record.state, 'blocked', pane.record.reason);
  sweep.stop();
});

test.run();
