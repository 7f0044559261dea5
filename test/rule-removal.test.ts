/**
 * Rules that survive a restyle, proved on the real captures: for every bundled manifest, each
 * of its blocked rules is removed in turn, and the test counts how many of that agent's
 * blocked fixtures (fixtures/<agent>/labels.json, rendered with their title and OSC signals)
 * the remaining rules still read as blocked. It prints, per manifest, that table and, per
 * blocked fixture, how many blocked rules catch it on their own (a fixture caught by two or
 * more survives the loss of any one rule).
 *
 * Each count is given twice: on the screen alone (title and OSC dropped: what a terminal that
 * does not answer Claude Code's OSC 7501 probe, or an agent that sets no title, leaves to the
 * screen rules) and with the agent's in-band signals.
 *
 * Asserted for Claude Code (claude.toml), on the screen alone: every blocked fixture is caught
 * by at least two blocked rules, so no single removal loses one; every screen rule rests on two or more pieces
 * of structure (patterns in `all`, one of `any`, the `none` vetoes); and removing any blocked
 * rule never turns a non-blocked fixture blocked. The other manifests' tables are printed, not
 * asserted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, matchRule } from '../src/detect/evaluate.ts';
import type { Manifest, Rule } from '../src/detect/manifest.ts';
import { RegionTexts } from '../src/detect/regions.ts';
import type { RuleState, ScreenInput } from '../src/detect/types.ts';
import { agentFromFileName } from '../src/cli/capture-manifest.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { Terminal } from '../src/vt/terminal.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
/** The manifest whose table is asserted. */
const ASSERTED = 'claude';
/** Each blocked fixture of {@link ASSERTED} must be caught by at least this many blocked rules. */
const MIN_RULES_PER_FIXTURE = 2;

const manifests = loadBundledManifests();

interface Fixture {
  file: string;
  truth: RuleState;
  /** The screen with its title and OSC payloads. */
  signals: ScreenInput;
  /** The same screen without them. */
  screen: ScreenInput;
}

