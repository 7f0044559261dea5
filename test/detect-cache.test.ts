/**
 * The caches that make evaluation cost what changed never give a stale answer: the row text
 * the VT core keeps per grid row (rebuilt only for rows whose cells changed), the OSC copy a
 * snapshot shares, and the {@link Evaluator}'s per-rule results (re-tested only when their
 * region text changed). Each is compared with an uncached reference after every chunk of
 * random streams and of the real agents' recordings, split at random points, with resizes
 * and manifest changes in between.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import { Evaluator } from '../src/detect/evaluator.ts';
import { hasBit, lineFactsOf } from '../src/detect/line-facts.ts';
import type { Manifest } from '../src/detect/manifest.ts';
import { testPattern } from '../src/detect/patterns.ts';
import { RegionTexts } from '../src/detect/regions.ts';
import type { Region } from '../src/detect/types.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { prng } from '../src/sim/rng.ts';
import { randomStream } from './support/random-stream.ts';

type Op = { write: Uint8Array } | { resize: [number, number] };

/** A fresh terminal given `ops` and read once: nothing cached before the read. */
function reference(rows: number, cols: number, ops: readonly Op[]): Terminal {
  const t = new Terminal(rows, cols);
  for (const op of ops) {
    if ('write' in op) t.write(op.write);
    else t.resize(op.resize[0], op.resize[1]);
  }
  return t;
}

/** Cuts `data` into 1-9 pieces at random points. */
function split(rnd: () => number, data: Uint8Array): Uint8Array[] {
  const cuts = new Set<number>();
  const n = Math.floor(rnd() * 9);
  for (let i = 0; i < n; i++) cuts.add(Math.floor(rnd() * data.length));
  const at = [0, ...[...cuts].sort((a, b) => a - b), data.length];
  const out: Uint8Array[] = [];
  for (let i = 1; i < at.length; i++) {
    if (at[i] > at[i - 1]) out.push(data.subarray(at[i - 1], at[i]));
  }
  return out;
}

test('row text and OSC read after every chunk equal a fresh read of the same stream', () => {
  const rnd = prng(14);
  const sizes: [number, number][] = [[6, 20], [5, 12], [8, 33], [3, 2]];
  for (let n = 0; n < 600; n++) {
    const [rows, cols] = sizes[n % sizes.length];
    const t = new Terminal(rows, cols);
    const ops: Op[] = [];
    for (let piece = 0; piece < 4; piece++) {
      for (const chunk of split(rnd, randomStream(rnd, 5 + Math.floor(rnd() * 25)))) {
        const copy = chunk.slice();
        t.write(copy);
        ops.push({ write: copy });
        if (rnd() < 0.5) {
          const got = t.snapshot();
          const want = reference(rows, cols, ops).snapshot();
          assert.equal(got.rows, want.rows, `stream ${n}: rows after ${ops.length} ops`);
          assert.equal(got.wrapped, want.wrapped, `stream ${n}: wrap flags`);
          assert.equal([...got.osc], [...want.osc], `stream ${n}: OSC payloads`);
          assert.is(got.title, want.title);
        }
      }
      if (rnd() < 0.3) {
        const size: [number, number] = [2 + Math.floor(rnd() * 8), 2 + Math.floor(rnd() * 30)];
        t.resize(...size);
        ops.push({ resize: size });
        assert.equal(t.snapshot().rows, reference(rows, cols, ops).snapshot().rows);
      }
    }
  }
});

const manifests = loadBundledManifests();
const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** Every recorded session's PTY reads, with the manifest of its agent. */
function recordings(): { name: string; manifest: Manifest; chunks: Uint8Array[] }[] {
  const agentOf: Record<string, string> = {
    'claude-code': 'claude',
    codex: 'codex',
    'gemini-cli': 'gemini',
    'qwen-code': 'qwen',
    opencode: 'opencode',
  };
  const out = [];
  for (const [folder, id] of Object.entries(agentOf)) {
    const dir = join(FIXTURES, folder, 'recordings');
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.bytes.jsonl')).sort()) {
      const chunks = readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).map((l) =>
        new Uint8Array(Buffer.from(JSON.parse(l).b64, 'base64'))
      );
      out.push({ name: `${folder}/${f}`, manifest: manifests.get(id)!, chunks });
    }
  }
  return out;
}

test('the Evaluator gives what evaluate gives after every read of every recorded session', () => {
  let blocked = 0;
  let compared = 0;
  for (const { name, manifest, chunks } of recordings()) {
    const t = new Terminal(32, 120);
    const cached = new Evaluator();
    chunks.forEach((chunk, i) => {
      t.write(chunk);
      const snap = t.snapshot();
      const want = evaluate(snap, manifest);
      assert.equal(cached.evaluate(snap, manifest), want, `${name}: read ${i}`);
      if (want.state === 'blocked') blocked++;
      compared++;
    });
    assert.ok(cached.stats.skipped > 0, `${name}: some rule results were reused`);
  }
  assert.ok(blocked > 50, `the recordings show prompts (${blocked} blocked reads)`);
  assert.ok(compared > 1000);
});

