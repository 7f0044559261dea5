/**
 * `agentwatch eval --replay`: every recording in fixtures/ replayed on the virtual clock.
 * The screen-rule detectors must match the truth within the sweep's bounds (no prompt missed,
 * no false alarm, latency and persistence within one sweep interval); the CLI's output is
 * byte-for-byte the same across two runs; `--manifest` shows what a rule change costs. Also
 * the parts: the virtual clock, the analysis, the recording reader's errors.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, cliInProcess } from './support/cli.ts';
import { VirtualClock } from '../src/eval/clock.ts';
import { analyse } from '../src/eval/analysis.ts';
import { DETECTORS, PLAIN_SWEEP_MS, SAMPLE_MS } from '../src/eval/detectors.ts';
import { readRecording, readRecordings } from '../src/eval/recording.ts';
import { replayCommandResult } from '../src/cli/eval-replay.ts';
import { ADAPTIVE_MIN_MS } from '../src/runtime/sweep.ts';
import { IDLE_CONFIRM_MS } from '../src/runtime/signals.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const DIRS = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => join(FIXTURES, d.name, 'recordings'))
  .filter((d) => {
    try {
      return readdirSync(d).some((f) => f.endsWith('.bytes.jsonl'));
    } catch {
      return false;
    }
  });

test('VirtualClock: timers fire in time order at their due time; intervals repeat; cleared ones never', () => {
  const c = new VirtualClock(1000);
  const seen: string[] = [];
  c.setTimeout(() => seen.push(`b@${c.now()}`), 200);
  c.setTimeout(() => seen.push(`a@${c.now()}`), 100);
  const gone = c.setTimeout(() => seen.push('never'), 150);
  c.clearTimeout(gone);
  const every = c.setInterval(() => {
    seen.push(`i@${c.now()}`);
    if (c.now() >= 1300) c.clearInterval(every);
  }, 150);
  c.setTimeout(() => c.setTimeout(() => seen.push(`nested@${c.now()}`), 10), 120);
  c.advanceTo(2000);
  assert.equal(seen, ['a@1100', 'nested@1130', 'i@1150', 'b@1200', 'i@1300']);
  assert.is(c.now(), 2000);
  assert.is(c.pending, 0);
});

test('analyse: latency, persistence, false alarms by true state, and the truth slack', () => {
  const times = Array.from({ length: 40 }, (_, k) => k * 100); // 0..3900 ms
  const truth = [
    { t: 0, state: 'idle' },
    { t: 500, state: 'working' },
    { t: 1000, state: 'blocked' },
    { t: 2000, state: 'working' },
    { t: 3000, state: 'idle' },
  ];
  const on = (...spans: Array<[number, number]>) =>
    times.map((t) => spans.some(([a, b]) => t >= a && t < b));
  const log = {
    times,
    truth,
    end: 4000,
    says: [
      on([1000, 2000]), // exact
      on([1300, 2500]), // 300 ms late, 400 ms persistence (last sample 2400)
      on([600, 700], [3200, 3500]), // misses, one false alarm working, one idle
      on([800, 2000]), // starts 200 ms before the prompt: early
    ],
  };
  const [exact, late, noisy, early] = analyse(log);
  assert.equal(exact.latenciesMs, [0]);
  assert.equal(exact.persistenceMs, [0]);
  assert.equal(exact.falseAlarms, {
    working: { episodes: 0, ms: 0 },
    idle: { episodes: 0, ms: 0 },
  });
  assert.equal(late.latenciesMs, [300]);
  assert.equal(late.persistenceMs, [400]);
  assert.equal(
    late.falseAlarms.working,
    { episodes: 0, ms: 0 },
    'persistence is not a false alarm',
  );
  assert.is(noisy.missed, 1);
  assert.equal(noisy.missedAt, [1000]);
  assert.equal(noisy.falseAlarms, {
    working: { episodes: 1, ms: 100 },
    idle: { episodes: 1, ms: 300 },
  });
  assert.equal(noisy.falseAt, [{ t: 600, state: 'working' }, { t: 3200, state: 'idle' }]);
  assert.equal(early.latenciesMs, [0]);
  assert.equal(early.falseAlarms.working, { episodes: 1, ms: 200 }, 'no slack: a false alarm');
  const [, , , slack] = analyse(log, 500);
  assert.equal(slack.falseAlarms.working, { episodes: 0, ms: 0 }, 'within the slack: the prompt');
});

test('readRecording: a malformed line is named by file and line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-rec-'));
  try {
    writeFileSync(join(dir, 'x.bytes.jsonl'), '{"t": 0.1, "b64": "aGk="}\nnot json\n');
    writeFileSync(join(dir, 'x.truth.jsonl'), '{"t": 0, "state": "idle"}\n');
    assert.throws(() => readRecording(dir, 'x'), /x\.bytes\.jsonl:2: not a JSON line/);
    writeFileSync(join(dir, 'x.bytes.jsonl'), '{"t": -1, "b64": "aGk="}\n');
    assert.throws(() => readRecording(dir, 'x'), /x\.bytes\.jsonl:1: "t" must be/);
    assert.throws(() => readRecordings(join(dir, 'none')), /cannot list the folder/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the fixtures hold recordings of every agent, with the capture driver's resizes", () => {
  assert.ok(DIRS.length >= 5, DIRS.join());
  const bash = readRecording(join(FIXTURES, 'claude-code', 'recordings'), 'bash');
  assert.ok(bash.resizes.length >= 2);
  assert.equal(bash.resizes.slice(0, 2).map((r) => r.cols), [119, 120]);
});

test("replay of every fixture recording: the screen rules match the truth within the sweep's bounds", async () => {
  const { runs } = await replayCommandResult(DIRS, []);
  assert.ok(runs.length >= 8, `${runs.length} recordings`);
  const idx = (id: string) => DETECTORS.findIndex((d) => d.id === id);
  const bounds: Record<string, number> = {
    'screen-50ms': SAMPLE_MS,
    'sweep-adaptive': ADAPTIVE_MIN_MS + IDLE_CONFIRM_MS + SAMPLE_MS,
    'signals': ADAPTIVE_MIN_MS + IDLE_CONFIRM_MS + SAMPLE_MS,
    'sweep-700ms': PLAIN_SWEEP_MS + SAMPLE_MS,
  };
  // The truth marks an answer when the key was sent; the agent erases its dialog a moment
  // later (about 0.1 s for Claude Code 2.1.332 in these recordings): persistence may add that.
  const AGENT_REACTION_MS = 300;
  let prompts = 0;
  for (const run of runs) {
    const name = `${run.recording.dir}/${run.recording.name}`;
    for (const [id, bound] of Object.entries(bounds)) {
      const f = run.before.figures[idx(id)];
      assert.ok(f.prompts > 0, `${name}: no prompt in the truth`);
      assert.is(f.missed, 0, `${name}: ${id} missed ${f.missedAt}`);
      assert.equal(f.falseAt, [], `${name}: ${id} false alarms`);
      for (const l of f.latenciesMs) {
        assert.ok(l <= bound, `${name}: ${id} latency ${l} > ${bound}`);
      }
      for (const p of f.persistenceMs) {
        assert.ok(p <= bound + AGENT_REACTION_MS, `${name}: ${id} persistence ${p} > ${bound}`);
      }
    }
    prompts += run.before.figures[0].prompts;
  }
  assert.ok(prompts >= 20, `${prompts} prompts`);
  // The README's table of these figures names as many recordings and prompts (a recording
  // added without updating it left it stale: tester4).
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  assert.match(readme, `total over ${runs.length} recordings (`);
  assert.match(readme, new RegExp(`^screen rules, every 50 ms .* 0/${prompts} `, 'm'));
});

test('eval --replay --json is byte-for-byte the same on a second run; --csv has a row per detector', async () => {
  const env = { ...process.env };
  const a = await cli(['eval', '--replay', '--json', ...DIRS], env);
  const b = await cli(['eval', '--replay', '--json', ...DIRS], env);
  assert.is(a.code, 0, a.stderr);
  assert.ok(a.stdout.length > 1000);
  assert.is(a.stdout, b.stdout);
  const json = JSON.parse(a.stdout);
  // every recording of every folder (Qwen Code and Gemini CLI have more than one)
  assert.is(
    json.recordings.length,
    DIRS.reduce((n, d) => n + readdirSync(d).filter((f) => f.endsWith('.bytes.jsonl')).length, 0),
  );
  const csv = await cli(['eval', '--replay', '--csv', DIRS[0]], env);
  assert.is(csv.code, 0, csv.stderr);
  const lines = csv.stdout.trim().split('\n');
  assert.match(lines[0], /^recording,rules,id,label,prompts,missed,/);
  assert.is((lines.length - 1) % DETECTORS.length, 0);
});

test('eval --replay --manifest: a rule set without the dialog rule misses the prompts, and says where', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-eval-manifest-'));
  try {
    const claudeToml = readFileSync(
      new URL('../resources/agent-detection/claude.toml', import.meta.url),
      'utf8',
    );
    // Drop every blocked rule: the "after" rules can no longer see a dialog on the screen.
    const blocks = claudeToml.split(/\n(?=\[\[rules\]\])/);
    const kept = blocks.filter((b) => !/^\[\[rules\]\][\s\S]*?state = "blocked"/.test(b));
    assert.ok(kept.length < blocks.length);
    writeFileSync(join(dir, 'claude.toml'), kept.join('\n'));
    const env = { ...process.env };
    const r = await cli([
      'eval',
      '--replay',
      join(FIXTURES, 'claude-code', 'recordings'),
      '--manifest',
      join(dir, 'claude.toml'),
    ], env);
    assert.is(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /rules compared: bundled \(before\) vs .*claude\.toml \(after\) on 4 recordings/,
    );
    assert.match(r.stdout, /screen rules, every 50 ms\s+0\/7\s+7\/7/);
    assert.match(
      r.stdout,
      /bash:\n(?:.*\n)*?\s+screen rules, every 50 ms: now misses the prompt at 7\.47 s; now misses the prompt at 40\.08 s/,
    );
    // A folder of manifests works the same.
    const viaDir = await cli([
      'eval',
      '--replay',
      join(FIXTURES, 'claude-code', 'recordings'),
      '--manifest',
      dir,
    ], env);
    assert.is(viaDir.stdout, r.stdout.replace(join(dir, 'claude.toml'), dir));
    // A broken manifest is named.
    writeFileSync(
      join(dir, 'claude.toml'),
      'schema = 1\nid = "claude"\n[[rules]]\nstate = "nope"\n',
    );
    const bad = await cli([
      'eval',
      '--replay',
      join(FIXTURES, 'claude-code', 'recordings'),
      '--manifest',
      join(dir, 'claude.toml'),
    ], env);
    assert.is.not(bad.code, 0);
    assert.match(bad.stderr, /claude\.toml/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('eval: bad arguments are named', async () => {
  const env = { ...process.env };
  const both = await cliInProcess(['eval', '--json', '--csv'], env);
  assert.is(both.code, 2);
  assert.match(both.stderr, /--json or --csv/);
  const noDir = await cliInProcess(['eval', '--replay'], env);
  assert.is(noDir.code, 2);
  const seed = await cliInProcess(['eval', '--seed', 'x'], env);
  assert.is(seed.code, 2);
  assert.match(seed.stderr, /--seed must be a number/);
  const empty = mkdtempSync(join(tmpdir(), 'aw-eval-empty-'));
  try {
    const none = await cliInProcess(['eval', '--replay', empty], env);
    assert.is(none.code, 1);
    assert.match(none.stderr, /no recordings/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test.run();
