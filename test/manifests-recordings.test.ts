/**
 * The bundled manifests over whole recorded sessions of the real agents (fixtures/{@link
 * RECORDINGS}): the bytes replayed through the real emulator chunk by chunk (Claude Code's
 * 120->119->120 resize bounces included), evaluated after every chunk, and compared with the
 * truth timeline. Every prompt must be caught, and no blocked episode may fall outside a
 * prompt; this is the "0 missed, 0 false alarms" bar of DESIGN.md section 1 on real sessions.
 *
 * Truth for Codex, Gemini, Qwen and opencode marks `blocked` only after the pane settled (2 s
 * quiet), so detection may start up to {@link SETTLE_LEAD_S} before it; Claude Code's truth
 * is the moment the wording was painted. Blocked time outside the truth intervals (widened by
 * that lead and by {@link ANSWER_LAG_S} after the answer) is a false alarm.
 */
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../src/detect/evaluate.ts';
import type { Manifest } from '../src/detect/manifest.ts';
import type { RuleState } from '../src/detect/types.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { Terminal } from '../src/vt/terminal.ts';

/** [fixture folder, recording name, manifest id]. */
const RECORDINGS: Array<[string, string, string]> = [
  ['claude-code', 'bash', 'claude'],
  ['claude-code', 'edit', 'claude'],
  ['claude-code', 'ask', 'claude'],
  ['claude-code', 'hooks', 'claude'],
  ['codex', 'codex', 'codex'],
  ['gemini-cli', 'gemini-cli', 'gemini'],
  ['gemini-cli', 'gemini-cli.auth', 'gemini'],
  ['gemini-cli', 'gemini-cli.trust-level', 'gemini'],
  ['qwen-code', 'qwen-code', 'qwen'],
  ['qwen-code', 'qwen-code-0.24.4', 'qwen'],
  ['qwen-code', 'qwen-code-0.24.4.scrollbar', 'qwen'],
  ['opencode', 'opencode', 'opencode'],
];
/** The capture driver's resize bounce: 1 column narrower, back after this many seconds. */
const BOUNCE_S = 0.4;
/** A blocked flicker shorter than this (one redraw) is below what a 700 ms sweep can see. */
const FLICKER_S = 0.05;
/** How much earlier than truth a prompt may be caught: the driver waited 2 s of quiet (not Claude). */
const SETTLE_LEAD_S = 3.5;
/** How long a prompt may stay blocked after the answering key (the redraw takes a moment). */
const ANSWER_LAG_S = 0.5;

const manifests = loadBundledManifests();

interface Interval {
  from: number;
  to: number;
}

function jsonl<T>(path: URL): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);
}

/** Replays one recording; returns the predicted and the true blocked intervals. */
function replay(folder: string, name: string, manifest: Manifest, withSignals: boolean) {
  const dir = new URL(`../fixtures/${folder}/recordings/`, import.meta.url);
  const chunks = jsonl<{ t: number; b64: string }>(new URL(`${name}.bytes.jsonl`, dir));
  const truth = jsonl<{ t: number; state: RuleState }>(new URL(`${name}.truth.jsonl`, dir));
  const inputs = jsonl<{ t: number; resize?: string }>(new URL(`${name}.input.jsonl`, dir));
  const resizes = inputs.filter((i) => i.resize).flatMap((
    i,
  ) => [[i.t, 119], [i.t + BOUNCE_S, 120]]);
  const end = Math.max(chunks[chunks.length - 1].t, truth[truth.length - 1].t) + 1;
  const term = new Terminal(32, 120);
  const predicted: Interval[] = [];
  let since: number | null = null;
  for (let i = 0; i < chunks.length; i++) {
    const { t, b64 } = chunks[i];
    while (resizes.length && resizes[0][0] <= t) term.resize(32, resizes.shift()![1]);
    term.write(Buffer.from(b64, 'base64'));
    const snap = term.snapshot();
    const blocked =
      evaluate(withSignals ? snap : { ...snap, title: '', osc: new Map() }, manifest).state ===
        'blocked';
    if (blocked && since === null) since = t;
    if (!blocked && since !== null) {
      predicted.push({ from: since, to: t });
      since = null;
    }
  }
  if (since !== null) predicted.push({ from: since, to: end });
  const actual: Interval[] = [];
  truth.forEach((x, i) => {
    if (x.state === 'blocked') actual.push({ from: x.t, to: truth[i + 1]?.t ?? end });
  });
  return { predicted: predicted.filter((p) => p.to - p.from >= FLICKER_S), actual };
}

const overlaps = (a: Interval, b: Interval) => a.from < b.to && b.from < a.to;

/** The parts of `p` not covered by any of `cover` (sorted by start, possibly overlapping). */
function uncovered(p: Interval, cover: Interval[]): Interval[] {
  const out: Interval[] = [];
  let at = p.from;
  for (const c of [...cover].sort((x, y) => x.from - y.from)) {
    if (c.to <= at || c.from >= p.to) continue;
    if (c.from > at) out.push({ from: at, to: c.from });
    at = Math.max(at, c.to);
  }
  if (at < p.to) out.push({ from: at, to: p.to });
  return out;
}

for (const [folder, name, id] of RECORDINGS) {
  for (const withSignals of [true, false]) {
    const how = withSignals ? 'all signals' : 'screen only';
    test(`${folder}/${name} (${how}): every prompt caught, no false blocked`, () => {
      const { predicted, actual } = replay(folder, name, manifests.get(id)!, withSignals);
      assert.ok(actual.length >= 1, 'the recording has prompts');
      const missed = actual.filter((a) => !predicted.some((p) => overlaps(a, p)));
      const lead = folder === 'claude-code' ? ANSWER_LAG_S : SETTLE_LEAD_S;
      const allowed = actual.map((a) => ({ from: a.from - lead, to: a.to + ANSWER_LAG_S }));
      const falseAlarms = predicted.flatMap((p) => uncovered(p, allowed)).filter((u) =>
        u.to - u.from >= FLICKER_S
      );
      assert.equal(missed, [], 'missed prompts');
      assert.equal(falseAlarms, [], 'blocked outside any prompt');
      // Caught as soon as painted: never more than 0.5 s after the truth says it showed.
      for (const a of actual) {
        const first = predicted.find((p) => overlaps(a, p))!;
        assert.ok(
          first.from - a.from < 0.5,
          `${name}: caught ${(first.from - a.from).toFixed(2)} s late`,
        );
      }
    });
  }
}

test.run();