test('the Evaluator stays right across manifest changes, resizes and random noise', () => {
  const rnd = prng(1414);
  const all = [...manifests.values()];
  const sessions = recordings();
  for (let n = 0; n < 40; n++) {
    const { chunks } = sessions[n % sessions.length];
    const t = new Terminal(32, 120);
    const cached = new Evaluator();
    let manifest = all[n % all.length];
    for (let i = 0; i < chunks.length; i++) {
      const r = rnd();
      if (r < 0.02) manifest = all[Math.floor(rnd() * all.length)];
      else if (r < 0.03) t.resize(20 + Math.floor(rnd() * 20), 60 + Math.floor(rnd() * 80));
      else if (r < 0.08) t.write(randomStream(rnd, 3));
      t.write(chunks[i]);
      if (rnd() < 0.5) continue; // several reads between two evaluations, as the sweep does
      const snap = t.snapshot();
      assert.equal(
        cached.evaluate(snap, manifest),
        evaluate(snap, manifest),
        `round ${n} read ${i}`,
      );
    }
  }
});

test('a region is the lines it spans, and its lines’ bits are the line-local patterns’ answers', () => {
  const regions: Region[] = [
    ...new Map(
      [...manifests.values()].flatMap((m) =>
        [...m.rules.map((r) => r.region), ...(m.activity ? [m.activity.region] : [])].map((
          r,
        ) => [JSON.stringify(r), r])
      ),
    ).values(),
    { kind: 'bottom', lines: 1 },
    { kind: 'bottom', lines: 100 },
  ];
  const seen = new Set<string>();
  let checked = 0;
  for (const { name, manifest, chunks } of recordings()) {
    const facts = lineFactsOf(manifest);
    const t = new Terminal(32, 120);
    chunks.forEach((chunk, i) => {
      t.write(chunk);
      const snap = t.snapshot();
      for (const widest of [0, 24]) {
        const texts = new RegionTexts(snap, widest);
        for (const region of regions) {
          const text = texts.text(region);
          const lines = texts.linesOf(region);
          assert.is(lines.join('\n'), text, `${name} read ${i}: ${JSON.stringify(region)}`);
          const span = texts.span(region);
          if (span) {
            const spanned = texts.lines().slice(span.from, span.to).filter((l) =>
              !span.skipBlank || l.length > 0
            );
            assert.equal(spanned.length ? spanned : [''], [...lines], `${name} read ${i}: span`);
          }
          if (seen.has(`${manifest.id} ${text}`)) continue;
          seen.add(`${manifest.id} ${text}`);
          const bits = new Array<number>(facts.words).fill(0);
          facts.maskInto(lines, bits, 0);
          for (const p of facts.patterns) {
            assert.is(hasBit(bits, facts.bitOf(p)), testPattern(p, text), `${name}: ${p.source}`);
            checked++;
          }
        }
      }
    });
  }
  assert.ok(checked > 10_000, `${checked} answers compared`);
});

test('a spinner frame tests one new line: the other lines keep their bits', () => {
  const claude = { ...manifests.get('claude')! }; // a manifest object of its own: fresh facts
  const facts = lineFactsOf(claude);
  const t = new Terminal(32, 120);
  const cached = new Evaluator();
  const enc = (s: string) => new TextEncoder().encode(s);
  t.write(enc('\x1b[?1049h● Working on it.\r\n\r\n'));
  t.write(enc(`\x1b[28;1H✻ Churning… (0s · esc to interrupt)\r\n${'─'.repeat(60)}\r\n❯\r\n`));
  t.write(enc(`${'─'.repeat(60)}\r\n  ⏸ manual mode on · esc to interrupt`));
  assert.is(cached.evaluate(t.snapshot(), claude).state, 'working');
  const before = facts.size;
  const glyphs = ['✢', '✳', '✶', '✽', '·'];
  for (let k = 0; k < glyphs.length; k++) {
    t.write(enc(`\x1b[28;1H\x1b[2K${glyphs[k]} Churning… (${k + 1}s · esc to interrupt)`));
    const e = cached.evaluate(t.snapshot(), claude);
    assert.is(e.state, 'working');
    assert.is(e.activity, 'Churning…');
    assert.equal(e, evaluate(t.snapshot(), claude));
  }
  assert.is(facts.size - before, glyphs.length, 'one new line per frame');
});

