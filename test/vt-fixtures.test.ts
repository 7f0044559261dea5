/**
 * The VT core on real captures of real agents (fixtures/*): every `.raw` must render like
 * @xterm/headless 6.0.0 with Unicode 11 widths (rows, wrap flags, cursor, title) and like its
 * `.screen.txt`; every Claude Code capture must give the same screen in 1-byte chunks and when
 * split into two chunks at every byte offset whose neighbourhood ({@link NEIGHBOURHOOD} bytes
 * each side) no split before had, and at seeded random ones; the other agents' captures at a
 * few hundred random offsets and in 1-byte chunks; the recorded sessions replayed chunk by
 * chunk must end like xterm.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { prng } from '../src/sim/rng.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { makeXterm, xtermRender } from './support/xterm-oracle.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const AGENTS = ['claude-code', 'codex', 'gemini-cli', 'opencode', 'qwen-code'];

function captures(agent: string): string[] {
  return readdirSync(join(FIXTURES, agent)).filter((f) => f.endsWith('.raw')).sort()
    .map((f) => join(FIXTURES, agent, f));
}

function bytes(path: string): Uint8Array {
  return new Uint8Array(readFileSync(path));
}

function render(data: Uint8Array, chunks?: number[]): Terminal {
  const t = new Terminal(32, 120);
  if (!chunks) {
    t.write(data);
    return t;
  }
  let at = 0;
  for (const end of [...chunks, data.length]) {
    t.write(data.subarray(at, end));
    at = end;
  }
  return t;
}

/** xterm's rendering of each capture, computed once (xterm is the slow part). */
const reference = new Map<string, ReturnType<typeof xtermRender>>();
function xtermOf(path: string) {
  let r = reference.get(path);
  if (!r) reference.set(path, r = xtermRender(bytes(path)));
  return r;
}

test('every agent folder has captures', () => {
  for (const agent of AGENTS) assert.ok(captures(agent).length >= 10, agent);
});

for (const agent of AGENTS) {
  test(`${agent}: every capture renders like xterm and like its .screen.txt`, () => {
    for (const path of captures(agent)) {
      const data = bytes(path);
      const t = render(data);
      const ref = xtermOf(path);
      const snap = t.snapshot();
      assert.equal(snap.rows, ref.rows, `${path}: rows`);
      assert.equal(snap.wrapped, ref.wrapped, `${path}: wrap flags`);
      assert.equal(t.cursor, { row: ref.cursor.row, col: Math.min(ref.cursor.col, 119) }, path);
      assert.is(t.title, ref.title, `${path}: title`);
      assert.is(t.altScreen, ref.altScreen, `${path}: alternate screen`);
      const txt = readFileSync(path.replace(/\.raw$/, '.screen.txt'), 'utf8').split('\n')
        .map((l) => l.replace(/ +$/, ''));
      while (txt.length > 32 && txt[txt.length - 1] === '') txt.pop();
      assert.is(t.screenText(), txt.join('\n'), `${path}: .screen.txt`);
    }
  });
}

test('screen text of a capture: exact rows of a Claude Code prompt', () => {
  const t = render(bytes(join(FIXTURES, 'claude-code', 'claude.blocked.raw')));
  const rows = t.snapshot().rows;
  assert.ok(rows.some((r) => /Do you want to proceed\?/.test(r)), rows.join('\n'));
  assert.ok(rows.some((r) => /❯ 1\. Yes/.test(r)));
  assert.not.ok(t.screenText().includes('esc to interrupt'));
  assert.is(t.screenText().split('\n').length, 32);
  // The cut starts at a resize redraw, after the session entered the alternate screen.
  assert.not.ok(t.altScreen);
});

test('state metadata of captures: Codex OSC 7501 and Gemini CLI title', () => {
  const codex = render(bytes(join(FIXTURES, 'codex', 'codex.blocked.raw')));
  assert.match(codex.oscPayload(7501) ?? '', /^state=blocked/);
  const gemini = render(bytes(join(FIXTURES, 'gemini-cli', 'gemini-cli.blocked.raw')));
  assert.match(gemini.title, /Action Required/);
  const qwen = render(bytes(join(FIXTURES, 'qwen-code', 'qwen-code.idle.raw')));
  assert.is(qwen.title, 'Qwen - proj');
});

