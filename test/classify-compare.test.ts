/**
 * The seed's table on our fixtures, through the real CLI process: every fixture gets its label
 * on the emulated screen, and the same rules on the last 8 KB with escapes stripped miss what
 * the seed said they miss: every blocked and every working screen of Claude Code (5/11: only
 * the idle ones, because idle is the fallback).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentwatchArgv } from './support/cli.ts';

const ROOT = join(import.meta.dirname, '..');
const AGENTS = [
  'claude-code',
  'claude-code-80',
  'claude-code-160',
  'codex',
  'gemini-cli',
  'qwen-code',
  'qwen-code-narrow',
  'opencode',
  'opencode-90',
  'opencode-60',
];
/** The seed's 11 Claude Code fixtures (the later captures are judged with the rest). */
const SEED_FIXTURES = new Set(
  [
    'blocked.edit',
    'blocked.plan',
    'blocked.question',
    'blocked',
    'idle.after',
    'idle.auto',
    'idle.edit',
    'idle.question',
    'idle',
    'working.auto',
    'working',
  ].map((n) => `claude.${n}.raw`),
);

interface Row {
  file: string;
  agent: string;
  truth: string;
  tail: string;
  screen: string;
}

function compare(labels: string[]): { rows: Row[]; code: number | null } {
  const args = labels.flatMap((l) => ['--compare', l]);
  const r = spawnSync(process.execPath, [
    ...agentwatchArgv([]),
    'classify',
    '--json',
    ...args,
  ], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  assert.is(r.stderr, '');
  return { rows: JSON.parse(r.stdout), code: r.status };
}

test('every fixture of the five agents gets its label on the emulated screen', () => {
  const labels = AGENTS.map((a) => join('fixtures', a, 'labels.json'));
  const { rows, code } = compare(labels);
  const expected = labels.reduce(
    (n, l) => n + Object.keys(JSON.parse(readFileSync(join(ROOT, l), 'utf8'))).length,
    0,
  );
  assert.is(rows.length, expected);
  assert.ok(expected >= 103, `${expected} fixtures`);
  const wrong = rows.filter((r) => r.screen !== r.truth);
  assert.equal(wrong, [], 'screen misclassifications');
  assert.is(code, 0);
});

test('Claude Code: the stripped tail misses every blocked and working screen (seed: tail 5/11, screen 11/11)', () => {
  const { rows: all } = compare([join('fixtures', 'claude-code', 'labels.json')]);
  const rows = all.filter((r) => SEED_FIXTURES.has(r.file.split('/').pop()!));
  assert.is(rows.length, 11);
  for (const r of rows) {
    if (r.truth === 'idle') assert.is(r.tail, 'idle', r.file);
    else assert.is.not(r.tail, r.truth, `${r.file}: the tail should miss it`);
  }
  assert.is(rows.filter((r) => r.tail === r.truth).length, 5);
  assert.is(rows.filter((r) => r.screen === r.truth).length, 11);
});

test("the text table prints the seed's totals", () => {
  const r = spawnSync(process.execPath, [
    ...agentwatchArgv([]),
    'classify',
    '--compare',
    'fixtures/claude-code/labels.json',
  ], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.is(r.status, 0);
  assert.match(r.stdout, /^claude\.blocked\.raw\s+blocked\s+idle\s+✗\s+blocked\s*$/m);
  const [, , n, m] = /correct: tail (\d+)\/(\d+), screen (\d+)\/(\d+)/.exec(r.stdout) ?? [];
  assert.is(n, m, 'every Claude Code fixture right on the screen');
});

test("the table names the screen size used: the labels' own, each row's when they differ", () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-compare-'));
  const fixture = (n: string) => join(ROOT, 'fixtures', 'claude-code', n);
  const table = (labels: Record<string, unknown>) => {
    const file = join(dir, 'labels.json');
    writeFileSync(file, JSON.stringify(labels));
    const r = spawnSync(process.execPath, [
      ...agentwatchArgv([]),
      'classify',
      '--compare',
      file,
    ], { cwd: ROOT, encoding: 'utf8' });
    assert.is(r.stderr, '');
    return r.stdout.split('\n');
  };
  try {
    const tall = table({ [fixture('claude.blocked.raw')]: { state: 'blocked', size: '40x120' } });
    assert.match(tall[1], /emulated 40x120 screen$/);
    const mixed = table({
      [fixture('claude.blocked.raw')]: { state: 'blocked', size: '40x120' },
      [fixture('claude.idle.raw')]: 'idle',
    });
    assert.match(mixed[1], /emulated screen \(size\)$/);
    assert.match(mixed[2], /^claude\.blocked\.raw .* \(40x120\)$/);
    assert.match(mixed[3], /^claude\.idle\.raw .* \(32x120\)$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