test("an OSC rule's evaluation carries what the screen's rules read beneath it, and only that one", () => {
  const claude = manifests.get('claude')!;
  const t = new Terminal(32, 120);
  const cached = new Evaluator();
  const enc = (s: string) => new TextEncoder().encode(s);
  const bar = '─'.repeat(60);
  // Claude Code 2.1.332's idle screen (mode footer) while OSC 7501 still says working
  t.write(enc(`\x1b[?1049h● Done.\x1b[28;1H${bar}\r\n❯\r\n${bar}\r\n  ⏸ manual mode on`));
  t.write(enc('\x1b]7501;state=working:app=claude-code\x07'));
  const steps: Array<[string, string | null]> = [
    ['', 'idle'],
    // the next turn: the working footer, the in-band state unchanged
    ['\x1b[31;1H\x1b[2K  ⏸ manual mode on · esc to interrupt', 'working'],
    // no screen rule matches beneath (the footer erased)
    ['\x1b[31;1H\x1b[2K', null],
  ];
  for (const [bytes, beneath] of steps) {
    t.write(enc(bytes));
    const e = cached.evaluate(t.snapshot(), claude);
    assert.is(e.region, 'osc 7501');
    assert.is(e.state, 'working');
    assert.is(e.screenState, beneath, JSON.stringify(bytes));
    assert.equal(e, evaluate(t.snapshot(), claude));
  }
  // a screen rule decides: no screenState
  t.write(enc('\x1b]7501;\x07\x1b[31;1H  ⏸ manual mode on · esc to interrupt'));
  const plain = cached.evaluate(t.snapshot(), claude);
  assert.is(plain.region, 'below_last_rule');
  assert.ok(!('screenState' in plain));
  assert.equal(plain, evaluate(t.snapshot(), claude));
});

test('the Evaluator stays right when lines change a few at a time: rules, blanks, wraps, OSC', () => {
  // Screens made of the examples' lines (dialogs, footers, rules, input boxes) and blanks,
  // changed one to three lines at a time as agents redraw (a spinner frame, a dialog drawn
  // over the box, a rule moved, a soft wrap), read by one Evaluator and compared with a fresh
  // evaluation: every line's bits, blankness and being a rule must be followed.
  const rnd = prng(2024);
  const all = [...manifests.values()];
  const pool = [
    '',
    '',
    '─'.repeat(60),
    `  ╭${'─'.repeat(20)}╮`,
    '✻ Churning… (3s · esc to interrupt)',
    '✢ Churning… (4s · esc to interrupt)',
    ...new Set(all.flatMap((m) => m.examples.flatMap((e) => e.screen.split('\n')))),
  ];
  const pick = () => pool[Math.floor(rnd() * pool.length)];
  const payloads = ['', 'state=blocked', 'state=working', 'state=idle', 'state=done'];
  let compared = 0;
  for (let n = 0; n < 60; n++) {
    const manifest = all[n % all.length];
    const cached = new Evaluator();
    let rows = Array.from({ length: 6 + Math.floor(rnd() * 20) }, pick);
    let wrapped = rows.map(() => rnd() < 0.05);
    let title = '';
    const osc = new Map<number, string>();
    for (let step = 0; step < 150; step++) {
      const r = rnd();
      if (r < 0.03) {
        const size = 3 + Math.floor(rnd() * 25);
        rows = Array.from({ length: size }, (_, i) => rows[i] ?? pick());
        wrapped = rows.map((_, i) => wrapped[i] ?? false);
      } else if (r < 0.08) {
        osc.set(7501, payloads[Math.floor(rnd() * payloads.length)]);
      } else if (r < 0.1) {
        title = pick();
      } else if (r < 0.13) {
        rows = [...rows.slice(1), pick()]; // a scroll
        wrapped = [...wrapped.slice(1), false];
      } else {
        rows = [...rows];
        wrapped = [...wrapped];
        for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) {
          const y = Math.floor(rnd() * rows.length);
          rows[y] = pick();
          if (rnd() < 0.1) wrapped[y] = !wrapped[y];
        }
      }
      const screen = { rows, wrapped, title, osc: new Map(osc) };
      assert.equal(
        cached.evaluate(screen, manifest),
        evaluate(screen, manifest),
        `${manifest.id} round ${n} step ${step}`,
      );
      compared++;
    }
  }
  assert.ok(compared >= 9000);
});

test('one manifest object edited into another: a new object is a new cache key', () => {
  const claude = manifests.get('claude')!;
  const t = new Terminal(32, 120);
  const screen = '\x1b]7501;state=blocked\x07';
  t.write(new TextEncoder().encode(screen));
  const cached = new Evaluator();
  assert.is(cached.evaluate(t.snapshot(), claude).state, 'blocked');
  const noOsc: Manifest = { ...claude, rules: claude.rules.filter((r) => r.region.kind !== 'osc') };
  assert.equal(cached.evaluate(t.snapshot(), noOsc), evaluate(t.snapshot(), noOsc));
  assert.is.not(cached.evaluate(t.snapshot(), noOsc).state, 'blocked');
});

test.run();
