/**
 * The shortcuts of testPattern and findMatch (src/detect/patterns.ts) never change an answer:
 * the required-literal prefilter, and RE2 run only on the lines holding the literals of a
 * line-local pattern. For every pattern of every bundled manifest, on the text of the region
 * it is tested on (its rule's, or its input box's) in every read of the real agents'
 * recordings (the texts the sweep gives it), and on random texts built from the patterns' own
 * pieces, the test equals RE2's on the whole text and the match is RE2's leftmost match; the
 * rules' cost-ordered matching (src/detect/evaluator.ts) decides as matchRule does. And the
 * literal and the line locality are read conservatively from the pattern.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { matchRule } from '../src/detect/evaluate.ts';
import { matchCheapestFirst } from '../src/detect/evaluator.ts';
import {
  compilePattern,
  findMatch,
  isLineLocal,
  type Pattern,
  requiredLiterals,
  testPattern,
} from '../src/detect/patterns.ts';
import { RegionTexts } from '../src/detect/regions.ts';
import type { Region } from '../src/detect/types.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { prng } from '../src/sim/rng.ts';

test('required literals are read conservatively', () => {
  const cases: [string, string[][]][] = [
    ['^\\s*❯\\s*\\d+\\.\\s', [['❯'], ['.']]],
    ['Do you want to (?:proceed|continue)', [['Do you want to '], ['proceed', 'continue']]],
    ['(?:proceed|continue)\\b', [['proceed', 'continue']]],
    ['^\\s*(?:Let\\x{27}s get started\\.|Choose the text|Security notes:)', [[
      's get started.',
      'Choose the text',
      'Security notes:',
    ]]],
    ['(?:^\\s*Esc to cancel(?: · [^\\n]*)?|\\(esc\\))\\z', [['Esc to cancel', '(esc)']]],
    ['^\\s*❯ [^\\n]+\\n\\s{2,}\\S|^\\s{2,}\\S[^\\n]*\\n\\s*❯ \\S', [['❯ ']]],
    ['\\?(?:\\s[^\\n]*)?\\n(?:[^\\n]*\\n){0,12}\\s*❯ \\S', [['❯ '], ['?']]],
    ['^[·✢✳✶✻✽*] [A-Z][a-z]+…', [[' '], ['…']]],
    ['esc to interrupt', [['esc to interrupt']]],
    ['ab?c', [['a'], ['c']]],
    ['x{2}yz', [['yz']]],
    ['a\\x{a0}bc', [['bc'], ['a']]],
    ['a+b', [['b']]],
    ['(?:ab)?cd', [['cd']]],
    ['a(b|c)d(e|f)g', [['a'], ['b', 'c'], ['d']]],
    ['🚀 go', [['🚀 go']]],
    ['a|b', [['a', 'b']]],
    ['(?:ab)+', []],
    ['a|', []],
    ['a|\\d', []],
    ['(?i)abc', []],
    ['(?s)a.b', []],
    ['\\QA.B\\E', []],
    ['[abc]', []],
    ['\\d+', []],
  ];
  for (const [source, literals] of cases) assert.equal(requiredLiterals(source), literals, source);
});

test('line locality is read from the compiled program, conservatively', () => {
  const local = [
    'esc to interrupt',
    '^  (?:⏸|⏵⏵) [a-z ]+ on\\b',
    '^\\s*\\? for shortcuts', // a leading ^\s* stays in the line it ends in
    '· (?:Enter to save|Esc to close)\\b|^\\s*Enter to continue · ',
    '^[·✢✳✶✻✽*] [A-Z][^…\\n]{0,78}…',
    '^\\s*Exit plan mode\\?$',
    'a.b', // '.' does not match '\n'
    '(?i)abc',
    '[^\\S\\n]+x',
  ];
  const whole = [
    '^\\s*❯\\s*\\d+\\.\\s', // \s after the ❯ may cross a line end
    '^─{8,}\\n❯',
    'a\\sb',
    '(?s)a.b',
    '[^x]y',
    'x\\z',
    '\\Ax',
    '\\Qa|^\\s*b\\E',
    'a\\Wb',
    'x|^\\s+y', // \s+ is not \s*: "\n y" needs its '\n'
    'x(?:^\\s*y)', // ^\s* not at the start of a top-level branch
    '\\pCx', // \pC holds '\n'
  ];
  for (const s of local) assert.ok(isLineLocal(s), `line-local: ${s}`);
  assert.not.ok(isLineLocal('^\\s*\\? for shortcuts', false), 'its match may start lines above');
  assert.ok(isLineLocal('^[^\\S\\n]*\\? for shortcuts', false));
  for (const s of whole) assert.not.ok(isLineLocal(s), `not line-local: ${s}`);
});

const manifests = loadBundledManifests();
const patterns = [...manifests.values()].flatMap((m) => [
  ...m.rules.flatMap((r) => [...r.all, ...r.any, ...r.none]),
  ...(m.input?.empty ?? []),
]);
const rules = [...manifests.values()].flatMap((m) => m.rules);
const activity = [...manifests.values()].flatMap((m) => m.activity?.any ?? []);

/** RE2's leftmost match of `p` in the whole of `text`, or null. */
function wholeMatch(p: Pattern, text: string): string | null {
  const m = p.re.matcher(text);
  return m.find() ? (m.group() ?? '') : null;
}