/** Offsets 1..len-1 chosen by the seeded PRNG (reproducible). */
function offsets(len: number, count: number, seed: number): number[] {
  const rnd = prng(seed);
  return Array.from({ length: count }, () => 1 + Math.floor(rnd() * (len - 1)));
}

/**
 * Bytes on each side of a split that make its neighbourhood: what the parser holds at the
 * split (a partial escape sequence, OSC string or UTF-8 character) and what completes it.
 * A split whose neighbourhood an earlier split had (the same SGR between the same bytes, a
 * hundred times a capture) tests nothing new for the parser; each is still a chunk boundary
 * in the 1-byte run. Every offset takes 2.7 GB of rendering; the new neighbourhoods about a
 * tenth of it.
 */
const NEIGHBOURHOOD = 8;

test('claude-code: every capture in 1-byte chunks, and split in two at every new neighbourhood and at seeded offsets', () => {
  const seen = new Set<string>();
  for (const [k, path] of captures('claude-code').entries()) {
    const data = bytes(path);
    const expected = render(data).screenText();
    const t = new Terminal(32, 120);
    for (let i = 0; i < data.length; i++) t.write(data.subarray(i, i + 1));
    assert.is(t.screenText(), expected, `${path} in 1-byte chunks`);
    const at = new Set(offsets(data.length, 50, 100 + k));
    for (let i = 1; i < data.length; i++) {
      const around = Buffer.from(
        data.subarray(Math.max(0, i - NEIGHBOURHOOD), i + NEIGHBOURHOOD),
      ).toString('latin1');
      const key = `${Math.min(i, NEIGHBOURHOOD)}:${around}`;
      if (!seen.has(key)) {
        seen.add(key);
        at.add(i);
      }
    }
    for (const i of at) {
      const screen = render(data, [i]).screenText();
      if (screen !== expected) assert.fixture(screen, expected, `${path} split at byte ${i}`);
    }
  }
});

for (const agent of ['codex', 'gemini-cli', 'opencode', 'qwen-code']) {
  test(`${agent}: captures split at random offsets and in 1-byte chunks`, () => {
    const paths = captures(agent);
    for (const [k, path] of paths.entries()) {
      const data = bytes(path);
      const expected = render(data).screenText();
      // The largest captures (1.4 MB) get fewer splits to keep the run short.
      const count = data.length > 500_000 ? 8 : data.length > 100_000 ? 40 : 200;
      for (const at of offsets(data.length, count, k + 1)) {
        assert.is(render(data, [at]).screenText(), expected, `${path} split at byte ${at}`);
      }
      if (k % 4 === 0 && data.length < 300_000) {
        const t = new Terminal(32, 120);
        for (let i = 0; i < data.length; i++) t.write(data.subarray(i, i + 1));
        assert.is(t.screenText(), expected, `${path} in 1-byte chunks`);
      }
    }
  });
}

test('recorded sessions replayed chunk by chunk end like xterm', () => {
  for (const agent of AGENTS) {
    const dir = join(FIXTURES, agent, 'recordings');
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.bytes.jsonl'))) {
      const chunks = readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean)
        .map((l) => new Uint8Array(Buffer.from(JSON.parse(l).b64, 'base64')));
      if (chunks.reduce((n, c) => n + c.length, 0) > 400_000) continue; // gemini: 1.4 MB
      const t = new Terminal(32, 120);
      const x = makeXterm(32, 120);
      for (const c of chunks) {
        t.write(c);
        x.writeSync(c);
      }
      const ref = x.screen();
      x.dispose();
      assert.equal(t.snapshot().rows, ref.rows, `${agent}/${f}`);
      assert.is(t.title, ref.title, `${agent}/${f}: title`);
    }
  }
});

test.run();