/** Every labelled fixture of every fixtures/ folder, rendered, grouped by manifest id. */
function fixturesByAgent(): Map<string, Fixture[]> {
  const out = new Map<string, Fixture[]>();
  for (const folder of readdirSync(FIXTURES, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    let labels: Record<string, string | { state: string; size?: string }>;
    try {
      labels = JSON.parse(readFileSync(new URL(`${folder.name}/labels.json`, FIXTURES), 'utf8'));
    } catch {
      continue;
    }
    for (const [file, entry] of Object.entries(labels)) {
      const id = agentFromFileName(file, manifests.keys());
      if (!id) continue;
      const truth = (typeof entry === 'string' ? entry : entry.state) as RuleState;
      const size = typeof entry === 'string' ? undefined : entry.size;
      const [rows, cols] = size ? size.split('x').map(Number) : [32, 120];
      const t = new Terminal(rows, cols);
      t.write(readFileSync(new URL(`${folder.name}/${file}`, FIXTURES)));
      const list = out.get(id) ?? [];
      const signals = t.snapshot();
      list.push({ file, truth, signals, screen: { ...signals, title: '', osc: new Map() } });
      out.set(id, list);
    }
  }
  return out;
}

const byAgent = fixturesByAgent();

/** The manifest without `rule` (the others keep their order). */
function without(m: Manifest, rule: Rule): Manifest {
  return { ...m, rules: m.rules.filter((r) => r !== rule) };
}

/** The blocked rules that catch `screen` on their own. */
function catchers(m: Manifest, screen: ScreenInput): Rule[] {
  const texts = new RegionTexts(screen);
  return m.rules.filter((r) => r.state === 'blocked' && matchRule(r, texts.text(r.region)));
}

const label = (r: Rule) => `${r.index} ${r.name ?? '(unnamed)'}`;

/** Prints and returns one manifest's table. */
function table(m: Manifest) {
  const fixtures = byAgent.get(m.id) ?? [];
  const blocked = fixtures.filter((f) => f.truth === 'blocked');
  const others = fixtures.filter((f) => f.truth !== 'blocked');
  const rules = m.rules.filter((r) => r.state === 'blocked');
  const isBlocked = (s: ScreenInput, mm: Manifest) => evaluate(s, mm).state === 'blocked';
  const removal = rules.map((rule) => {
    const reduced = without(m, rule);
    return {
      rule,
      lost: blocked.filter((f) => !isBlocked(f.screen, reduced)),
      lostWithSignals: blocked.filter((f) => !isBlocked(f.signals, reduced)),
      falseBlocked: others.filter((f) =>
        isBlocked(f.screen, reduced) || isBlocked(f.signals, reduced)
      ),
    };
  });
  const perFixture = blocked.map((f) => ({
    f,
    by: catchers(m, f.screen),
    bySignals: catchers(m, f.signals),
  }));
  const n = blocked.length;
  const w = Math.max(
    24,
    ...rules.map((r) => label(r).length),
    ...blocked.map((f) => f.file.length),
  );
  const lines = [
    `${m.id}: ${n} blocked fixtures, ${rules.length} blocked rules`,
    `  ${'rule removed'.padEnd(w)}  screen alone  with signals  lost (screen alone)`,
    ...removal.map((r) =>
      `  ${label(r.rule).padEnd(w)}  ${`${n - r.lost.length}/${n}`.padEnd(12)}  ${
        `${n - r.lostWithSignals.length}/${n}`.padEnd(12)
      }  ${r.lost.map((f) => f.file).join(', ')}`.trimEnd()
    ),
    `  ${'fixture'.padEnd(w)}  caught by (screen alone | with signals: rule numbers)`,
    ...perFixture.map(({ f, by, bySignals }) =>
      `  ${f.file.padEnd(w)}  ${by.length} | ${bySignals.length}: ${
        bySignals.map((r) => r.index).join(', ')
      }`
    ),
  ];
  console.log(lines.join('\n') + '\n');
  return { blocked, removal, perFixture };
}

test('rule removal: the table for every manifest (printed)', () => {
  for (const m of manifests.values()) table(m);
});

test(`rule removal: every ${ASSERTED} blocked fixture survives the loss of any one blocked rule`, () => {
  const m = manifests.get(ASSERTED)!;
  const { blocked, removal, perFixture } = table(m);
  assert.ok(blocked.length >= 10, `only ${blocked.length} blocked fixtures`);
  for (const { f, by } of perFixture) {
    assert.ok(
      by.length >= MIN_RULES_PER_FIXTURE,
      `${f.file} is caught by ${by.length} blocked rule(s): ${by.map(label).join(', ')}`,
    );
  }
  for (const r of removal) {
    assert.equal(r.lost.map((f) => f.file), [], `without rule ${label(r.rule)}`);
    assert.equal(r.falseBlocked.map((f) => f.file), [], `without rule ${label(r.rule)}`);
  }
});

test(`rule structure: each ${ASSERTED} screen rule for blocked rests on two or more pieces`, () => {
  const m = manifests.get(ASSERTED)!;
  for (const r of m.rules.filter((x) => x.state === 'blocked' && x.region.kind !== 'osc')) {
    const pieces = r.all.length + (r.any.length ? 1 : 0) + (r.none.length ? 1 : 0);
    assert.ok(pieces >= 2, `rule ${label(r)} rests on ${pieces} piece(s)`);
  }
});

/** Restyles a dialog might get in a new release, each applied alone to a screen's rows. */
const RESTYLES: Record<string, (rows: readonly string[]) => string[]> = {
  'footer gone': (rows) => {
    let last = rows.length - 1;
    while (last >= 0 && rows[last].trim() === '') last--;
    return rows.map((r, i) => (i === last ? '' : r));
  },
  'box and rules gone': (rows) => rows.map((r) => (/^[\s─━╌▔│╭╮╰╯]*$/.test(r) ? '' : r)),
  'reworded': (rows) =>
    rows.map((r) =>
      r.replace(/Do you want to/g, 'Shall Claude').replace(/Esc to cancel/g, 'Esc cancels')
        .replace(/Enter to (select|confirm)/g, 'Return: $1').replace(/\?/g, ' ?')
    ),
};

test(`restyles: every ${ASSERTED} blocked fixture stays blocked, no other turns blocked`, () => {
  const m = manifests.get(ASSERTED)!;
  const fixtures = byAgent.get(ASSERTED) ?? [];
  const lost: string[] = [];
  const falseBlocked: string[] = [];
  for (const [name, restyle] of Object.entries(RESTYLES)) {
    for (const f of fixtures) {
      const s = { ...f.screen, rows: restyle(f.screen.rows) };
      const state = evaluate(s, m).state;
      if (f.truth === 'blocked' && state !== 'blocked') lost.push(`${name}: ${f.file}`);
      if (f.truth !== 'blocked' && state === 'blocked') falseBlocked.push(`${name}: ${f.file}`);
    }
  }
  console.log(
    `${ASSERTED} restyles (${
      Object.keys(RESTYLES).join(', ')
    }) over ${fixtures.length} fixtures: ` +
      `${lost.length} blocked lost, ${falseBlocked.length} false blocked`,
  );
  assert.equal(lost, []);
  assert.equal(falseBlocked, []);
});

test.run();