/** Every region a rule or an input box reads, with the patterns tested on its text. */
const byRegion = new Map<string, { region: Region; patterns: Set<Pattern> }>();
for (const m of manifests.values()) {
  const reads: [Region, readonly Pattern[]][] = m.rules.map((r) => [r.region, [
    ...r.all,
    ...r.any,
    ...r.none,
  ]]);
  if (m.input) reads.push([m.input.region, m.input.empty]);
  for (const [region, ps] of reads) {
    const key = JSON.stringify(region);
    const entry = byRegion.get(key) ?? { region, patterns: new Set<Pattern>() };
    for (const p of ps) entry.patterns.add(p);
    byRegion.set(key, entry);
  }
}

test("prefiltered tests equal RE2 on its region's text of every recorded read", () => {
  assert.ok(patterns.some((p) => p.literals.length), 'some patterns have literals');
  const fixtures = join(import.meta.dirname, '..', 'fixtures');
  let compared = 0;
  let matched = 0;
  const seen = new Map([...byRegion.keys()].map((k) => [k, new Set<string>()]));
  for (const folder of readdirSync(fixtures)) {
    let files: string[];
    try {
      files = readdirSync(join(fixtures, folder, 'recordings'));
    } catch {
      continue;
    }
    for (const f of files.filter((f) => f.endsWith('.bytes.jsonl'))) {
      const t = new Terminal(32, 120);
      for (
        const line of readFileSync(join(fixtures, folder, 'recordings', f), 'utf8').split('\n')
      ) {
        if (!line) continue;
        t.write(new Uint8Array(Buffer.from(JSON.parse(line).b64, 'base64')));
        const texts = new RegionTexts(t.snapshot());
        for (const [key, { region, patterns }] of byRegion) {
          const text = texts.text(region);
          const done = seen.get(key)!;
          if (done.has(text)) continue; // each distinct text of a region once
          done.add(text);
          for (const p of patterns) {
            const want = p.re.test(text);
            assert.is(testPattern(p, text), want, `${folder}/${f}: ${p.source}`);
            if (want && p.matchesInLine) {
              assert.is(findMatch(p, text), wholeMatch(p, text), p.source);
            }
            compared++;
            if (want) matched++;
          }
          for (const rule of rules) {
            if (JSON.stringify(rule.region) !== key) continue;
            assert.is(matchCheapestFirst(rule, text), matchRule(rule, text), `rule ${rule.index}`);
          }
        }
      }
    }
  }
  assert.ok(compared > 10_000 && matched > 1000, `${compared} tests, ${matched} matches`);
});

test('prefiltered tests equal RE2 on random texts made of the patterns’ pieces', () => {
  const rnd = prng(5);
  const pieces = [
    ...patterns.flatMap((p) => p.literals.flat()),
    ...'❯›─│ \n\t.?0123456789abcXYZ·✢…'.split(''),
    'Do you want to proceed?',
    '1. Yes',
    'esc to interrupt',
    'state=blocked',
    'Enter to select · ',
    '? for shortcuts',
    '  ⏸ manual mode on',
    '\n  ',
    ' \n',
    '❯ 1. ',
    'abc',
    'on',
  ];
  const extra = [
    'a|b',
    'ab?c',
    'x{2}yz',
    '(?:⏸|⏵⏵) [a-z ]+ mode on',
    '^\\s*❯\\s*\\d+\\.\\s',
    '^\\s*abc',
    '^\\s*❯ \\S|Yes$',
    '\\bon$',
    'c\\b',
  ].map(compilePattern);
  assert.ok(extra.filter((p) => p.lineLocal).length >= 5);
  for (let n = 0; n < 3000; n++) {
    let text = '';
    const k = 1 + Math.floor(rnd() * 12);
    for (let i = 0; i < k; i++) text += pieces[Math.floor(rnd() * pieces.length)];
    for (const p of [...patterns, ...activity, ...extra]) {
      const want = p.re.test(text);
      assert.is(testPattern(p, text), want, `${p.source} on ${JSON.stringify(text)}`);
      if (want && p.matchesInLine) {
        assert.is(
          findMatch(p, text),
          wholeMatch(p, text),
          `${p.source} on ${JSON.stringify(text)}`,
        );
      }
    }
    for (const rule of rules) {
      assert.is(matchCheapestFirst(rule, text), matchRule(rule, text), `rule ${rule.index}`);
    }
  }
});

test.run();
